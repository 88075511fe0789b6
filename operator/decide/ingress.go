package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// IngressHash identifies an ingress spec; the rendered Ingress carries it, so an outdated one
// is seen without comparing objects.
func IngressHash(spec *flinkv1beta1.IngressSpec) string {
	raw, _ := json.Marshal(spec) // plain data always encodes
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// syncIngress keeps the web UI Ingress in line with spec.ingress of the deployed spec: created
// or updated when it differs, deleted when the spec no longer asks for one. Ingress changes
// are ignorable spec changes (nothing is redeployed for them). While the current spec fails
// validation (valid false), the deployed spec's ingress stays. An ingress the operator's
// Ingress policy refuses is neither created nor updated (an Ingress already there stays as it
// is); ingressPolicy says why.
func (s *step) syncIngress(valid bool) bool {
	if s.in.Options.Ingress.Unmanaged {
		return false
	}
	want := s.d.Spec.Ingress
	if !valid {
		want = s.deployedSpec().Spec.Ingress
	}
	have := s.in.Observed.Ingress
	switch {
	case want == nil && have == nil:
		return false
	case want == nil:
		s.act(Action{Kind: ActDeleteIngress})
		s.event(Normal, "Ingress", "Deleting the web UI Ingress: spec.ingress was removed")
	case have == nil || have.Hash != IngressHash(want):
		if s.ingressRefusal(want) != "" {
			return false
		}
		s.act(Action{Kind: ActApplyIngress, Ingress: want.DeepCopy()})
		s.event(Normal, "Ingress", "Applying the web UI Ingress from spec.ingress")
	default:
		return false
	}
	return true
}

// ingressRefusal is why the operator's Ingress policy refuses the Ingress spec renders for the
// resource ("" when it allows it).
func (s *step) ingressRefusal(spec *flinkv1beta1.IngressSpec) string {
	return s.in.Options.Ingress.Refusal(spec, s.d.Name, s.d.Namespace)
}

// ingressPolicy applies the operator's Ingress policy to the reconcile, after the state
// machine ran. A deploy does not carry an Ingress the policy refuses (the executor would
// apply it with the cluster). The refusal of spec.ingress is reported in status.error with a
// Warning, whatever else the reconcile did (the job runs on, only the Ingress is not
// applied), but only when nothing else was reported (a refused or invalid spec, a failing job
// say more); so the message stays put rather than come and go with the steps that reach
// syncIngress.
func (s *step) ingressPolicy() {
	if dep := s.res.Action.Deploy; dep != nil && (s.in.Options.Ingress.Unmanaged || s.ingressRefusal(dep.Spec.Ingress) != "") {
		dep.Spec.Ingress = nil
	}
	if s.in.Options.Ingress.Unmanaged {
		if s.d.Spec.Ingress != nil && s.d.Status.ObservedGeneration < s.d.Generation && s.d.DeletionTimestamp == nil {
			s.event(Warning, "IngressManagement", config.UnmanagedWarning)
		}
		return
	}
	if s.report.msg != "" || s.d.DeletionTimestamp != nil {
		return
	}
	if why := s.ingressRefusal(s.d.Spec.Ingress); why != "" {
		s.fail("IngressRefused", why)
	}
}
