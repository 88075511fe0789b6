package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/config/crd"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The schema-driven part of the hostile-input generator: every scalar field of the
// FlinkDeployment spec, read from the CRD's OpenAPI schema (config/crd/bases), gets values
// the schema accepts — each enum member, the minimum and far above it, empty, long and
// spaced strings — so a field added to the API is drawn without a new table entry. What the
// schema cannot say (Validate's rules, the attacks) is in hostile_gen.go's tables.

// schemaLeaf is a scalar field of the spec, as the schema describes it.
type schemaLeaf struct {
	path []string
	typ  string
	enum []string
	min  *float64
}

// skippedFields are subtrees with their own generators or no scalar fields of interest: pod
// templates and Kubernetes resource requirements (Kubernetes' own schemas), and the
// free-form configuration.
var skippedFields = []string{"podTemplate", "resources", "flinkConfiguration", "logConfiguration"}

var (
	leavesOnce sync.Once
	leaves     []schemaLeaf
	errLeaves  error
)

// specLeaves reads the scalar fields of the FlinkDeployment spec from the CRD, once.
func specLeaves() ([]schemaLeaf, error) {
	leavesOnce.Do(func() { leaves, errLeaves = loadSpecLeaves() })
	return leaves, errLeaves
}

// loadSpecLeaves reads the scalar fields from the CRD embedded in the binary (config/crd), so
// a hostile run replays from any working directory.
func loadSpecLeaves() ([]schemaLeaf, error) {
	data, err := crd.Bases.ReadFile("bases/flink.apache.org_flinkdeployments.yaml")
	if err != nil {
		return nil, err
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &def); err != nil {
		return nil, err
	}
	spec := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	all := walkSchema(spec, nil)
	if len(all) == 0 {
		return nil, fmt.Errorf("no scalar fields in the FlinkDeployment schema")
	}
	return all, nil
}

func walkSchema(s apiextensionsv1.JSONSchemaProps, path []string) []schemaLeaf {
	if len(path) > 0 {
		for _, skip := range skippedFields {
			if path[len(path)-1] == skip {
				return nil
			}
		}
	}
	switch s.Type {
	case "object":
		var out []schemaLeaf
		for name, p := range s.Properties {
			out = append(out, walkSchema(p, append(append([]string(nil), path...), name))...)
		}
		return out
	case "string", "integer", "number", "boolean":
		leaf := schemaLeaf{path: path, typ: s.Type, min: s.Minimum}
		for _, e := range s.Enum {
			var v string
			if json.Unmarshal(e.Raw, &v) == nil {
				leaf.enum = append(leaf.enum, v)
			}
		}
		return []schemaLeaf{leaf}
	}
	return nil // arrays and maps: the tables draw the ones that matter
}

// schemaValue draws a value of a leaf that the schema accepts.
func schemaValue(t *rapid.T, l schemaLeaf) any {
	switch {
	case len(l.enum) > 0:
		return rapid.SampledFrom(l.enum).Draw(t, "enum")
	case l.typ == "boolean":
		return rapid.Bool().Draw(t, "bool")
	case l.typ == "integer" && l.min != nil:
		return int64(*l.min) + rapid.SampledFrom([]int64{0, 1, 1 << 20}).Draw(t, "aboveMin")
	case l.typ == "integer":
		return rapid.SampledFrom([]int64{0, 1, -1, 1 << 40}).Draw(t, "int")
	case l.typ == "number":
		return rapid.SampledFrom([]float64{0.25, 1, 0, -1, 1e9}).Draw(t, "number")
	}
	return rapid.SampledFrom([]string{"", "x", "with space", strings.Repeat("s", 300)}).Draw(t, "string")
}

// schemaMutation sets one scalar field, drawn from the CRD's schema, to a value the schema
// accepts.
func schemaMutation(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
	all, err := specLeaves()
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	l := rapid.SampledFrom(sortedLeaves(all)).Draw(t, "schemaField")
	v := schemaValue(t, l)
	m := map[string]any{}
	data, _ := json.Marshal(d.Spec)
	_ = json.Unmarshal(data, &m)
	at := m
	for _, k := range l.path[:len(l.path)-1] {
		next, ok := at[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			at[k] = next
		}
		at = next
	}
	at[l.path[len(l.path)-1]] = v
	data, _ = json.Marshal(m)
	var spec flinkv1beta1.FlinkDeploymentSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatalf("schema value %v for %s does not decode: %v", v, strings.Join(l.path, "."), err)
	}
	d.Spec = spec
}

// sortedLeaves orders leaves by path, so draws replay.
func sortedLeaves(ls []schemaLeaf) []schemaLeaf {
	out := slices.Clone(ls)
	slices.SortFunc(out, func(a, b schemaLeaf) int {
		return strings.Compare(strings.Join(a.path, "."), strings.Join(b.path, "."))
	})
	return out
}
