package scenarios

import (
	"fmt"
	"math"
	"strings"

	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The hostile-input generator: for each field a tenant writes, values drawn from the schema's
// and Validate's rules — valid, at a bound, just past it, malformed — and the attacks that
// broke operators before (decoy suffixes, private addresses, forbidden keys, oversized
// values). A mutation changes one field of a spec; a run applies several.

// mutation changes one field of a FlinkDeployment.
type mutation func(t *rapid.T, d *flinkv1beta1.FlinkDeployment)

// pick draws one value of a field's classes.
func pick[T any](t *rapid.T, label string, values ...T) T {
	return rapid.SampledFrom(values).Draw(t, label)
}

var deploymentMutations = map[string]mutation{
	"schema": schemaMutation,
	"cpu": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		cpu := pick(t, "cpu", 0.5, 1, 0.001, flinkv1beta1.MaxCPU, 0, -1, 1e300, math.MaxFloat64)
		d.Spec.TaskManager = tm(d)
		d.Spec.TaskManager.Resource.CPU = &cpu
	},
	"memory": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		mem := pick(t, "memory", "2048m", "1g", "2 gb", "2Gi", "1Ti", "lots", "0m", "-1g", "1Pi", "1e400")
		if rapid.Bool().Draw(t, "jobManager") {
			d.Spec.JobManager = jm(d)
			d.Spec.JobManager.Resource.Memory = mem
			return
		}
		d.Spec.TaskManager = tm(d)
		d.Spec.TaskManager.Resource.Memory = mem
	},
	"parallelism": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		p := pick[int32](t, "parallelism", 1, 4, flinkv1beta1.MaxParallelism, flinkv1beta1.MaxParallelism+1, 0, -3, math.MaxInt32)
		d.Spec.Job.Parallelism = &p
		if p > 4 {
			d.Spec.FlinkConfiguration.Set("jobmanager.scheduler", "adaptive") // no TaskManager count check
		}
	},
	"replicas": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		n := pick[int32](t, "replicas", 1, 3, flinkv1beta1.MaxReplicas+1, -1)
		d.Spec.TaskManager = tm(d)
		d.Spec.TaskManager.Replicas = &n
	},
	"logConfiguration": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		key := pick(t, "logKey", "log4j-console.properties", "logback-console.xml", "config.yaml", "flink-conf.yaml", strings.Repeat("k", 2000))
		d.Spec.LogConfiguration = map[string]string{key: "rootLogger.level = " + pick(t, "level", "INFO", "DEBUG")}
	},
	"forbiddenKey": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		key := pick(t, "key", "high-availability.cluster-id", "kubernetes.cluster-id", "kubernetes.namespace", "$internal.pipeline.job-id")
		d.Spec.FlinkConfiguration.Set(key, pick(t, "value", "other", "kube-system", "00000000000000000000000000000000"))
	},
	"operatorOption": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		key := pick(t, "option", "kubernetes.operator.reconcile.interval", "kubernetes.operator.observer.progress-check.interval",
			"kubernetes.operator.flink.client.timeout", "kubernetes.operator.periodic.savepoint.interval", "kubernetes.operator.flink.client.cancel.timeout",
			"kubernetes.operator.job.submission.timeout", "kubernetes.operator.jm-deployment.shutdown-ttl", "kubernetes.operator.savepoint.history.max.age.threshold")
		d.Spec.FlinkConfiguration.Set(key, pick(t, "duration", "1", "0", "1ms", "10s", "1h", "99999999999d", "soon"))
	},
	"operatorSwitch": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		key := pick(t, "switch", "kubernetes.operator.jm-deployment.startup.probe.enabled", "kubernetes.operator.pod-template.merge-arrays-by-name",
			"kubernetes.operator.cluster.health-check.enabled", "kubernetes.operator.job.restart.failed",
			"kubernetes.operator.job.upgrade.ignore-pending-savepoint", "kubernetes.operator.checkpoint.type", "kubernetes.operator.ingress.manage",
			"kubernetes.operator.job.drain-on-savepoint-deletion", "kubernetes.operator.job.upgrade.last-state.job-cancel.enabled",
			"kubernetes.operator.job.upgrade.inplace-scaling.enabled", "kubernetes.operator.session.deletion.block-on-unmanaged-jobs")
		d.Spec.FlinkConfiguration.Set(key, pick(t, "switchValue", "true", "FALSE", "maybe", "", "1", "NaN", strings.Repeat("t", 5000),
			"incremental", "UNKNOWN"))
	},
	"flinkLimit": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		key := pick(t, "limit", "slot.request.timeout", "jobmanager.adaptive-scheduler.resource-wait-timeout", "web.exception-history-size")
		d.Spec.FlinkConfiguration.Set(key, pick(t, "limitValue", "30 s", "16", "soon", "-1", "0", "NaN", "99999999999999999999d"))
	},
	"size": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		n := pick(t, "bytes", 1<<10, flinkv1beta1.MaxSpecBytes-4096, flinkv1beta1.MaxSpecBytes+1, 700<<10)
		d.Spec.FlinkConfiguration.Set("env.java.opts.all", strings.Repeat("x", n))
	},
	"userConfig": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set(pick(t, "userKey", "pipeline.name", "taskmanager.memory.network.fraction", "metrics.reporters"),
			pick(t, "userValue", "etl", "0.2", "a: b", "'quoted'", "true"))
	},
	"kubernetesOption": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		// Flink's own kubernetes.* options, with values Flink takes and values it refuses
		// (a label that would take the operator's selector, a malformed map, an unknown
		// service type), and options the operator does not apply.
		key := pick(t, "kubeKey", "kubernetes.jobmanager.labels", "kubernetes.taskmanager.annotations", "kubernetes.jobmanager.node-selector",
			"kubernetes.taskmanager.tolerations", "kubernetes.secrets", "kubernetes.env.secretKeyRef", "kubernetes.rest-service.exposed.type",
			"kubernetes.hostnetwork.enabled", "kubernetes.container.image.pull-secrets", "kubernetes.jobmanager.owner.reference",
			"kubernetes.taskmanager.service-account")
		d.Spec.FlinkConfiguration.Set(key, pick(t, "kubeValue", "team:a", "app:other", "key:k,operator:Exists", "s:/etc/s",
			"env:A,secret:s,key:k", "NodePort", "Headless_ClusterIP", "Ingress", "true", "r1;r2", "'unclosed", "novalue", "flink"))
	},
	"deploymentMode": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Mode = rapid.SampledFrom(deploymentModes).Draw(t, "deploymentMode")
	},
	"podTemplate": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		d.Spec.PodTemplate = podTemplateFamily(t, "template")
		d.Spec.TaskManager = tm(d)
		d.Spec.TaskManager.PodTemplate = podTemplateFamily(t, "tmTemplate")
	},
	"image": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Image = pick(t, "image", "flink:1.20", "flink:1.20.1", "", "flink:missing-1")
	},
	"cron": func(t *rapid.T, d *flinkv1beta1.FlinkDeployment) {
		// Only invalid schedules: a valid one makes the resource a cron template.
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations["job.execute.cron"] = pick(t, "schedule", "", "@every 1s", "every day", "* * *")
	},
}

func tm(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.TaskManagerSpec {
	if d.Spec.TaskManager == nil {
		return &flinkv1beta1.TaskManagerSpec{}
	}
	return d.Spec.TaskManager
}

func jm(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.JobManagerSpec {
	if d.Spec.JobManager == nil {
		return &flinkv1beta1.JobManagerSpec{}
	}
	return d.Spec.JobManager
}

// hostileName draws a FlinkDeployment name: valid, at the length bound, past it, malformed.
func hostileName(t *rapid.T) string {
	return pick(t, "name", "job", "a"+strings.Repeat("b", 44), "a"+strings.Repeat("b", 45), "a"+strings.Repeat("b", 200),
		"dotted.name", "Upper", "9lives", "job-rest")
}

// hostileJarURI draws a session job's jar: from the repository, the image or the jar
// directory, and the attacks (decoy suffixes, escapes from the directory, private and
// metadata addresses by literal, by name and by redirect, downgrades, credentials, endless
// and missing jars).
func hostileJarURI(t *rapid.T) string {
	dir, _ := harness.JarDir()
	return pick(t, "jarURI",
		"https://repo.example.com/job.jar", "local:///opt/flink/usrlib/job.jar", "file://"+dir+"/job.jar",
		"file:///etc/passwd?x.jar", "file:///etc/passwd#.jar", "file://"+dir+"/escape.jar", "file://"+dir+"/../secret.txt.jar",
		"file://"+dir+"/dir.jar", "file:///proc/self/environ/.jar", "file:///var/run/secrets/kubernetes.io/serviceaccount/token.jar",
		"http://169.254.169.254/latest/meta-data/x.jar", "https://metadata.google.internal/x.jar", "https://rebound.example.com/x.jar",
		"http://localhost:8080/metrics.jar", "http://[::ffff:127.0.0.1]:8080/x.jar", "https://kubernetes.default.svc/api.jar",
		"http://flinkop-metrics.flinkop-system.svc:8080/x.jar",
		"https://repo.example.com/to-metadata.jar", "https://repo.example.com/to-internal.jar", "https://repo.example.com/to-http.jar",
		"https://repo.example.com/endless.jar", "https://repo.example.com/missing.jar", "https://user:pw@repo.example.com/job.jar",
		"https://nowhere.example.com/job.jar", "s3://bucket/job.jar", "job.jar")
}

// describeValue shortens a drawn value for traces.
func describeValue(v string) string {
	if len(v) > 60 {
		return fmt.Sprintf("%.40s… (%d bytes)", v, len(v))
	}
	return v
}
