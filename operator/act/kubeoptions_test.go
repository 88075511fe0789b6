package act

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// renderWith renders a standalone session cluster (the one whose TaskManager Deployment the
// operator renders, applying the options as Apache's standalone decorators do) with
// flinkConfiguration conf.
func renderWith(t *testing.T, conf map[string]string) (*Objects, error) {
	t.Helper()
	d := &flinkv1beta1.FlinkDeployment{}
	d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone
	d.Name, d.Namespace = "opts", "flink"
	d.Spec.Image, d.Spec.FlinkVersion, d.Spec.ServiceAccount = "flink:1.20", "v1_20", "flink"
	d.Spec.PodTemplate = template(t, "metadata: {labels: {team: a}, annotations: {x: '1'}}\nspec: {nodeSelector: {disk: ssd}, tolerations: [{key: t, operator: Exists}]}")
	d.Spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(conf)
	return Render(Cluster{Resource: d, Spec: d.Spec})
}

// TestKubernetesOptionsAsFlinkAppliesThem holds each of Flink's kubernetes.* options the
// renderer reads to what Flink's decorators do with it in Apache's standalone clusters.
func TestKubernetesOptionsAsFlinkAppliesThem(t *testing.T) {
	tests := map[string]struct {
		conf map[string]string
		got  func(o *Objects) any
		want any
	}{
		"jobmanager labels: on the Deployment and merged into the pods'": {
			map[string]string{"kubernetes.jobmanager.labels": "team:b,tier:gold"},
			func(o *Objects) any {
				return []string{o.JobManager.Labels["tier"], o.JobManager.Spec.Template.Labels["team"], o.JobManager.Spec.Template.Labels["tier"], o.TaskManager.Spec.Template.Labels["tier"]}
			},
			[]string{"gold", "b", "gold", ""},
		},
		"taskmanager annotations: on the Deployment and merged into the pods'": {
			map[string]string{"kubernetes.taskmanager.annotations": "x:2,a.b/c:'d,e',"},
			func(o *Objects) any {
				return []map[string]string{o.TaskManager.Annotations, o.TaskManager.Spec.Template.Annotations, o.JobManager.Spec.Template.Annotations}
			},
			[]map[string]string{{"x": "2", "a.b/c": "d,e"}, {"x": "2", "a.b/c": "d,e"}, {"x": "1"}},
		},
		"node selectors merged, the option winning": {
			map[string]string{"kubernetes.jobmanager.node-selector": "disk:hdd,zone:a"},
			func(o *Objects) any {
				return []map[string]string{o.JobManager.Spec.Template.Spec.NodeSelector, o.TaskManager.Spec.Template.Spec.NodeSelector}
			},
			[]map[string]string{{"disk": "hdd", "zone": "a"}, {"disk": "ssd"}},
		},
		"tolerations appended": {
			map[string]string{"kubernetes.taskmanager.tolerations": "key:k1,operator:Equal,value:v,effect:NoSchedule;KEY:k2,Operator:Exists,tolerationSeconds:30,colour:red"},
			func(o *Objects) any { return o.TaskManager.Spec.Template.Spec.Tolerations },
			[]corev1.Toleration{
				{Key: "t", Operator: corev1.TolerationOpExists},
				{Key: "k1", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule},
				{Key: "k2", Operator: corev1.TolerationOpExists, TolerationSeconds: new(int64(30))},
			},
		},
		"image pull secrets appended, both roles": {
			map[string]string{"kubernetes.container.image.pull-secrets": "r1;r2"},
			func(o *Objects) any {
				return [][]corev1.LocalObjectReference{o.JobManager.Spec.Template.Spec.ImagePullSecrets, o.TaskManager.Spec.Template.Spec.ImagePullSecrets}
			},
			[][]corev1.LocalObjectReference{{{Name: "r1"}, {Name: "r2"}}, {{Name: "r1"}, {Name: "r2"}}},
		},
		"a role's service account over spec.serviceAccount": {
			map[string]string{"kubernetes.taskmanager.service-account": "tm"},
			func(o *Objects) any {
				return []string{o.JobManager.Spec.Template.Spec.ServiceAccountName, o.TaskManager.Spec.Template.Spec.ServiceAccountName}
			},
			[]string{"flink", "tm"},
		},
		"secrets mounted and secret environment variables, both roles": {
			map[string]string{"kubernetes.secrets": "s1:/etc/s1", "kubernetes.env.secretKeyRef": "env:PW,secret:s2,key:pw"},
			secretsOf,
			[]string{"s1-volume=s1", "s1-volume@/etc/s1", "PW=s2/pw", "s1-volume=s1", "s1-volume@/etc/s1", "PW=s2/pw"},
		},
		"log directory and Hadoop configuration": {
			map[string]string{"kubernetes.flink.log.dir": "/logs", "kubernetes.hadoop.conf.config-map.name": "hadoop"},
			func(o *Objects) any {
				var out []string
				main := o.TaskManager.Spec.Template.Spec.Containers[0]
				for _, e := range main.Env {
					out = append(out, e.Name+"="+e.Value)
				}
				for _, v := range o.TaskManager.Spec.Template.Spec.Volumes {
					if v.ConfigMap != nil {
						out = append(out, v.Name+"="+v.ConfigMap.Name)
					}
				}
				return out
			},
			[]string{"FLINK_CONF_DIR=/opt/flink/conf", "FLINK_LOG_DIR=/logs", "HADOOP_CONF_DIR=/opt/hadoop/conf", "flink-config-volume=flink-config-opts", "hadoop-config-volume=hadoop"},
		},
		"host network: the JobManager only": {
			map[string]string{"kubernetes.hostnetwork.enabled": "true"},
			func(o *Objects) any {
				return []any{o.JobManager.Spec.Template.Spec.HostNetwork, o.JobManager.Spec.Template.Spec.DNSPolicy, o.TaskManager.Spec.Template.Spec.HostNetwork}
			},
			[]any{true, corev1.DNSClusterFirstWithHostNet, false},
		},
		"REST Service type and annotations, internal Service annotations": {
			map[string]string{"kubernetes.rest-service.exposed.type": "loadBalancer", "kubernetes.rest-service.annotations": "lb:internal", "kubernetes.internal-service.annotations": "i:1"},
			func(o *Objects) any {
				return []any{o.RESTService.Spec.Type, o.RESTService.Annotations, o.InternalService.Annotations}
			},
			[]any{corev1.ServiceTypeLoadBalancer, map[string]string{"lb": "internal"}, map[string]string{"i": "1"}},
		},
		"a headless REST Service": {
			map[string]string{"kubernetes.rest-service.exposed.type": "Headless_ClusterIP"},
			func(o *Objects) any { return []any{o.RESTService.Spec.Type, o.RESTService.Spec.ClusterIP} },
			[]any{corev1.ServiceType(""), corev1.ClusterIPNone},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			objs, err := renderWith(t, tc.conf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, tc.got(objs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestKubernetesOptionsFlinkRefuses: a value Flink would refuse, or a label that would take
// the operator's selector, fails the render naming the option.
func TestKubernetesOptionsFlinkRefuses(t *testing.T) {
	for key, value := range map[string]string{
		"kubernetes.jobmanager.labels":            "app:other",
		"kubernetes.taskmanager.labels":           "novalue",
		"kubernetes.taskmanager.annotations":      "flinkop.io/run:x",
		"kubernetes.jobmanager.tolerations":       "key:k,tolerationSeconds:soon",
		"kubernetes.secrets":                      "'s1:/x",
		"kubernetes.env.secretKeyRef":             "env:A,secret:s",
		"kubernetes.hostnetwork.enabled":          "maybe",
		"kubernetes.rest-service.exposed.type":    "Ingress",
		"kubernetes.rest-service.annotations":     "a",
		"kubernetes.internal-service.annotations": "b",
	} {
		_, err := renderWith(t, map[string]string{key: value})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %q rendered: %v; want an error naming the option", key, value, err)
		}
	}
}

// secretsOf is, for both roles, the last volume, the last mount and the PW variable.
func secretsOf(o *Objects) any {
	var out []string
	for _, tmpl := range []corev1.PodTemplateSpec{o.JobManager.Spec.Template, o.TaskManager.Spec.Template} {
		main := tmpl.Spec.Containers[0]
		v := tmpl.Spec.Volumes[len(tmpl.Spec.Volumes)-1]
		m := main.VolumeMounts[len(main.VolumeMounts)-1]
		out = append(out, v.Name+"="+v.Secret.SecretName, m.Name+"@"+m.MountPath)
		for _, e := range main.Env {
			if e.Name == "PW" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				out = append(out, e.Name+"="+e.ValueFrom.SecretKeyRef.Name+"/"+e.ValueFrom.SecretKeyRef.Key)
			}
		}
	}
	return out
}

// TestSharedOptionRefusedOnce: an option both roles get is read once, so a malformed one is
// named once in the error.
func TestSharedOptionRefusedOnce(t *testing.T) {
	_, err := renderWith(t, map[string]string{"kubernetes.secrets": "novalue"})
	if err == nil || strings.Count(err.Error(), "kubernetes.secrets") != 1 {
		t.Errorf("error %v; want kubernetes.secrets named once", err)
	}
}
