package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
)

// TestActionFailureStatusIsCut: the decision's own error (an invalid spec, already cut to
// clip.Status) followed by the action's failure is cut again before it reaches status.error
// (invariant T2 of the hostile machine found it 227 bytes over).
func TestActionFailureStatusIsCut(t *testing.T) {
	s := runtime.NewScheme()
	if err := flinkv1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	d := fixtures.Deployment("flink", "a")
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(d).WithStatusSubresource(&flinkv1beta1.FlinkDeployment{}).Build()
	decided := clip.String("invalid spec: "+strings.Repeat("k", 4000), clip.Status)
	failure := fmt.Errorf("HA ConfigMap a-cluster-config-map: %w", act.ErrNotOwned)
	_ = reportActionFailure(context.Background(), c, record.NewFakeRecorder(10), time.Unix(0, 0), d, &d.Status.Error, decided, "Deploy", failure, nil)
	if n := len(flinkv1beta1.ErrorMessage(d.Status.Error)); n == 0 || n > clip.Status {
		t.Errorf("status.error is %d bytes; want 1 to %d", n, clip.Status)
	}
	if !strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "Deploy failed: HA ConfigMap") {
		t.Errorf("status.error lost the action's failure: …%s", flinkv1beta1.ErrorMessage(d.Status.Error)[max(0, len(flinkv1beta1.ErrorMessage(d.Status.Error))-200):])
	}
}
