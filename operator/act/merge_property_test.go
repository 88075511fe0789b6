package act

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// drawTemplate draws a pod template from every family of PodSpec field: scalars, maps,
// objects, arrays of named objects (containers, volumes, scheduling gates), arrays of unnamed
// ones (tolerations) and arrays of scalars (a container's args); containers are unique by
// name, as the API server requires.
func drawTemplate(t *rapid.T, label string) *flinkv1beta1.PodTemplate {
	if rapid.IntRange(0, 5).Draw(t, label+"/none") == 0 {
		return nil
	}
	word := rapid.SampledFrom([]string{"a", "b", "c"})
	maybe := func(what string) string {
		if rapid.Bool().Draw(t, label+"/"+what+"?") {
			return word.Draw(t, label+"/"+what)
		}
		return ""
	}
	p := &flinkv1beta1.PodTemplate{}
	p.Metadata.Labels = rapid.MapOfN(word, word, 0, 2).Draw(t, label+"/labels")
	s := &p.Spec
	s.SchedulerName, s.PriorityClassName, s.Hostname = maybe("scheduler"), maybe("priority"), maybe("hostname")
	s.DNSPolicy = corev1.DNSPolicy(maybe("dnsPolicy"))
	s.NodeSelector = rapid.MapOfN(word, word, 0, 2).Draw(t, label+"/nodeSelector")
	if rapid.Bool().Draw(t, label+"/hostNetwork") {
		s.HostNetwork = true
	}
	if z := maybe("zone"); z != "" {
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{z}}}}},
		}}}
	}
	for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{MainContainer, "side", "log"}), 0, 3, rapid.ID[string]).Draw(t, label+"/containers") {
		c := corev1.Container{Name: n, Image: maybe("image"), WorkingDir: maybe("workingDir")}
		c.Args = rapid.SliceOfN(word, 0, 3).Draw(t, label+"/args")
		for _, e := range rapid.SliceOfNDistinct(word, 0, 2, rapid.ID[string]).Draw(t, label+"/env") {
			c.Env = append(c.Env, corev1.EnvVar{Name: e, Value: word.Draw(t, label+"/envValue")})
		}
		s.Containers = append(s.Containers, c)
	}
	for _, n := range rapid.SliceOfNDistinct(word, 0, 2, rapid.ID[string]).Draw(t, label+"/volumes") {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: n, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium(maybe("medium"))}}})
	}
	for _, n := range rapid.SliceOfNDistinct(word, 0, 2, rapid.ID[string]).Draw(t, label+"/gates") {
		s.SchedulingGates = append(s.SchedulingGates, corev1.PodSchedulingGate{Name: n})
	}
	for _, k := range rapid.SliceOfN(word, 0, 2).Draw(t, label+"/tolerations") {
		s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: k, Operator: corev1.TolerationOpExists})
	}
	return p
}

// TestMergeTemplatesProperties holds the merge to what follows from Apache's rules whatever
// the templates: a template merged with itself, or with nothing, is itself; by name, the
// names of the merged arrays are the common ones then the role's new ones, in order; and
// every scalar and map entry is the role's where it sets one and the common template's
// otherwise (nothing of either is lost).
func TestMergeTemplatesProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		common, role := drawTemplate(t, "common"), drawTemplate(t, "role")
		byName := rapid.Bool().Draw(t, "byName")
		merge := func(a, b *flinkv1beta1.PodTemplate) corev1.PodTemplateSpec {
			m, err := mergeTemplates(a, b, byName)
			if err != nil {
				t.Fatalf("merge: %v", err)
			}
			return m
		}
		for _, p := range []*flinkv1beta1.PodTemplate{common, role} {
			if got := merge(p, p); !equality.Semantic.DeepEqual(got, asSpec(p)) {
				t.Fatalf("a template merged with itself changed:\n%s", cmp.Diff(asSpec(p), got))
			}
			if got := merge(p, nil); !equality.Semantic.DeepEqual(got, asSpec(p)) {
				t.Fatalf("a template merged with nothing changed:\n%s", cmp.Diff(asSpec(p), got))
			}
		}
		got := merge(common, role)
		c, r := asSpec(common), asSpec(role)
		if byName {
			checkNamesUnion(t, c, r, got)
		}
		checkRoleWins(t, c, r, got)
	})
}

// asSpec is p as the merge returns it (nil: the empty template).
func asSpec(p *flinkv1beta1.PodTemplate) corev1.PodTemplateSpec {
	var out corev1.PodTemplateSpec
	if p != nil {
		out.Labels, out.Spec = p.Metadata.Labels, p.Spec
	}
	return out
}

// checkNamesUnion: merged by name, the containers are the common ones, then the role's new
// ones, in order.
func checkNamesUnion(t *rapid.T, c, r, got corev1.PodTemplateSpec) {
	t.Helper()
	names := func(cs []corev1.Container) []string {
		var out []string
		for _, x := range cs {
			out = append(out, x.Name)
		}
		return out
	}
	want := names(c.Spec.Containers)
	for _, n := range names(r.Spec.Containers) {
		if !slices.Contains(want, n) {
			want = append(want, n)
		}
	}
	if diff := cmp.Diff(want, names(got.Spec.Containers)); diff != "" {
		t.Fatalf("containers by name (-want +got):\n%s", diff)
	}
}

// checkRoleWins: each scalar and map entry of the merge is the role's where it sets one, the
// common template's otherwise.
func checkRoleWins(t *rapid.T, c, r, got corev1.PodTemplateSpec) {
	t.Helper()
	scalars := map[string][3]string{
		"schedulerName":     {c.Spec.SchedulerName, r.Spec.SchedulerName, got.Spec.SchedulerName},
		"priorityClassName": {c.Spec.PriorityClassName, r.Spec.PriorityClassName, got.Spec.PriorityClassName},
		"hostname":          {c.Spec.Hostname, r.Spec.Hostname, got.Spec.Hostname},
		"dnsPolicy":         {string(c.Spec.DNSPolicy), string(r.Spec.DNSPolicy), string(got.Spec.DNSPolicy)},
		// false is no value (omitempty): the role cannot unset the common's true.
		"hostNetwork": {boolValue(c.Spec.HostNetwork), boolValue(r.Spec.HostNetwork), boolValue(got.Spec.HostNetwork)},
	}
	for field, v := range scalars {
		want := v[1]
		if want == "" {
			want = v[0]
		}
		if v[2] != want {
			t.Fatalf("%s: common %q, role %q, merged %q; want %q", field, v[0], v[1], v[2], want)
		}
	}
	for what, m := range map[string][3]map[string]string{
		"labels":       {c.Labels, r.Labels, got.Labels},
		"nodeSelector": {c.Spec.NodeSelector, r.Spec.NodeSelector, got.Spec.NodeSelector},
	} {
		want := map[string]string{}
		maps.Copy(want, m[0])
		maps.Copy(want, m[1])
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, m[2]); diff != "" {
			t.Fatalf("%s: (-want +got):\n%s", what, diff)
		}
	}
}

// boolValue is b as the merge sees it: "true", or no value.
func boolValue(b bool) string {
	if b {
		return "true"
	}
	return ""
}
