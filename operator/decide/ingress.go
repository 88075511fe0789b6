package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
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
// validation (valid false), the deployed spec's ingress stays.
func (s *step) syncIngress(valid bool) bool {
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
		s.act(Action{Kind: ActApplyIngress, Ingress: want.DeepCopy()})
		s.event(Normal, "Ingress", "Applying the web UI Ingress from spec.ingress")
	default:
		return false
	}
	return true
}
