package v1beta1

import (
	"slices"
	"strings"
)

// Flink's kubernetes.* options the operator does not apply, each with why: the Apache
// operator's standalone clusters do not apply them either, or the spec has a field for them,
// or they belong to native mode (applied there, noted). A spec setting one gets a Warning (OptionNotApplied) when it
// deploys, so that no option is dropped silently; docs/flink-contract.md lists them.
var notApplied = []struct {
	key, why string
	native   bool // applied in native mode (by the JobManager the operator starts, or Flink's resource manager)
}{
	{"kubernetes.jobmanager.owner.reference", "the operator owns what it renders", false},
	{"kubernetes.jobmanager.entrypoint.args", "read by native mode only", true},
	{"kubernetes.taskmanager.entrypoint.args", "read by native mode only", true},
	{"kubernetes.jobmanager.replicas", "spec.jobManager.replicas sets it", false},
	{"kubernetes.service-account", "spec.serviceAccount sets it", false},
	{"kubernetes.container.image.ref", "spec.image sets it", false},
	{"kubernetes.container.image", "spec.image sets it", false},
	{"kubernetes.container.image.pull-policy", "spec.imagePullPolicy sets it", false},
	{"kubernetes.entry.path", "the image's own entrypoint runs in standalone mode", true},
	{"kubernetes.flink.conf.dir", "the configuration is mounted at /opt/flink/conf", false},
	{"kubernetes.pod-template-file", "the operator renders the pod templates of spec", false},
	{"kubernetes.decorator.", "the standalone decorators always run", false},
	{"kubernetes.artifacts.", "Flink's native artifact fetching is not modelled: use local:// jars or an init container", false},
	{"kubernetes.node-name-label", "the resource manager's blocked nodes are not modelled", false},
	{"kubernetes.taskmanager.cpu.amount", "spec.taskManager.resource.cpu sets it", false},
	{"kubernetes.jobmanager.cpu.amount", "spec.jobManager.resource.cpu sets it", false},
	{"kubernetes.jobmanager.cpu", "spec.jobManager.resource.cpu sets it", false},
	{"kubernetes.taskmanager.cpu", "spec.taskManager.resource.cpu sets it in standalone mode", true},
	{"kubernetes.jobmanager.cpu.limit-factor", "spec.jobManager.resources' limits set it", false},
	{"kubernetes.jobmanager.memory.limit-factor", "spec.jobManager.resources' limits set it", false},
	{"kubernetes.taskmanager.cpu.limit-factor", "spec.taskManager.resources' limits set it", false},
	{"kubernetes.taskmanager.memory.limit-factor", "spec.taskManager.resources' limits set it", false},
	{"kubernetes.context", "the operator's own Kubernetes client is used", false},
	{"kubernetes.config.file", "the operator's own Kubernetes client is used", false},
	{"kubernetes.client.", "the operator's own Kubernetes client is used", false},
}

// NotAppliedOptions are the keys of conf (a resource's own flinkConfiguration) the operator
// does not apply to a cluster of the mode (native or not), sorted, each with why ("key (why)").
func NotAppliedOptions(conf map[string]string, native bool) []string {
	var out []string
	for k := range conf {
		for _, n := range notApplied {
			if native && n.native {
				continue
			}
			if k == n.key || (strings.HasSuffix(n.key, ".") || n.key == "kubernetes.pod-template-file") && strings.HasPrefix(k, n.key) {
				out = append(out, k+" ("+n.why+")")
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
