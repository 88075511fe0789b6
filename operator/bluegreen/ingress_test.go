package bluegreen

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestIngressPolicy: the resource's Ingress obeys the operator's Ingress policy. A refused
// one is neither created nor moved; status.error and a Warning say why, the job is not
// FAILING for it, and a switch goes on without it.
func TestIngressPolicy(t *testing.T) {
	sp := template(flinkv1beta1.UpgradeModeSavepoint)
	greenSpec := withSavepoint(sp, flinkv1beta1.Green, "file:/sp/savepoint-1")
	tenant := config.IngressPolicy{AllowedHosts: "*.{{namespace}}.apps.example.com"}
	others := &flinkv1beta1.IngressSpec{Template: "x.other.apps.example.com"}
	own := &flinkv1beta1.IngressSpec{Template: "{{name}}.{{namespace}}.apps.example.com"}
	refused := `spec.ingress: host "x.other.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`
	active := func(ingress *flinkv1beta1.IngressSpec, stError string) *flinkv1beta1.FlinkBlueGreenDeployment {
		bg := bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp)
		bg.Spec.Ingress, bg.Status.Error = ingress, stError
		return bg
	}
	cutOver := bgIn(flinkv1beta1.BlueGreenTransitioningToGreen, sp, sp)
	cutOver.Spec.Ingress = others
	cutOver.Status.DeploymentReadyTimestamp = now.Add(-time.Minute).Format(time.RFC3339)

	type want struct {
		Action ActionKind
		Color  flinkv1beta1.BlueGreenColor
		Error  string
		Job    flinkv1beta1.JobStatusState
		// Warnings are the reasons of the Warning Events.
		Warnings []string
	}
	cases := map[string]struct {
		bg     *flinkv1beta1.FlinkBlueGreenDeployment
		green  bool // a ready green child exists
		seen   *IngressSeen
		policy config.IngressPolicy
		want   want
	}{
		"defaults: another's host is applied (Apache's behaviour)": {
			bg: active(others, ""), want: want{ActApplyIngress, flinkv1beta1.Blue, "", flinkv1beta1.JobStatusRunning, nil},
		},
		"the namespace's own host is applied": {
			bg: active(own, ""), policy: tenant, want: want{ActApplyIngress, flinkv1beta1.Blue, "", flinkv1beta1.JobStatusRunning, nil},
		},
		"another tenant's host: not created": {
			bg: active(others, ""), policy: tenant, want: want{ActNone, "", refused, flinkv1beta1.JobStatusRunning, []string{ReasonIngressRefused}},
		},
		"another tenant's host: the Ingress there stays": {
			bg: active(others, refused), seen: &IngressSeen{Hash: IngressHash(own, "bg-blue")}, policy: tenant,
			want: want{ActNone, "", refused, flinkv1beta1.JobStatusRunning, nil},
		},
		"the policy allows it now: applied, the refusal cleared": {
			bg: active(others, refused), want: want{ActApplyIngress, flinkv1beta1.Blue, "", flinkv1beta1.JobStatusRunning, nil},
		},
		"ingress.manage false: not created, warned once": {
			bg: active(own, ""), policy: config.IngressPolicy{Unmanaged: true},
			want: want{ActNone, "", config.UnmanagedWarning, flinkv1beta1.JobStatusRunning, []string{"IngressManagement"}},
		},
		"ingress.manage false: an Ingress there is neither moved nor deleted": {
			bg: active(nil, config.UnmanagedWarning), seen: &IngressSeen{Hash: "old"}, policy: config.IngressPolicy{Unmanaged: true},
			want: want{ActNone, "", "", flinkv1beta1.JobStatusRunning, nil},
		},
		"a cut-over goes on without the refused Ingress": {
			bg: cutOver, green: true, seen: &IngressSeen{Hash: IngressHash(own, "bg-blue")}, policy: tenant,
			want: want{ActDelete, flinkv1beta1.Blue, "", flinkv1beta1.JobStatusRunning, []string{ReasonIngressRefused}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := Input{
				Resource: tc.bg, Blue: childOf(flinkv1beta1.Blue, sp, true), Ingress: tc.seen,
				Now: now, ReconcileInterval: time.Minute, IngressPolicy: tc.policy,
			}
			if tc.green {
				in.Green = childOf(flinkv1beta1.Green, greenSpec, true)
			}
			res := Decide(in)
			got := want{res.Action.Kind, res.Action.Color, res.Status.Error, res.Status.JobStatus.State, nil}
			for _, e := range res.Events {
				if e.Type == decide.Warning {
					got.Warnings = append(got.Warnings, e.Reason)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
