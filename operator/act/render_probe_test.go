package act

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestStartupProbe: the JobManager gets Apache's startup probe (GET /config on the rest port,
// every second, without limit) unless the option turns it off or the template has its own; in
// HTTPS with REST SSL, none with REST client authentication; the port by number when the
// template named 8081 otherwise.
func TestStartupProbe(t *testing.T) {
	probe := func(scheme corev1.URIScheme, port intstr.IntOrString) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/config", Port: port, Scheme: scheme}},
			PeriodSeconds: 1, FailureThreshold: math.MaxInt32,
		}
	}
	own := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	rest := []corev1.ContainerPort{{Name: "rest", ContainerPort: RESTPort}}
	cases := map[string]struct {
		conf  map[string]string
		ports []corev1.ContainerPort
		own   *corev1.Probe
		want  *corev1.Probe
	}{
		"by default":         {ports: rest, want: probe(corev1.URISchemeHTTP, intstr.FromString("rest"))},
		"turned off":         {conf: map[string]string{"kubernetes.operator.jm-deployment.startup.probe.enabled": "false"}, ports: rest},
		"the template's own": {ports: rest, own: own, want: own},
		"REST SSL":           {conf: map[string]string{"security.ssl.rest.enabled": "true"}, ports: rest, want: probe(corev1.URISchemeHTTPS, intstr.FromString("rest"))},
		"REST client authentication": {conf: map[string]string{
			"security.ssl.rest.enabled": "true", "security.ssl.rest.authentication-enabled": "true",
		}, ports: rest},
		"the port named otherwise": {ports: []corev1.ContainerPort{{Name: "http", ContainerPort: RESTPort}}, want: probe(corev1.URISchemeHTTP, intstr.FromInt32(RESTPort))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: MainContainer, Ports: tc.ports, StartupProbe: tc.own}}}}
			addStartupProbe(&tmpl, tc.conf)
			if diff := cmp.Diff(tc.want, tmpl.Spec.Containers[0].StartupProbe); diff != "" {
				t.Errorf("startup probe (-want +got):\n%s", diff)
			}
		})
	}
}
