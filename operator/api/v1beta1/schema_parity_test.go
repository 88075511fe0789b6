package v1beta1_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/harness/fixtures"
)

// schemaNode is one node of a CRD schema, flattened to its path.
type schemaNode struct {
	types    string   // the node's type ("" when untyped)
	enum     []string // enum values, if any
	preserve bool     // x-kubernetes-preserve-unknown-fields: everything below is kept
}

// flattenSchema lists every node below s by path: ".a.b" for properties, "[]" for list items,
// "{}" for map values.
func flattenSchema(s *apiextensionsv1.JSONSchemaProps, path string, out map[string]schemaNode) {
	n := schemaNode{types: s.Type, preserve: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields}
	for _, e := range s.Enum {
		n.enum = append(n.enum, strings.Trim(string(e.Raw), `"`))
	}
	out[path] = n
	for name, child := range s.Properties {
		flattenSchema(&child, path+"."+name, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		flattenSchema(s.Items.Schema, path+"[]", out)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		flattenSchema(s.AdditionalProperties.Schema, path+"{}", out)
	}
}

func loadCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return crd
}

// covered reports whether ours accepts and keeps path: it has the path, or an ancestor of it
// preserves unknown fields.
func covered(ours map[string]schemaNode, path string) bool {
	if _, ok := ours[path]; ok {
		return true
	}
	for p := path; p != ""; {
		i := strings.LastIndexAny(p, ".[{")
		if i < 0 {
			break
		}
		p = p[:i]
		if n, ok := ours[p]; ok && n.preserve {
			return true
		}
	}
	return false
}

// TestSchemaParityWithApacheCRDs compares our generated CRDs with the Apache operator's: every
// spec and status field path they define must exist in ours (or lie under a node of ours that
// keeps unknown fields), every enum value they accept we accept, the types agree, and the
// names, printer columns and subresources match.
func TestSchemaParityWithApacheCRDs(t *testing.T) {
	ref := filepath.Join(fixtures.SharedDir(t), "reference", "apache-operator-crds")
	root := fixtures.MustModuleRoot(t)
	cases := map[string]struct {
		apache, ours string
		nodes        int // at least this many nodes in the Apache schema: the right file was read
	}{
		"FlinkDeployment":    {"flinkdeployments.flink.apache.org-v1.yml", "flink.apache.org_flinkdeployments.yaml", 50},
		"FlinkSessionJob":    {"flinksessionjobs.flink.apache.org-v1.yml", "flink.apache.org_flinksessionjobs.yaml", 50},
		"FlinkStateSnapshot": {"flinkstatesnapshots.flink.apache.org-v1.yml", "flink.apache.org_flinkstatesnapshots.yaml", 20},
		"FlinkBlueGreenDeployment": {
			"flinkbluegreendeployments.flink.apache.org-v1.yml", "flink.apache.org_flinkbluegreendeployments.yaml", 80,
		},
	}
	for kind, tc := range cases {
		t.Run(kind, func(t *testing.T) {
			theirs := loadCRD(t, filepath.Join(ref, tc.apache))
			ours := loadCRD(t, filepath.Join(root, "config", "crd", "bases", tc.ours))
			compareNames(t, theirs, ours)
			tv, ov := theirs.Spec.Versions[0], ours.Spec.Versions[0]
			if tv.Name != ov.Name {
				t.Errorf("version %q, Apache %q", ov.Name, tv.Name)
			}
			compareSubresources(t, tv, ov)
			compareSchemas(t, tv.Schema.OpenAPIV3Schema, ov.Schema.OpenAPIV3Schema, tc.nodes)
		})
	}
}

func compareNames(t *testing.T, theirs, ours *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	if theirs.Name != ours.Name || theirs.Spec.Group != ours.Spec.Group || theirs.Spec.Scope != ours.Spec.Scope {
		t.Errorf("CRD %s/%s/%s, Apache %s/%s/%s", ours.Name, ours.Spec.Group, ours.Spec.Scope,
			theirs.Name, theirs.Spec.Group, theirs.Spec.Scope)
	}
	tn, on := theirs.Spec.Names, ours.Spec.Names
	if tn.Kind != on.Kind || tn.Plural != on.Plural || tn.Singular != on.Singular || !slices.Equal(tn.ShortNames, on.ShortNames) {
		t.Errorf("names %+v, Apache %+v", on, tn)
	}
}

func compareSubresources(t *testing.T, theirs, ours apiextensionsv1.CustomResourceDefinitionVersion) {
	t.Helper()
	for _, col := range theirs.AdditionalPrinterColumns {
		if !slices.ContainsFunc(ours.AdditionalPrinterColumns, func(c apiextensionsv1.CustomResourceColumnDefinition) bool {
			return c.Name == col.Name && c.JSONPath == col.JSONPath && c.Type == col.Type
		}) {
			t.Errorf("printer column %q (%s) missing", col.Name, col.JSONPath)
		}
	}
	ts, os := theirs.Subresources, ours.Subresources
	if (ts.Status != nil) != (os.Status != nil) {
		t.Errorf("status subresource: ours %v, Apache %v", os.Status != nil, ts.Status != nil)
	}
	if fmt.Sprint(ts.Scale) != fmt.Sprint(os.Scale) {
		t.Errorf("scale subresource: ours %v, Apache %v", os.Scale, ts.Scale)
	}
}

func compareSchemas(t *testing.T, theirs, ours *apiextensionsv1.JSONSchemaProps, nodes int) {
	t.Helper()
	tp, op := map[string]schemaNode{}, map[string]schemaNode{}
	flattenSchema(theirs, "", tp)
	flattenSchema(ours, "", op)
	if len(tp) < nodes {
		t.Fatalf("the Apache schema has only %d nodes; is the reference file right?", len(tp))
	}
	var missing, enums, types []string
	for _, path := range slices.Sorted(maps.Keys(tp)) {
		if !strings.HasPrefix(path, ".spec") && !strings.HasPrefix(path, ".status") {
			continue
		}
		if !covered(op, path) {
			missing = append(missing, path)
			continue
		}
		tn, on := tp[path], op[path]
		if on.enum != nil || tn.enum != nil {
			for _, v := range tn.enum {
				if on.enum != nil && !slices.Contains(on.enum, v) {
					enums = append(enums, fmt.Sprintf("%s: value %q", path, v))
				}
			}
		}
		if tn.types != "" && on.types != "" && tn.types != on.types {
			types = append(types, fmt.Sprintf("%s: ours %s, Apache %s", path, on.types, tn.types))
		}
	}
	for _, list := range []struct {
		what  string
		items []string
	}{{"field paths missing", missing}, {"enum values not accepted", enums}, {"types differ", types}} {
		if len(list.items) > 0 {
			t.Errorf("%d %s:\n  %s", len(list.items), list.what, strings.Join(list.items, "\n  "))
		}
	}
}
