package harness

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/decide"
)

// statusConsistent: errors come with Warning events, observedGeneration never goes back, the
// lifecycle agrees with the reconciliation state, and a deployed spec is what runs
// (invariant 3).
func (c *Checker) statusConsistent(d *flinkv1beta1.FlinkDeployment) []string {
	var out []string
	st := d.Status
	if st.Error != "" && !c.hasWarning(d.Name, flinkv1beta1.ErrorMessage(st.Error)) {
		out = append(out, fmt.Sprintf("%s: status.error %.300q has no Warning event (invariant 3)", d.Name, st.Error))
	}
	if _, ok := flinkv1beta1.ParseError(st.Error); st.Error != "" && !ok {
		out = append(out, fmt.Sprintf("%s: status.error %.300q is not Apache's JSON (invariant 3)", d.Name, st.Error))
	}
	if st.ObservedGeneration < c.lastGen[d.Name] {
		out = append(out, fmt.Sprintf("%s: observedGeneration went back from %d to %d (invariant 3)", d.Name, c.lastGen[d.Name], st.ObservedGeneration))
	}
	c.lastGen[d.Name] = max(c.lastGen[d.Name], st.ObservedGeneration)
	rs := st.ReconciliationStatus
	if (rs.State == flinkv1beta1.ReconciliationUpgrading) != (st.LifecycleState == flinkv1beta1.LifecycleUpgrading) && d.DeletionTimestamp == nil {
		out = append(out, fmt.Sprintf("%s: lifecycle %s with reconciliation state %s (invariant 3)", d.Name, st.LifecycleState, rs.State))
	}
	if st.LifecycleState == flinkv1beta1.LifecycleStable && rs.LastStableSpec != rs.LastReconciledSpec {
		out = append(out, fmt.Sprintf("%s: STABLE but the reconciled spec is not the stable one (invariant 3)", d.Name))
	}
	if rs.State == flinkv1beta1.ReconciliationDeployed {
		out = append(out, c.deployedMatches(d)...)
	}
	return out
}

// deployedMatches checks that the running JobManager uses the reconciled spec's image.
func (c *Checker) deployedMatches(d *flinkv1beta1.FlinkDeployment) []string {
	r, err := decide.ParseReconciledSpec(d.Status.ReconciliationStatus.LastReconciledSpec)
	if err != nil || r == nil {
		return nil
	}
	var dep appsv1.Deployment
	if err := c.w.Client.Get(context.Background(), client.ObjectKey{Namespace: c.w.Namespace, Name: act.JobManagerName(d.Name)}, &dep); err != nil {
		return nil
	}
	for _, ct := range dep.Spec.Template.Spec.Containers {
		if ct.Name == act.MainContainer && ct.Image != r.Spec.Image {
			return []string{fmt.Sprintf("%s: DEPLOYED spec has image %s but the JobManager runs %s (invariant 3)", d.Name, r.Spec.Image, ct.Image)}
		}
	}
	return nil
}

func (c *Checker) hasWarning(name, msg string) bool {
	for _, e := range c.w.events.events {
		if e.Object != name || e.Type != "Warning" {
			continue
		}
		// An Event cut to the API limit carries at least the message's beginning.
		kept, cut := strings.CutSuffix(e.Message, controller.TruncatedMark)
		if strings.Contains(e.Message, msg) || (cut && strings.Contains(kept, msg[:min(len(msg), 200)])) {
			return true
		}
	}
	return false
}
