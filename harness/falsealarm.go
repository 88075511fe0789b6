package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// missingReasons are the Events that say a resource's JobManager Deployment is gone.
var missingReasons = map[string]bool{"RecoverDeployment": true, "JobManagerDeploymentMissing": true}

// alarms checks the operator's stated reasons against the truth (invariant 7): before each
// reconcile the world notes whether the FlinkDeployment's JobManager Deployment exists on the
// API server, and the state fakeflink gives each job of the cluster the resource runs on.
// An Event of the reconcile that says otherwise is a false alarm:
//   - missingReasons while the JobManager Deployment existed (the operator believed a lagging
//     cache over the API);
//   - RestartFailedJob ("Job <id> failed; …") while that job runs on its cluster in another
//     state than FAILED;
//   - JobMissing ("job <id> is not on session cluster …") while the session cluster runs that
//     job (a REST timeout or a 5xx taken for Flink's 404);
//   - JobFailed while no job of the cluster is FAILED;
//   - RestartUnhealthyJob ("Job <id> is unhealthy (N restarts within W)") while fakeflink
//     recorded fewer than N failures of that job within W, or ("… (no checkpoint completed
//     within W)") while the job completed a checkpoint within W.
type alarms struct {
	reconciling string // the resource being reconciled ("": none)
	present     bool   // its JobManager Deployment existed when the reconcile began
	// jobs are fakeflink's truth about the jobs of the resource's cluster when the reconcile
	// began (nil: no cluster runs); now is when it began.
	jobs        map[string]jobTruth
	now         time.Time
	falseAlarms []string
}

// jobTruth is what fakeflink knows of a job that the operator's reasons may claim.
type jobTruth struct {
	status fakeflink.JobStatus
	// failures are when the job failed (its exception history); lastCheckpoint is when its
	// newest checkpoint completed (zero: none).
	failures       []time.Time
	lastCheckpoint time.Time
}

// beginAlarms notes the truth about the resource of key, about to be reconciled.
func (w *World) beginAlarms(key string) {
	w.alarms.reconciling, w.alarms.present, w.alarms.jobs, w.alarms.now = "", false, nil, w.Clock.Now()
	ctx := context.Background()
	if name, ok := strings.CutPrefix(key, sessionJobPrefix); ok {
		var j flinkv1beta1.FlinkSessionJob
		if w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: name}, &j) == nil {
			w.alarms.reconciling, w.alarms.jobs = name, w.jobStates(j.Spec.DeploymentName)
		}
		return
	}
	if strings.Contains(key, "/") { // snapshots and blue/green deployments: nothing to note
		return
	}
	var dep appsv1.Deployment
	var d flinkv1beta1.FlinkDeployment
	// Present as the operator counts it: not being deleted, and controlled by the resource.
	present := w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: act.JobManagerName(key)}, &dep) == nil &&
		w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: key}, &d) == nil &&
		dep.DeletionTimestamp == nil && metav1.IsControlledBy(&dep, &d)
	w.alarms.reconciling, w.alarms.present, w.alarms.jobs = key, present, w.jobStates(key)
}

// jobStates is fakeflink's truth about the jobs of the cluster of FlinkDeployment name, nil
// when none runs.
func (w *World) jobStates(name string) map[string]jobTruth {
	var out map[string]jobTruth
	w.Sim.Do(w.Namespace, act.JobManagerName(name), func(c *fakeflink.Cluster) {
		if !c.Up() {
			return
		}
		out = map[string]jobTruth{}
		for _, j := range c.Jobs() {
			truth := jobTruth{status: j.Status, lastCheckpoint: j.LastCheckpointTime()}
			for _, e := range j.Exceptions {
				truth.failures = append(truth.failures, e.Time)
			}
			out[j.ID] = truth
		}
	})
	return out
}

// endAlarms ends the reconcile's watch: Events outside a reconcile are nobody's.
func (w *World) endAlarms() { w.alarms.reconciling, w.alarms.present, w.alarms.jobs = "", false, nil }

// event checks one Event of the reconcile under way.
func (a *alarms) event(object, reason, message string) {
	if object != a.reconciling {
		return
	}
	var claim string
	switch fields := strings.Fields(message); {
	case a.present && missingReasons[reason]:
		claim = "while its JobManager Deployment exists on the API server"
	case reason == "RestartFailedJob" && len(fields) > 1:
		if j, ok := a.jobs[fields[1]]; ok && j.status != fakeflink.StatusFailed {
			claim = fmt.Sprintf("while fakeflink's job %s is %s", fields[1], j.status)
		}
	case reason == "JobMissing" && len(fields) > 1:
		if j, ok := a.jobs[fields[1]]; ok {
			claim = fmt.Sprintf("while the session cluster runs job %s (%s)", fields[1], j.status)
		}
	case reason == "JobFailed" && a.jobs != nil && !a.anyFailed():
		claim = "while no job of its cluster is FAILED in fakeflink"
	case reason == "RestartUnhealthyJob" && len(fields) > 1:
		if j, ok := a.jobs[fields[1]]; ok {
			claim = a.unhealthyClaim(j, message)
		}
	}
	if claim != "" {
		a.falseAlarms = append(a.falseAlarms, fmt.Sprintf("%s: Event %s (%q) %s (invariant 7)", object, reason, message, claim))
	}
}

// anyFailed says whether a job of the reconciled resource's cluster is FAILED.
func (a *alarms) anyFailed() bool {
	for _, j := range a.jobs {
		if j.status == fakeflink.StatusFailed {
			return true
		}
	}
	return false
}

// unhealthyClaim checks the health check's reason in a RestartUnhealthyJob message against
// fakeflink's record of the job; it returns what is false about it ("" when it holds).
func (a *alarms) unhealthyClaim(j jobTruth, message string) string {
	var n int
	var window string
	_, why, _ := strings.Cut(message, "(")
	if _, err := fmt.Sscanf(why, "%d restarts within %s", &n, &window); err == nil {
		w, err := time.ParseDuration(strings.TrimSuffix(window, ");"))
		if err != nil {
			return ""
		}
		// In whole milliseconds, as the operator reads Flink's timestamps.
		since, count := a.now.Add(-w).UnixMilli(), 0
		for _, t := range j.failures {
			if t.UnixMilli() >= since {
				count++
			}
		}
		if count < n {
			return fmt.Sprintf("while fakeflink's job failed %d times within %s", count, w)
		}
		return ""
	}
	// The operator dates a checkpoint by its trigger_timestamp, which fakeflink serves as the
	// time the checkpoint completed (lastCheckpoint).
	if rest, ok := strings.CutPrefix(why, "no checkpoint completed within "); ok && len(strings.Fields(rest)) > 0 {
		w, err := time.ParseDuration(strings.TrimSuffix(strings.Fields(rest)[0], ");"))
		if age := a.now.UnixMilli() - j.lastCheckpoint.UnixMilli(); err == nil && !j.lastCheckpoint.IsZero() && age <= w.Milliseconds() {
			return fmt.Sprintf("while fakeflink's job completed a checkpoint %s before", time.Duration(age)*time.Millisecond)
		}
	}
	return ""
}

// FalseAlarms are the false claims of a missing JobManager Deployment so far (invariant 7).
func (w *World) FalseAlarms() []string { return w.alarms.falseAlarms }

// reader is the operator's reader past its cache (the manager's API reader): current and
// whole, whatever the cache lags, but down while the API server is.
func (f *apiFaults) reader(c client.WithWatch) client.Reader {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := f.unavailable(); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := f.unavailable(); err != nil {
				return err
			}
			return c.List(ctx, list, opts...)
		},
	})
}
