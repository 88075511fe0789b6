package bluegreen

import (
	"fmt"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// ReasonIngressRefused is the Warning's reason when the operator's Ingress policy refuses
// spec.ingress (FlinkDeployments report the same).
const ReasonIngressRefused = "IngressRefused"

// IngressSeen is what the operator saw of the resource's Ingress (named like the resource).
type IngressSeen struct {
	// Hash is its IngressHash annotation ("" when none).
	Hash string
	// Foreign is set when the resource does not control it: it is never touched.
	Foreign bool
}

// IngressHash identifies the Ingress the resource should have with child c active: its
// spec.ingress and the child whose REST Service it routes to.
func IngressHash(spec *flinkv1beta1.IngressSpec, child string) string {
	return decide.IngressHash(spec) + "-" + decide.IngressHash(&flinkv1beta1.IngressSpec{Template: child})
}

// syncIngress makes the resource's Ingress route to child c, or removes it when spec.ingress
// asks for none; it reports whether it chose that action. An Ingress another object controls
// is reported (FAILING) and left alone. An ingress the operator's Ingress policy refuses is
// neither created nor moved (an Ingress already there stays as it is): status.error and a
// Warning say why, and the switch goes on without it.
func (s *step) syncIngress(c flinkv1beta1.BlueGreenColor) bool {
	want, seen := s.bg.Spec.Ingress, s.in.Ingress
	if s.in.IngressPolicy.Unmanaged {
		switch {
		case want != nil && s.st.Error != config.UnmanagedWarning && s.st.Error == "":
			s.event(decide.Warning, "IngressManagement", config.UnmanagedWarning)
			s.st.Error = config.UnmanagedWarning // not s.fail: the job is not FAILING for it
		case want == nil && s.st.Error == config.UnmanagedWarning:
			s.st.Error = ""
		}
		return false
	}
	refused := s.in.IngressPolicy.Refusal(want, s.bg.Name, s.bg.Namespace)
	if refused == "" && strings.HasPrefix(s.st.Error, config.IngressRefusalPrefix) {
		s.st.Error = "" // the spec or the policy changed since
	}
	switch {
	case seen != nil && seen.Foreign:
		if want != nil {
			s.fail(ReasonFailed, fmt.Sprintf("Ingress %s exists and is not controlled by this FlinkBlueGreenDeployment: rename the resource or remove that Ingress", s.bg.Name))
		}
		return false
	case want == nil && seen != nil:
		s.act(Action{Kind: ActDeleteIngress})
		return true
	case want == nil:
		return false
	case refused != "":
		// Not s.fail: the job is not FAILING for it.
		if s.st.Error != refused {
			s.event(decide.Warning, ReasonIngressRefused, refused)
		}
		s.st.Error = refused
		return false
	case seen == nil || seen.Hash != IngressHash(want, c.ChildName(s.bg.Name)):
		s.act(Action{Kind: ActApplyIngress, Color: c})
		s.event(decide.Normal, ReasonIngress, fmt.Sprintf("Ingress %s routes to %s", s.bg.Name, c.ChildName(s.bg.Name)))
		return true
	}
	return false
}
