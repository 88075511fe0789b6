package observe

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// TestAnswerBudgetRefusalIsUnknownNotAbsent: a job whose checkpoint statistics could not be
// read because the operator's answer budget was spent (other tenants' JobManagers hold it) is
// observed as deferred, so the reconcile decides nothing on a missing checkpoint; the same
// answer within budget is not.
func TestAnswerBudgetRefusalIsUnknownNotAbsent(t *testing.T) {
	for name, tc := range map[string]struct {
		budget *flink.AnswerBudget
		want   bool
	}{
		"budget spent":   {budget: flink.NewAnswerBudget(flink.AnswerSmall, flink.AnswerSmall), want: true},
		"budget to read": {budget: flink.NewAnswerBudget(flink.DefaultAnswerBudget, flink.DefaultTenantAnswerBudget), want: false},
	} {
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			const jm = "http://job-rest.ns:8081"
			mt.RegisterResponder(http.MethodGet, jm+"/jobs/overview", httpmock.NewStringResponder(http.StatusOK,
				`{"jobs":[{"jid":"job-1","name":"j","state":"RUNNING","start-time":1}]}`))
			// 200 KiB of checkpoint history: past the answer's free first 64 KiB.
			mt.RegisterResponder(http.MethodGet, jm+"/jobs/job-1/checkpoints", httpmock.NewStringResponder(http.StatusOK,
				`{"counts":{},"history":[],"pad":"`+strings.Repeat("x", 200<<10)+`"}`))
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusNotFound, `{"errors":["Not found"]}`))
			client := flink.NewClient(jm, flink.WithTransport(mt), flink.WithAnswerBudget(tc.budget, "ns"))
			o := &Observer{Flink: func(*flinkv1beta1.FlinkDeployment) FlinkAPI { return client }}
			d := &flinkv1beta1.FlinkDeployment{
				ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns"},
				Spec:       flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{JarURI: "local:///job.jar"}},
			}
			d.Status.JobStatus.JobID = "job-1"
			var obs decide.Observation
			o.observeFlink(t.Context(), d, &obs)
			if obs.RESTDeferred != tc.want {
				t.Errorf("RESTDeferred = %v, want %v", obs.RESTDeferred, tc.want)
			}
		})
	}
}
