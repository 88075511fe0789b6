package act

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// template is a pod template written as YAML (nil for "").
func template(t *testing.T, y string) *flinkv1beta1.PodTemplate {
	t.Helper()
	if y == "" {
		return nil
	}
	var p flinkv1beta1.PodTemplate
	if err := yaml.UnmarshalStrict([]byte(y), &p); err != nil {
		t.Fatalf("template %q: %v", y, err)
	}
	return &p
}

// TestMergeTemplatesAsApache holds the merge of spec.podTemplate (common) with a role's to
// the Apache operator's (FlinkUtils.mergePodTemplates): the cases of its own tests
// (FlinkUtilsTest.testMergePods and testMergePodUsingArrayName) and of its documentation
// (docs/custom-resource/pod-template.md, "Array Merging Behaviour"), and the fields a merge by
// field list dropped or doubled.
func TestMergeTemplatesAsApache(t *testing.T) {
	tests := map[string]struct {
		common, role string
		byName       bool
		want         string
	}{
		"Apache testMergePods: the role's containers over none": {
			common: "spec: {hostname: pod1}",
			role:   "spec: {hostname: pod2, containers: [{name: container1}, {name: container2}]}",
			want:   "spec: {hostname: pod2, containers: [{name: container1}, {name: container2}]}",
		},
		"Apache testMergePodUsingArrayName: containers and volumes by name": {
			common: "spec: {containers: [{name: container1}, {name: container2}], volumes: [{name: v1, ephemeral: {}}]}",
			role:   "spec: {containers: [{name: container1}, {name: container3}], volumes: [{name: v1, emptyDir: {}}, {name: v2}, {name: v3}]}",
			byName: true,
			// v1 keeps ephemeral and gets emptyDir (which the API server will refuse), as in Apache.
			want: "spec: {containers: [{name: container1}, {name: container2}, {name: container3}], volumes: [{name: v1, ephemeral: {}, emptyDir: {}}, {name: v2}, {name: v3}]}",
		},
		"a probe the role changes keeps the common port (Go writes an unset port as 0)": {
			common: "spec: {containers: [{name: m, readinessProbe: {httpGet: {path: /, port: 8081}}}]}",
			role:   "spec: {containers: [{name: m, readinessProbe: {httpGet: {path: /ready}}}]}",
			want:   "spec: {containers: [{name: m, readinessProbe: {httpGet: {path: /ready, port: 8081}}}]}",
		},
		"a container the role leaves unnamed keeps the common one's name": {
			common: "spec: {containers: [{name: flink-main-container, image: a}]}",
			role:   "spec: {containers: [{workingDir: /w}]}",
			want:   "spec: {containers: [{name: flink-main-container, image: a, workingDir: /w}]}",
		},
		"Apache's documentation: arrays merged by position": {
			common: "spec: {containers: [{name: a, image: v1}, {name: b, image: v1}]}",
			role:   "spec: {containers: [{name: a, workingDir: v2}, {name: c, workingDir: v2}]}",
			want:   "spec: {containers: [{name: a, image: v1, workingDir: v2}, {name: c, image: v1, workingDir: v2}]}",
		},
		"Apache's documentation: arrays merged by name": {
			common: "spec: {containers: [{name: a, image: v1}, {name: b, image: v1}]}",
			role:   "spec: {containers: [{name: a, workingDir: v2}, {name: c, workingDir: v2}]}",
			byName: true,
			want:   "spec: {containers: [{name: a, image: v1, workingDir: v2}, {name: b, image: v1}, {name: c, workingDir: v2}]}",
		},
		"scalar fields the role does not set are kept (a field list dropped them)": {
			common: `spec: {schedulerName: volcano, dnsPolicy: None, hostNetwork: true, topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}`,
			role:   "spec: {priorityClassName: high}",
			want:   `spec: {schedulerName: volcano, dnsPolicy: None, hostNetwork: true, priorityClassName: high, topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}`,
		},
		"maps are merged, the role's values winning (a field list replaced nodeSelector)": {
			common: "metadata: {labels: {team: a, tier: x}}\nspec: {nodeSelector: {disk: ssd, zone: a}}",
			role:   "metadata: {labels: {tier: y}, annotations: {n: '1'}}\nspec: {nodeSelector: {zone: b}}",
			want:   "metadata: {labels: {team: a, tier: y}, annotations: {n: '1'}}\nspec: {nodeSelector: {disk: ssd, zone: b}}",
		},
		"env of the same container merged by position, not doubled": {
			common: "spec: {containers: [{name: flink-main-container, env: [{name: A, value: '1'}]}]}",
			role:   "spec: {containers: [{name: flink-main-container, env: [{name: A, value: '2'}]}]}",
			want:   "spec: {containers: [{name: flink-main-container, env: [{name: A, value: '2'}]}]}",
		},
		"arrays of scalars keep the common elements and get the role's extra ones": {
			common: "spec: {containers: [{name: m, args: [a, b]}]}",
			role:   "spec: {containers: [{name: m, args: [x, y, z]}]}",
			want:   "spec: {containers: [{name: m, args: [a, b, z]}]}",
		},
		"by name only where every element has a name: tolerations by position": {
			common: "spec: {tolerations: [{key: a, operator: Exists}], containers: [{name: m}]}",
			role:   "spec: {tolerations: [{key: b, operator: Exists}], containers: [{name: s}]}",
			byName: true,
			want:   "spec: {tolerations: [{key: b, operator: Exists}], containers: [{name: m}, {name: s}]}",
		},
		"a field the merge has no rule for is merged as any other (schedulingGates, os)": {
			common: "spec: {os: {name: linux}, schedulingGates: [{name: quota}]}",
			role:   "spec: {schedulingGates: [{name: review}]}",
			byName: true,
			want:   "spec: {os: {name: linux}, schedulingGates: [{name: quota}, {name: review}]}",
		},
		"only the common template": {
			common: "spec: {serviceAccountName: flink, containers: [{name: m}]}",
			want:   "spec: {serviceAccountName: flink, containers: [{name: m}]}",
		},
		"only the role's template": {
			role: "spec: {serviceAccountName: flink}",
			want: "spec: {serviceAccountName: flink}",
		},
		"neither": {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := mergeTemplates(template(t, tc.common), template(t, tc.role), tc.byName)
			if err != nil {
				t.Fatal(err)
			}
			var want corev1.PodTemplateSpec
			if w := template(t, tc.want); w != nil {
				want.Labels, want.Annotations, want.Spec = w.Metadata.Labels, w.Metadata.Annotations, w.Spec
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merged template (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeTemplatesLeavesTheInputsAlone: the merge writes into copies.
func TestMergeTemplatesLeavesTheInputsAlone(t *testing.T) {
	common := template(t, "spec: {nodeSelector: {a: b}, containers: [{name: m, env: [{name: A, value: '1'}]}]}")
	role := template(t, "spec: {nodeSelector: {c: d}, containers: [{name: m, env: [{name: B, value: '2'}]}]}")
	before := common.DeepCopy()
	if _, err := mergeTemplates(common, role, true); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, common); diff != "" {
		t.Errorf("the common template changed (-before +after):\n%s", diff)
	}
}

// TestRenderMergesByTheResourcesOption: the option comes from the resource's configuration
// (its own, or the operator's default for it), and a value that is not a boolean fails the
// render naming the option.
func TestRenderMergesByTheResourcesOption(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{}
	d.Name, d.Namespace = "merge", "flink"
	d.Spec.Image, d.Spec.FlinkVersion, d.Spec.Mode = "flink:1.20", "v1_20", flinkv1beta1.DeploymentModeStandalone
	d.Spec.PodTemplate = template(t, "spec: {containers: [{name: flink-main-container}, {name: a}]}")
	d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{PodTemplate: template(t, "spec: {containers: [{name: b}]}")}
	names := func(conf, defaults map[string]string) (string, error) {
		c := Cluster{Resource: d, Spec: *d.Spec.DeepCopy()}
		c.Spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(conf)
		c.Spec.Defaults = defaults
		objs, err := Render(c)
		if err != nil {
			return "", err
		}
		var out []string
		for _, ct := range objs.TaskManager.Spec.Template.Spec.Containers {
			out = append(out, ct.Name)
		}
		return strings.Join(out, ","), nil
	}
	const key = "kubernetes.operator.pod-template.merge-arrays-by-name"
	for _, tc := range []struct {
		conf, defaults map[string]string
		want           string
	}{
		{nil, nil, "flink-main-container,b,a"}, // by position: b takes flink-main-container's place, which is added again, first
		{map[string]string{key: "true"}, nil, "flink-main-container,a,b"},
		{nil, map[string]string{key: "true"}, "flink-main-container,a,b"},
		{map[string]string{key: "false"}, map[string]string{key: "true"}, "flink-main-container,b,a"},
	} {
		got, err := names(tc.conf, tc.defaults)
		if err != nil || got != tc.want {
			t.Errorf("conf %v, defaults %v: TaskManager containers %q, %v; want %q", tc.conf, tc.defaults, got, err, tc.want)
		}
	}
	if _, err := names(map[string]string{key: "yes"}, nil); err == nil || !strings.Contains(err.Error(), key) {
		t.Errorf("merge-arrays-by-name: yes rendered: %v; want an error naming the option", err)
	}
}
