package controller

import (
	"context"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// noJars is a session cluster with no jar uploaded yet.
type noJars struct{ act.SessionFlinkAPI }

func (noJars) ListJars(context.Context) ([]flink.Jar, error) { return nil, nil }

// stalledJars is a jar server that answers nothing: it says when the request came, and
// holds it until it is cancelled.
type stalledJars chan struct{}

func (s stalledJars) RoundTrip(r *http.Request) (*http.Response, error) {
	close(s)
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// The session job watch stops a job's fetch, freeing its slot at once, when the job is
// deleted, its deletion is asked or its spec changes; not when its status is written.
func TestFetchCancels(t *testing.T) {
	cases := map[string]struct {
		// seen is what the watch sees of the job, whose fetch of generation 1 is under way.
		seen          func(h handler.EventHandler, old *flinkv1beta1.FlinkSessionJob)
		wantCancelled bool
	}{
		"the job is deleted": {
			seen: func(h handler.EventHandler, old *flinkv1beta1.FlinkSessionJob) {
				h.Delete(t.Context(), event.DeleteEvent{Object: old}, nil)
			},
			wantCancelled: true,
		},
		"its deletion is asked": {
			seen: func(h handler.EventHandler, old *flinkv1beta1.FlinkSessionJob) {
				cur := old.DeepCopy()
				cur.DeletionTimestamp = &metav1.Time{}
				h.Update(t.Context(), event.UpdateEvent{ObjectOld: old, ObjectNew: cur}, nil)
			},
			wantCancelled: true,
		},
		"its spec changed": {
			seen: func(h handler.EventHandler, old *flinkv1beta1.FlinkSessionJob) {
				cur := old.DeepCopy()
				cur.Generation, cur.Spec.Job.JarURI = 2, "https://jars.example.com/other.jar"
				h.Update(t.Context(), event.UpdateEvent{ObjectOld: old, ObjectNew: cur}, nil)
			},
			wantCancelled: true,
		},
		"its status was written": {
			seen: func(h handler.EventHandler, old *flinkv1beta1.FlinkSessionJob) {
				cur := old.DeepCopy()
				cur.Status.Error = "waiting"
				h.Update(t.Context(), event.UpdateEvent{ObjectOld: old, ObjectNew: cur}, nil)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			asked := make(stalledJars)
			slots := act.NewFetchSlots(1, 1, clocktesting.NewFakeClock(time.Unix(0, 0)))
			exec := &act.SessionJobExecutor{
				Flink:      func(*flinkv1beta1.FlinkDeployment) act.SessionFlinkAPI { return noJars{} },
				Jars:       &flink.JarFetcher{Transport: asked, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
				FetchSlots: slots,
			}
			j := fixtures.SessionJob("team-a", "etl", "sess")
			j.Generation, j.Spec.Job.JarURI = 1, "https://jars.example.com/slow.jar"
			cluster := &flinkv1beta1.FlinkDeployment{}
			cluster.Namespace = j.Namespace
			ctx, stop := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				done <- exec.Execute(ctx, j, cluster, sessionjob.Action{Kind: sessionjob.ActSubmitJob, Submit: &sessionjob.Submit{Job: *j.Spec.Job, JarName: "x.jar"}})
			}()
			<-asked
			tc.seen(fetchCancels(slots), j)
			if cancelled := slots.Busy() == 0; cancelled != tc.wantCancelled {
				t.Errorf("slot freed = %v, want %v", cancelled, tc.wantCancelled)
			}
			stop()
			if err := <-done; err != nil {
				t.Logf("the fetch ended: %v", err) // cancelled or not, what counts is the slot
			}
		})
	}
}
