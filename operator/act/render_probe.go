package act

import (
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/flink"
)

// StartupProbePath is what the JobManager's startup probe asks for: the REST API's dashboard
// configuration (Flink's DashboardConfigurationHeaders), which answers once the REST endpoint
// serves.
const StartupProbePath = "/config"

// addStartupProbe gives the JobManager's main container the startup probe the Apache operator
// adds (kubernetes.operator.jm-deployment.startup.probe.enabled, true by default, which the
// resource's effective configuration conf may turn off): GET /config on the rest port every
// second, without limit, so that the pod is ready, and its Deployment available, once Flink's
// REST API answers. A probe of the template's own is kept. With REST SSL the probe asks in
// HTTPS (the kubelet does not verify the certificate; Apache asks in HTTP, which never
// succeeds there); with client authentication none is added, since the kubelet has no
// certificate to present.
func addStartupProbe(tmpl *corev1.PodTemplateSpec, conf map[string]string) {
	if v, ok := conf[config.KeyJMStartupProbe]; ok {
		if on, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil && !on {
			return // a value that does not parse is refused with the operator options
		}
	}
	ssl, _ := flink.RESTSSLOf(conf)
	if ssl.Mutual {
		return
	}
	main := &tmpl.Spec.Containers[mainContainerIndex(&tmpl.Spec)]
	if main.StartupProbe != nil {
		return
	}
	scheme := corev1.URISchemeHTTP
	if ssl.Enabled {
		scheme = corev1.URISchemeHTTPS
	}
	port := intstr.FromInt32(RESTPort) // a template that named the port otherwise
	for _, p := range main.Ports {
		if p.Name == "rest" {
			port = intstr.FromString("rest")
		}
	}
	main.StartupProbe = &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: StartupProbePath, Port: port, Scheme: scheme,
		}},
		PeriodSeconds: 1, FailureThreshold: math.MaxInt32,
	}
}
