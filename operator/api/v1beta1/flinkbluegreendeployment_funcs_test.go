package v1beta1

import (
	"strings"
	"testing"
)

// TestBlueGreenValidate: the rules a blue/green deployment's spec must keep, each shown
// refusing what it is for.
func TestBlueGreenValidate(t *testing.T) {
	valid := func() *FlinkBlueGreenDeployment {
		b := &FlinkBlueGreenDeployment{}
		b.Name, b.Namespace = "orders", "team-a"
		p := int32(1)
		b.Spec.Template.Spec = &FlinkDeploymentSpec{
			Image: "flink:1.20", FlinkVersion: "v1_20",
			Job: &JobSpec{JarURI: "local:///opt/flink/job.jar", Parallelism: &p},
		}
		return b
	}
	cases := map[string]struct {
		edit func(b *FlinkBlueGreenDeployment)
		want string // "": valid
	}{
		"valid":             {func(*FlinkBlueGreenDeployment) {}, ""},
		"a name too long":   {func(b *FlinkBlueGreenDeployment) { b.Name = strings.Repeat("a", 40) }, "metadata.name"},
		"an unknown key":    {func(b *FlinkBlueGreenDeployment) { b.Spec.Configuration = map[string]string{"x": "1"} }, "spec.configuration[x]"},
		"no template":       {func(b *FlinkBlueGreenDeployment) { b.Spec.Template.Spec = nil }, "spec.template.spec"},
		"a session cluster": {func(b *FlinkBlueGreenDeployment) { b.Spec.Template.Spec.Job = nil }, "spec.template.spec.job"},
		"a child rule":      {func(b *FlinkBlueGreenDeployment) { b.Spec.Template.Spec.Image = "" }, "spec.template.spec.image"},
		"an ingress host": {func(b *FlinkBlueGreenDeployment) {
			b.Spec.Ingress = &IngressSpec{Template: "a_b.{{namespace}}.example.com"}
		}, "spec.ingress.template"},
		"an ingress path only": {func(b *FlinkBlueGreenDeployment) { b.Spec.Ingress = &IngressSpec{Template: "/{{namespace}}/{{name}}"} }, ""},
		"a wildcard host":      {func(b *FlinkBlueGreenDeployment) { b.Spec.Ingress = &IngressSpec{Template: "*.example.com/{{name}}"} }, ""},
		"a spec over 256 KiB": {func(b *FlinkBlueGreenDeployment) {
			b.Spec.Template.Spec.Job.Args = []string{strings.Repeat("x", MaxSpecBytes)}
		}, "spec"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := valid()
			tc.edit(b)
			errs := b.Validate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs.ToAggregate())
			case tc.want != "" && (len(errs) == 0 || !strings.HasPrefix(errs[0].Field, tc.want)):
				t.Errorf("want an error at %s, got %v", tc.want, errs.ToAggregate())
			}
		})
	}
}
