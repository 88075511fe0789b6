package harness

import (
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// endedJobStates are the job states in which no job runs any more.
var endedJobStates = []flinkv1beta1.JobStatusState{flinkv1beta1.JobStatusFinished, flinkv1beta1.JobStatusCanceled, flinkv1beta1.JobStatusFailed}

// Converged reports whether a resource reached its desired state (invariant 5): the current
// generation observed, no upgrade in flight, and the job RUNNING (or SUSPENDED when asked),
// or an explicit refusal (status.error with its Warning event).
func (c *Checker) Converged(name string) (bool, string) {
	d, err := c.w.Get(name)
	if apierrors.IsNotFound(err) {
		return true, "deleted"
	}
	if err != nil {
		return false, err.Error()
	}
	st := d.Status
	if st.Error != "" {
		msg := flinkv1beta1.ErrorMessage(st.Error)
		if why := untrueRefusal(msg, st.JobStatus.State); why != "" {
			return false, why
		}
		return c.hasWarning(name, msg), "refused: " + msg
	}
	if cron.IsTemplate(d) {
		return st.ObservedGeneration == d.Generation && st.LifecycleState == flinkv1beta1.LifecycleStable,
			fmt.Sprintf("cron template: generation %d observed %d, lifecycle %s", d.Generation, st.ObservedGeneration, st.LifecycleState)
	}
	rs := st.ReconciliationStatus.State
	if st.ObservedGeneration != d.Generation || (rs != flinkv1beta1.ReconciliationDeployed && rs != flinkv1beta1.ReconciliationRolledBack) {
		return false, fmt.Sprintf("generation %d observed %d, reconciliation %s", d.Generation, st.ObservedGeneration, st.ReconciliationStatus.State)
	}
	want := flinkv1beta1.JobStatusRunning
	switch {
	case d.Spec.Job == nil:
		want = "" // a session cluster runs no job of its own
	case d.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended:
		want = flinkv1beta1.JobStatusSuspended
	}
	if st.JobStatus.State != want {
		return false, fmt.Sprintf("job %s, want %s", st.JobStatus.State, want)
	}
	lc := st.LifecycleState
	return lc == flinkv1beta1.LifecycleStable || lc == flinkv1beta1.LifecycleSuspended || lc == flinkv1beta1.LifecycleRolledBack,
		"lifecycle " + string(lc)
}

// untrueRefusal says why a refusal (status.error) is not an acceptable end ("" when it is): a
// refusal that says the job keeps running while the job has ended leaves the user with neither
// the old job nor the new one.
func untrueRefusal(refusal string, job flinkv1beta1.JobStatusState) string {
	if strings.Contains(refusal, "keeps running") && slices.Contains(endedJobStates, job) {
		return fmt.Sprintf("refused, saying the job keeps running, but the job is %s: %s", job, refusal)
	}
	return ""
}
