package webhook_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/webhook"
)

func valid() *flinkv1beta1.FlinkDeployment { return fixtures.Deployment("flink", "basic") }

func invalid() *flinkv1beta1.FlinkDeployment { return fixtures.InvalidDeployment("flink", "basic") }

func TestDeploymentValidator(t *testing.T) {
	v := webhook.NewDeploymentValidator(nil)
	withDefaults := webhook.NewDeploymentValidator(func(namespace, version string) map[string]string {
		return map[string]string{flinkv1beta1.ConfigSavepointsDir: "s3://" + namespace + "/" + version}
	})
	savepointMode := func() *flinkv1beta1.FlinkDeployment {
		d := valid()
		d.Spec.Job.UpgradeMode = flinkv1beta1.UpgradeModeSavepoint
		delete(d.Spec.FlinkConfiguration, flinkv1beta1.ConfigSavepointsDir)
		delete(d.Spec.FlinkConfiguration, flinkv1beta1.ConfigSavepointsDirV2)
		return d
	}
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
		"a savepoint upgrade without a directory": {
			run: func() error { _, err := v.ValidateCreate(ctx, savepointMode()); return err }, wantErr: "spec.job.upgradeMode",
		},
		"a savepoint upgrade with the operator's directory": {
			run: func() error {
				d := savepointMode()
				_, err := withDefaults.ValidateCreate(ctx, d)
				if err == nil && d.Spec.Defaults != nil {
					return errors.New("the request's object was changed")
				}
				return err
			},
		},
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
