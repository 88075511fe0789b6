package v1beta1

import (
	"slices"
	"strings"
)

// Flink's kubernetes.* options the operator does not apply, each with why: the Apache
// operator's standalone clusters do not apply them either, or the spec has a field for them,
// or they belong to native mode. A spec setting one gets a Warning (OptionNotApplied) when it
// deploys, so that no option is dropped silently; docs/flink-contract.md lists them.
var notApplied = []struct{ key, why string }{
	{"kubernetes.jobmanager.owner.reference", "the operator owns what it renders"},
	{"kubernetes.jobmanager.entrypoint.args", "read by native mode only"},
	{"kubernetes.taskmanager.entrypoint.args", "read by native mode only"},
	{"kubernetes.jobmanager.replicas", "spec.jobManager.replicas sets it"},
	{"kubernetes.service-account", "spec.serviceAccount sets it"},
	{"kubernetes.container.image.ref", "spec.image sets it"},
	{"kubernetes.container.image", "spec.image sets it"},
	{"kubernetes.container.image.pull-policy", "spec.imagePullPolicy sets it"},
	{"kubernetes.entry.path", "the image's own entrypoint runs"},
	{"kubernetes.flink.conf.dir", "the configuration is mounted at /opt/flink/conf"},
	{"kubernetes.pod-template-file", "the operator renders the pod templates of spec"},
	{"kubernetes.decorator.", "the standalone decorators always run"},
	{"kubernetes.artifacts.", "read by native mode only"},
	{"kubernetes.node-name-label", "read by native mode only"},
	{"kubernetes.taskmanager.cpu.amount", "spec.taskManager.resource.cpu sets it"},
	{"kubernetes.jobmanager.cpu.amount", "spec.jobManager.resource.cpu sets it"},
	{"kubernetes.jobmanager.cpu", "spec.jobManager.resource.cpu sets it"},
	{"kubernetes.taskmanager.cpu", "spec.taskManager.resource.cpu sets it"},
	{"kubernetes.jobmanager.cpu.limit-factor", "spec.jobManager.resources' limits set it"},
	{"kubernetes.jobmanager.memory.limit-factor", "spec.jobManager.resources' limits set it"},
	{"kubernetes.taskmanager.cpu.limit-factor", "spec.taskManager.resources' limits set it"},
	{"kubernetes.taskmanager.memory.limit-factor", "spec.taskManager.resources' limits set it"},
	{"kubernetes.context", "the operator's own Kubernetes client is used"},
	{"kubernetes.config.file", "the operator's own Kubernetes client is used"},
	{"kubernetes.client.", "the operator's own Kubernetes client is used"},
}

// NotAppliedOptions are the keys of conf (a resource's own flinkConfiguration) the operator
// does not apply, sorted, each with why ("key (why)").
func NotAppliedOptions(conf map[string]string) []string {
	var out []string
	for k := range conf {
		for _, n := range notApplied {
			if k == n.key || (strings.HasSuffix(n.key, ".") || n.key == "kubernetes.pod-template-file") && strings.HasPrefix(k, n.key) {
				out = append(out, k+" ("+n.why+")")
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
