package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestIngressPolicy: a spec.ingress the operator's Ingress policy refuses is neither applied
// nor updated; status.error and one Warning say why, whatever the reconcile does, and the
// rest of the deployment goes on.
func TestIngressPolicy(t *testing.T) {
	const others = "x.other.apps.example.com"
	withIngress := func(tmpl string, annotations map[string]string) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: tmpl, Annotations: annotations}
		}
	}
	tenant := func(in *Input) {
		in.Options.Ingress.AllowedHosts = "*.{{namespace}}.apps.example.com"
		in.Options.Ingress.AllowedAnnotations = "cert-manager.io/*"
	}
	hostRefused := `spec.ingress: host "x.other.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`
	applied := func(tmpl string) func(*Observation) {
		return func(o *Observation) {
			o.Ingress = &IngressState{Hash: IngressHash(&flinkv1beta1.IngressSpec{Template: tmpl})}
		}
	}
	cases := map[string]struct {
		// d is the resource, o what was observed, opts the options (nil: the defaults).
		d    *flinkv1beta1.FlinkDeployment
		o    Observation
		opts func(*Input)
		// wantAction is the reconcile's action; wantError its status.error (its Warning's
		// message, reason IngressRefused, when set).
		wantAction ActionKind
		wantError  string
	}{
		"defaults: another's host is applied (Apache's behaviour)": {
			d: deployed(sp, withIngress(others, nil)), o: cluster(1, "RUNNING"), wantAction: ActApplyIngress,
		},
		"defaults: a snippet annotation is applied (Apache's behaviour)": {
			d: deployed(sp, withIngress("{{name}}.example.com", map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"})),
			o: cluster(1, "RUNNING"), wantAction: ActApplyIngress,
		},
		"the namespace's own host is applied": {
			d: deployed(sp, withIngress("{{name}}.{{namespace}}.apps.example.com", nil)), o: cluster(1, "RUNNING"), opts: tenant,
			wantAction: ActApplyIngress,
		},
		"another tenant's host: not created": {
			d: deployed(sp, withIngress(others, nil)), o: cluster(1, "RUNNING"), opts: tenant,
			wantAction: ActNone, wantError: hostRefused,
		},
		"another tenant's host: the Ingress there is not updated": {
			d: deployed(sp, withIngress(others, nil)), o: cluster(1, "RUNNING", applied("{{name}}.{{namespace}}.apps.example.com")), opts: tenant,
			wantAction: ActNone, wantError: hostRefused,
		},
		"a policy tightened later: the Ingress there stays": {
			d: deployed(sp, withIngress(others, nil)), o: cluster(1, "RUNNING", applied(others)), opts: tenant,
			wantAction: ActNone, wantError: hostRefused,
		},
		"a snippet annotation: not created": {
			d: deployed(sp, withIngress("{{name}}.{{namespace}}.apps.example.com", map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "x"})),
			o: cluster(1, "RUNNING"), opts: tenant, wantAction: ActNone,
			wantError: `spec.ingress: annotation "nginx.ingress.kubernetes.io/configuration-snippet" is not allowed by kubernetes.operator.ingress.allowed-annotations (allowed: cert-manager.io/*)`,
		},
		"a wildcard host, wildcards refused: not created": {
			d: deployed(sp, withIngress("*.{{namespace}}.apps.example.com", nil)), o: cluster(1, "RUNNING"),
			opts:       func(in *Input) { in.Options.Ingress.NoWildcardHosts = true },
			wantAction: ActNone, wantError: `spec.ingress: host "*.ns.apps.example.com" is a wildcard, which kubernetes.operator.ingress.allow-wildcard-hosts=false does not allow`,
		},
		"the upgrade goes on, and the refusal is reported meanwhile": {
			d: upgrading(sp, withIngress(others, nil)), o: cluster(1, "RUNNING"), opts: tenant,
			wantAction: ActStopWithSavepoint, wantError: hostRefused,
		},
		"removing spec.ingress deletes the Ingress": {
			d: deployed(sp), o: cluster(1, "RUNNING", applied(others)), opts: tenant, wantAction: ActDeleteIngress,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(inputWith(tc.d, tc.o, tc.opts))
			if got.Action.Kind != tc.wantAction {
				t.Errorf("action %s, want %s", got.Action.Kind, tc.wantAction)
			}
			if diff := cmp.Diff(tc.wantError, flinkv1beta1.ErrorMessage(got.Status.Error)); diff != "" {
				t.Errorf("status.error (-want +got):\n%s", diff)
			}
			if tc.wantError == "" {
				return
			}
			if diff := cmp.Diff([]Event{{Type: Warning, Reason: "IngressRefused", Message: tc.wantError}}, warnings(got.Events)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if c := meta.FindStatusCondition(got.Status.Conditions, "Ready"); c == nil || c.Reason != "IngressRefused" {
				t.Errorf("Ready %+v, want its reason IngressRefused", c)
			}
			if got.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
				t.Errorf("job %s, want it RUNNING still", got.Status.JobStatus.State)
			}
			// The next reconcile reports it again, without a second Warning.
			tc.d.Status = got.Status
			again := Decide(inputWith(tc.d, tc.o, tc.opts))
			if flinkv1beta1.ErrorMessage(again.Status.Error) != tc.wantError || len(warnings(again.Events)) != 0 {
				t.Errorf("next reconcile: status.error %q, warnings %+v", flinkv1beta1.ErrorMessage(again.Status.Error), warnings(again.Events))
			}
		})
	}
}

// warnings are the Warning Events of events.
func warnings(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == Warning {
			out = append(out, e)
		}
	}
	return out
}

// TestDeployCarriesOnlyAnAllowedIngress: a deploy renders spec.ingress with the cluster, so a
// refused one is left out of it (the cluster is deployed all the same) and reported.
func TestDeployCarriesOnlyAnAllowedIngress(t *testing.T) {
	tenant := func(in *Input) { in.Options.Ingress.AllowedHosts = "*.{{namespace}}.apps.example.com" }
	cases := map[string]struct {
		template    string
		wantIngress bool
		wantError   string
	}{
		"the namespace's own host is deployed with the cluster": {template: "{{name}}.{{namespace}}.apps.example.com", wantIngress: true},
		"another tenant's host is left out": {
			template:  "x.other.apps.example.com",
			wantError: `spec.ingress: host "x.other.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := fresh(func(d *flinkv1beta1.FlinkDeployment) {
				d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: tc.template}
			})
			d.Status = Decide(inputWith(d, Observation{}, tenant)).Status // the first deployment is recorded
			got := Decide(inputWith(d, Observation{}, tenant))
			if got.Action.Kind != ActDeploy {
				t.Fatalf("action %s, want %s", got.Action.Kind, ActDeploy)
			}
			if carried := got.Action.Deploy.Spec.Ingress != nil; carried != tc.wantIngress {
				t.Errorf("the deploy carries an Ingress: %v, want %v", carried, tc.wantIngress)
			}
			if d.Spec.Ingress == nil {
				t.Error("the resource's spec.ingress was changed")
			}
			if diff := cmp.Diff(tc.wantError, flinkv1beta1.ErrorMessage(got.Status.Error)); diff != "" {
				t.Errorf("status.error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRESTServicePolicyRefusesTheSpec: a REST Service type the operator's policy does not
// allow makes the spec invalid (nothing of it deployed, the last valid spec keeps running);
// an allowed one deploys.
func TestRESTServicePolicyRefusesTheSpec(t *testing.T) {
	for typ, refused := range map[string]bool{"LoadBalancer": true, "Headless_ClusterIP": false} {
		d := deployed(sp, func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.FlinkConfiguration.Set("kubernetes.rest-service.exposed.type", typ)
		})
		d.Generation = 2
		in := input(d, cluster(1, "RUNNING"))
		in.Options.Ingress.RESTServiceTypes = "ClusterIP,Headless_ClusterIP"
		got := Decide(in)
		isRefused := strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), "kubernetes.operator.rest-service.allowed-exposed-types")
		if isRefused != refused || (refused && got.Action.Kind != ActNone) {
			t.Errorf("%s: status.error %q, action %s; want refused %t (and no action)", typ, flinkv1beta1.ErrorMessage(got.Status.Error), got.Action.Kind, refused)
		}
	}
}

// TestUnmanagedIngress: with kubernetes.operator.ingress.manage false no Ingress is created,
// carried by a deploy, updated or deleted, and a new generation with spec.ingress is warned
// about once.
func TestUnmanagedIngress(t *testing.T) {
	unmanaged := func(in *Input) { in.Options.Ingress.Unmanaged = true }
	withIngress := func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: "{{name}}.example.com"}
	}
	stale := func(o *Observation) { o.Ingress = &IngressState{Hash: "old"} }
	warned := func(res Result) bool {
		for _, e := range res.Events {
			if e.Reason == "IngressManagement" && e.Type == Warning {
				return true
			}
		}
		return false
	}
	if got := Decide(inputWith(deployed(sp, withIngress), cluster(1, "RUNNING"), unmanaged)); got.Action.Kind != ActNone || warned(got) {
		t.Errorf("spec.ingress, none there: action %s warned %v; want none, no Warning for an observed generation", got.Action.Kind, warned(got))
	}
	if got := Decide(inputWith(deployed(sp, withIngress), cluster(1, "RUNNING", stale), unmanaged)); got.Action.Kind != ActNone {
		t.Errorf("an outdated Ingress there: action %s, want none", got.Action.Kind)
	}
	if got := Decide(inputWith(deployed(sp), cluster(1, "RUNNING", stale), unmanaged)); got.Action.Kind != ActNone {
		t.Errorf("spec.ingress removed, an Ingress there: action %s, want none", got.Action.Kind)
	}
	d := fresh(withIngress)
	d.Status = Decide(inputWith(d, Observation{}, unmanaged)).Status
	got := Decide(inputWith(d, Observation{}, unmanaged))
	if got.Action.Kind != ActDeploy || got.Action.Deploy.Spec.Ingress != nil {
		t.Errorf("first deploy: action %s, want a deploy without the Ingress", got.Action.Kind)
	}
	first := Decide(inputWith(fresh(withIngress), Observation{}, unmanaged))
	if !warned(first) {
		t.Errorf("a new generation with spec.ingress: no IngressManagement Warning in %v", first.Events)
	}
}
