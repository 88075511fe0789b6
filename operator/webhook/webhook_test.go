package webhook_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/webhook"
)

func valid() *flinkv1beta1.FlinkDeployment {
	p := int32(2)
	return &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "basic", Namespace: "flink"},
		Spec: flinkv1beta1.FlinkDeploymentSpec{
			Image: "flink:1.20", FlinkVersion: "v1_20",
			FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{"taskmanager.numberOfTaskSlots": "2"}),
			Job:                &flinkv1beta1.JobSpec{JarURI: "local:///opt/flink/job.jar", Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeStateless},
		},
	}
}

func invalid() *flinkv1beta1.FlinkDeployment {
	d := valid()
	d.Spec.Job.JarURI = ""
	return d
}

func TestDeploymentValidator(t *testing.T) {
	v := webhook.NewDeploymentValidator()
	ctx := context.Background()
	withFinalizer := func(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.FlinkDeployment {
		d.Finalizers = []string{"flinkop.io/finalizer"}
		return d
	}
	deleting := func(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.FlinkDeployment {
		d.DeletionTimestamp = &metav1.Time{}
		return d
	}
	tests := map[string]struct {
		run     func() error
		wantErr string // a field path in the refusal; "" allows
	}{
		"create valid":   {run: func() error { _, err := v.ValidateCreate(ctx, valid()); return err }},
		"create invalid": {run: func() error { _, err := v.ValidateCreate(ctx, invalid()); return err }, wantErr: "spec.job.jarURI"},
		"update to an invalid spec": {
			run: func() error { _, err := v.ValidateUpdate(ctx, valid(), invalid()); return err }, wantErr: "spec.job.jarURI",
		},
		"an invalid resource's finalizer can be added and removed (spec unchanged)": {
			run: func() error { _, err := v.ValidateUpdate(ctx, invalid(), withFinalizer(invalid())); return err },
		},
		"a resource being deleted may change": {
			run: func() error { _, err := v.ValidateUpdate(ctx, invalid(), deleting(invalid())); return err },
		},
		"delete": {run: func() error { _, err := v.ValidateDelete(ctx, invalid()); return err }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.run()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want Invalid naming %s", err, tc.wantErr)
			}
		})
	}
}
