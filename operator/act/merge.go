package act

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// mergeTemplates merges the role's pod template (jobManager.podTemplate or
// taskManager.podTemplate) into the common one (spec.podTemplate) as the Apache operator
// does (FlinkUtils.mergePodTemplates): both are turned into JSON and merged generically, so
// every field of the PodSpec, one Kubernetes adds later included, is merged the same way:
//   - objects are merged key by key, recursively; a value the role sets replaces the common
//     one where either is not an object (the role's scalars win);
//   - two arrays are merged element by element by index: the role's elements merged into the
//     common ones at the same position, the role's extra elements appended. An element that
//     is not an object (an argument, a command word) keeps the common template's value;
//   - with byName (kubernetes.operator.pod-template.merge-arrays-by-name) two arrays whose
//     elements all have a name are merged by name instead: the common elements in their
//     order, each merged with the role's of the same name, then the role's other elements.
//
// An absent field, null and "" are the same (see pruneEmpty). Of the merged metadata, labels
// and annotations are kept.
func mergeTemplates(base, role *flinkv1beta1.PodTemplate, byName bool) (corev1.PodTemplateSpec, error) {
	var out corev1.PodTemplateSpec
	if base == nil && role == nil {
		return out, nil
	}
	if role == nil {
		base, role = nil, base // one template: itself
	}
	tree, err := templateTree(role)
	if err != nil {
		return out, err
	}
	if base != nil {
		from := tree
		if tree, err = templateTree(base); err != nil {
			return out, err
		}
		mergeInto(tree, from, byName)
	}
	var merged flinkv1beta1.PodTemplate
	raw, err := json.Marshal(tree)
	if err == nil {
		err = json.Unmarshal(raw, &merged)
	}
	if err != nil {
		return out, fmt.Errorf("merge the pod templates: %w", err)
	}
	out.Labels, out.Annotations, out.Spec = merged.Metadata.Labels, merged.Metadata.Annotations, merged.Spec
	return out, nil
}

// templateTree is t as a JSON tree with its empty values left out.
func templateTree(t *flinkv1beta1.PodTemplate) (map[string]any, error) {
	raw, err := json.Marshal(struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     corev1.PodSpec    `json:"spec"`
	}{t.Metadata, t.Spec})
	if err != nil {
		return nil, fmt.Errorf("pod template: %w", err)
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("pod template: %w", err)
	}
	pruneEmpty(tree)
	return tree, nil
}

// pruneEmpty removes from m, recursively, the keys whose value is null or "", and the
// numbers of zeroIsUnset that are 0: Go writes some fields without omitempty (a container's
// name, a pod's containers, a probe's port), where the Apache operator's model writes
// nothing, so that a role's template that leaves them out would otherwise blank the common
// template's. An empty object or array merges as nothing and
// stays (an emptyDir: {} is a value). Elements of arrays stay where they are.
func pruneEmpty(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			pruneEmpty(x)
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					pruneEmpty(em)
				}
			}
		case string:
			if x == "" {
				delete(m, k)
			}
		case float64:
			if x == 0 && zeroIsUnset[k] {
				delete(m, k)
			}
		case nil:
			delete(m, k)
		}
	}
}

// zeroIsUnset are the numeric fields Go writes as 0 when they are not set (no omitempty) and
// for which 0 is not a valid value: a probe's or a port's number, a scheduling term's weight.
var zeroIsUnset = map[string]bool{"port": true, "containerPort": true, "weight": true}

// mergeInto merges from into to (see mergeTemplates).
func mergeInto(to, from map[string]any, byName bool) {
	for k, fv := range from {
		tv, ok := to[k]
		ta, toArray := tv.([]any)
		fa, fromArray := fv.([]any)
		tm, toObject := tv.(map[string]any)
		switch {
		case ok && toArray && fromArray:
			to[k] = mergeArray(ta, fa, byName)
		case ok && toObject:
			if fm, ok := fv.(map[string]any); ok {
				mergeInto(tm, fm, byName)
			}
		default:
			to[k] = fv
		}
	}
}

// mergeArray merges from into to, by name or by index (see mergeTemplates).
func mergeArray(to, from []any, byName bool) []any {
	if byName && namesDefined(to) && namesDefined(from) {
		order, byNameTo := groupByName(to)
		fromOrder, byNameFrom := groupByName(from)
		for _, n := range fromOrder {
			if t, ok := byNameTo[n]; ok {
				mergeInto(t, byNameFrom[n], byName)
				continue
			}
			order = append(order, n)
			byNameTo[n] = byNameFrom[n]
		}
		out := make([]any, 0, len(order))
		for _, n := range order {
			out = append(out, byNameTo[n])
		}
		return out
	}
	for i, fe := range from {
		if i >= len(to) {
			to = append(to, fe)
		}
		tm, ok1 := to[i].(map[string]any)
		fm, ok2 := fe.(map[string]any)
		if ok1 && ok2 {
			mergeInto(tm, fm, byName)
		}
	}
	return to
}

// namesDefined says whether every element of a is an object with a name.
func namesDefined(a []any) bool {
	for _, e := range a {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["name"]; !ok {
			return false
		}
	}
	return true
}

// groupByName is a's elements by name, and the names in order of first appearance (a later
// element of a name taking the place of an earlier one).
func groupByName(a []any) ([]string, map[string]map[string]any) {
	var order []string
	out := map[string]map[string]any{}
	for _, e := range a {
		m := e.(map[string]any) // namesDefined
		n := fmt.Sprint(m["name"])
		if _, ok := out[n]; !ok {
			order = append(order, n)
		}
		out[n] = m
	}
	return order, out
}

func upsertVolume(vs []corev1.Volume, v corev1.Volume) []corev1.Volume {
	for i := range vs {
		if vs[i].Name == v.Name {
			vs[i] = v
			return vs
		}
	}
	return append(vs, v)
}

func containerIndex(cs []corev1.Container, name string) int {
	for i := range cs {
		if cs[i].Name == name {
			return i
		}
	}
	return -1
}

// mainContainerIndex returns the index of flink-main-container, adding it first if missing.
func mainContainerIndex(spec *corev1.PodSpec) int {
	if i := containerIndex(spec.Containers, MainContainer); i >= 0 {
		return i
	}
	spec.Containers = append([]corev1.Container{{Name: MainContainer}}, spec.Containers...)
	return 0
}

func hasPort(ports []corev1.ContainerPort, port int32) bool {
	for _, p := range ports {
		if p.ContainerPort == port {
			return true
		}
	}
	return false
}

func mergeMaps(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// roleTemplates are the JobManager's and the TaskManager's pod templates: spec.podTemplate
// merged with each role's, by name when the resource's effective configuration conf sets
// config.KeyPodTemplateMergeByName (Apache's default: false), which the operator's options
// file may set for every resource or a namespace's, and a resource for itself.
func roleTemplates(spec flinkv1beta1.FlinkDeploymentSpec, conf map[string]string) (jm, tm corev1.PodTemplateSpec, err error) {
	byName := false
	if v, ok := conf[config.KeyPodTemplateMergeByName]; ok {
		if byName, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return jm, tm, fmt.Errorf("%s: %q is not true or false", config.KeyPodTemplateMergeByName, v)
		}
	}
	var jmRole, tmRole *flinkv1beta1.PodTemplate
	if spec.JobManager != nil {
		jmRole = spec.JobManager.PodTemplate
	}
	if spec.TaskManager != nil {
		tmRole = spec.TaskManager.PodTemplate
	}
	if jm, err = mergeTemplates(spec.PodTemplate, jmRole, byName); err != nil {
		return jm, tm, fmt.Errorf("jobManager.podTemplate: %w", err)
	}
	if tm, err = mergeTemplates(spec.PodTemplate, tmRole, byName); err != nil {
		return jm, tm, fmt.Errorf("taskManager.podTemplate: %w", err)
	}
	return jm, tm, nil
}
