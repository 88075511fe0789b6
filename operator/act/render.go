package act

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// Cluster is what Render needs to render one deployment of a FlinkDeployment.
type Cluster struct {
	// Resource is the FlinkDeployment (name, namespace, uid for the owner reference).
	Resource *flinkv1beta1.FlinkDeployment
	// Spec is the spec to deploy (the reconciled spec, which may differ from Resource.Spec).
	Spec flinkv1beta1.FlinkDeploymentSpec
	// Generation is the generation Spec belongs to; it goes into AnnotationGeneration.
	Generation int64
	// Run is the job run of that generation (a restart or rollback); it goes into AnnotationRun.
	Run string
	// JobID is the application job's id (empty for a session cluster).
	JobID string
	// RestorePath is the savepoint or checkpoint the job starts from ("" for none or HA).
	RestorePath string
}

// Objects are the rendered objects of one cluster.
type Objects struct {
	ConfigMap       *corev1.ConfigMap
	JobManager      *appsv1.Deployment
	TaskManager     *appsv1.Deployment
	RESTService     *corev1.Service
	InternalService *corev1.Service
}

// All lists the objects in creation order (configuration and services before pods); a
// native cluster has no TaskManager Deployment.
func (o *Objects) All() []client.Object {
	all := []client.Object{o.ConfigMap, o.InternalService, o.RESTService, o.JobManager}
	if o.TaskManager != nil {
		all = append(all, o.TaskManager)
	}
	return all
}

// Render renders a cluster. It fails on a configuration that does not flatten or holds an
// option it applies with a value Flink would refuse (kubernetes.*: see kubeoptions.go;
// kubernetes.operator.pod-template.merge-arrays-by-name neither true nor false).
func Render(c Cluster) (*Objects, error) {
	conf, err := c.Spec.Conf()
	if err != nil {
		return nil, fmt.Errorf("flinkConfiguration: %w", err)
	}
	d := c.Resource
	flinkConf := EffectiveConfig(c, conf)
	cm, err := renderConfigMap(c, flinkConf)
	if err != nil {
		return nil, err
	}
	jm, tm, err := roleTemplates(c.Spec, flinkConf)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRender, err)
	}
	shared, sharedErr := parseSharedOptions(flinkConf)
	jmOpts, jmErr := parseRoleOptions(flinkConf, "jobmanager", shared)
	tmOpts, tmErr := parseRoleOptions(flinkConf, "taskmanager", shared)
	restType, restHeadless, restAnn, restErr := restServiceOptions(flinkConf)
	internalAnn, internalErr := config.ParseFlinkMap(flinkConf["kubernetes.internal-service.annotations"])
	if internalErr != nil {
		internalErr = fmt.Errorf("flinkConfiguration: kubernetes.internal-service.annotations: %w", internalErr)
	}
	if err := errors.Join(sharedErr, jmErr, tmErr, restErr, internalErr); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRender, err)
	}
	objs := &Objects{
		ConfigMap:       cm,
		JobManager:      renderJobManager(c, flinkConf, jm, jmOpts),
		RESTService:     renderService(d, RESTServiceName(d.Name), []corev1.ServicePort{{Name: "rest", Port: RESTPort, TargetPort: intstr.FromInt32(RESTPort)}}, restHeadless),
		InternalService: renderService(d, InternalServiceName(d.Name), []corev1.ServicePort{{Name: "jobmanager-rpc", Port: 6123}, {Name: "blobserver", Port: 6124}}, true),
	}
	if c.Spec.Native() {
		file, err := taskManagerTemplateFile(withTaskManagerResources(tm, c.Spec))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRender, err)
		}
		cm.Data[TaskManagerTemplateFile] = file
		nativeJobManager(objs.JobManager, c, flinkConf)
	} else {
		objs.TaskManager = renderTaskManager(c, flinkConf, tm, tmOpts)
	}
	if restType != corev1.ServiceTypeClusterIP {
		objs.RESTService.Spec.Type = restType // ClusterIP stays the API server's default
	}
	if len(restAnn) > 0 {
		objs.RESTService.Annotations = restAnn
	}
	if len(internalAnn) > 0 {
		objs.InternalService.Annotations = internalAnn
	}
	return objs, nil
}

// EffectiveConfig is the Flink configuration the cluster runs with: the user's flattened
// configuration plus the keys the operator owns (cluster id, addresses, the job to run and
// where it restores from).
func EffectiveConfig(c Cluster, userConf map[string]string) map[string]string {
	d := c.Resource
	conf := maps.Clone(userConf)
	set := func(k, v string) { conf[k] = v }
	setDefault := func(k, v string) {
		if _, ok := conf[k]; !ok {
			conf[k] = v
		}
	}
	set("kubernetes.cluster-id", d.Name)
	set("kubernetes.namespace", d.Namespace)
	set("jobmanager.rpc.address", InternalServiceName(d.Name)+"."+d.Namespace)
	set("rest.port", strconv.Itoa(RESTPort))
	setDefault("jobmanager.rpc.port", "6123")
	setDefault("blob.server.port", "6124")
	setDefault("taskmanager.rpc.port", "6122")
	set("high-availability.cluster-id", d.Name) // whatever HA type, or its deprecated spelling, is set
	if c.Spec.FlinkVersion != "" {
		set("$internal.flink.version", string(c.Spec.FlinkVersion))
	}
	resourceConfig(c.Spec, conf)
	if j := c.Spec.Job; j != nil {
		applicationConfig(c, j, conf)
	}
	if c.Spec.Native() {
		nativeConfig(c, conf)
	}
	return conf
}

// applicationConfig sets the keys of an application cluster's job: what to run, with which
// id and parallelism, and where it restores from.
func applicationConfig(c Cluster, j *flinkv1beta1.JobSpec, conf map[string]string) {
	conf["$internal.deployment.config-dir"] = ConfDir
	conf["pipeline.jars"] = j.JarURI
	if path, ok := strings.CutPrefix(j.JarURI, "local://"); ok {
		// The standalone application entrypoint finds the job class on the user classpath
		// (usrlib and pipeline.classpaths), not in pipeline.jars.
		conf["pipeline.classpaths"] = "file://" + path
	}
	conf["execution.target"] = "embedded"
	conf["execution.shutdown-on-application-finish"] = "false"
	conf["execution.submit-failed-job-on-application-error"] = "true"
	if _, ok := conf["execution.checkpointing.externalized-checkpoint-retention"]; !ok {
		conf["execution.checkpointing.externalized-checkpoint-retention"] = "RETAIN_ON_CANCELLATION"
	}
	if c.JobID != "" {
		conf["$internal.pipeline.job-id"] = c.JobID
	}
	if j.Parallelism != nil || (c.Spec.Native() && c.Spec.TaskManager != nil && c.Spec.TaskManager.Replicas != nil) {
		conf["parallelism.default"] = strconv.Itoa(int(flinkv1beta1.JobParallelism(&c.Spec, conf)))
	}
	// standalone-job reads the class and arguments from its command line; the keys are kept
	// for what reads the configuration, unless flink-conf.yaml's lines cannot carry them.
	legacy := flinkv1beta1.IsLegacyConfigFile(c.Spec.FlinkVersion)
	if j.EntryClass != "" && (!legacy || flinkv1beta1.LegacyConfigProblem("k", j.EntryClass) == "") {
		conf["$internal.application.main"] = j.EntryClass
	}
	if args := strings.Join(j.Args, ";"); args != "" && (!legacy || flinkv1beta1.LegacyConfigProblem("k", args) == "") {
		conf["$internal.application.program-args"] = args
	}
	delete(conf, "execution.savepoint.path")
	if c.RestorePath == "" {
		return
	}
	conf["execution.savepoint.path"] = c.RestorePath
	if j.AllowNonRestoredState != nil && *j.AllowNonRestoredState {
		conf["execution.savepoint.ignore-unclaimed-state"] = "true"
	}
}

// ConfigFileName is config.yaml for Flink ≥ 1.19 and flink-conf.yaml before.
func ConfigFileName(v flinkv1beta1.FlinkVersion) string {
	if flinkv1beta1.IsLegacyConfigFile(v) {
		return "flink-conf.yaml"
	}
	return "config.yaml"
}

func renderConfigMap(c Cluster, conf map[string]string) (*corev1.ConfigMap, error) {
	d := c.Resource
	name := ConfigFileName(c.Spec.FlinkVersion)
	file, err := ConfigFile(name, conf)
	if err != nil {
		return nil, err
	}
	data := map[string]string{name: file}
	for _, k := range flinkv1beta1.LogConfigurationKeys { // never another file, such as config.yaml
		if v, ok := c.Spec.LogConfiguration[k]; ok {
			data[k] = v
		}
	}
	// The ConfigMap replaces the image's conf directory, its logging files included.
	for k, v := range DefaultLogConfiguration {
		if _, ok := data[k]; !ok {
			data[k] = v
		}
	}
	meta := objectMeta(d, ConfigMapName(d.Name), "")
	meta.Labels[LabelType] = TypeNative
	return &corev1.ConfigMap{ObjectMeta: meta, Data: data}, nil
}

func objectMeta(d *flinkv1beta1.FlinkDeployment, name, component string) metav1.ObjectMeta {
	labels := map[string]string{LabelApp: d.Name, LabelManagedBy: ManagedBy}
	if component != "" {
		labels[LabelComponent] = component
	}
	return metav1.ObjectMeta{
		Name: name, Namespace: d.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, flinkv1beta1.GroupVersion.WithKind("FlinkDeployment"))},
	}
}

func renderService(d *flinkv1beta1.FlinkDeployment, name string, ports []corev1.ServicePort, headless bool) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: objectMeta(d, name, ""),
		Spec: corev1.ServiceSpec{
			Selector: Selector(d.Name, ComponentJobManager),
			Ports:    ports,
		},
	}
	if headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return svc
}
