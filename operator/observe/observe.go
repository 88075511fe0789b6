package observe

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// FlinkAPI is what observing needs from a JobManager's REST API.
type FlinkAPI interface {
	ListJobs(ctx context.Context) ([]flink.JobOverview, error)
	JobExceptions(ctx context.Context, jobID string) (*flink.ExceptionHistory, error)
	Checkpoints(ctx context.Context, jobID string) (*flink.CheckpointingStatistics, error)
	SavepointStatus(ctx context.Context, jobID, triggerID string) (*flink.SavepointResult, error)
	CheckpointStatus(ctx context.Context, jobID, triggerID string) (*flink.CheckpointResult, error)
	ResourceRequirements(ctx context.Context, jobID string) (flink.ResourceRequirements, error)
	DashboardConfig(ctx context.Context) (*flink.DashboardConfig, error)
	JobDetails(ctx context.Context, jobID string) (*flink.JobDetails, error)
	SubtaskMetrics(ctx context.Context, jobID, vertexID string, names, aggs []string) ([]flink.AggregatedMetric, error)
	JobMetrics(ctx context.Context, jobID string, names ...string) (map[string]string, error)
}

// HA ConfigMap labels, as Flink's Kubernetes HA services set them (act.LabelConfigMapType).
const (
	LabelHAConfigMapType = act.LabelConfigMapType
	HAConfigMapType      = act.ConfigMapTypeHA
)

// Observer builds Observations. It only reads.
type Observer struct {
	// Client reads Kubernetes objects (the manager's cache).
	Client client.Reader
	// Flink returns the REST client of a deployment's JobManager.
	Flink func(d *flinkv1beta1.FlinkDeployment) FlinkAPI
	// HealthCheck says whether the health check is on for a deployment
	// (kubernetes.operator.cluster.health-check.enabled): its job's restart count is read
	// then (nil: never).
	HealthCheck func(d *flinkv1beta1.FlinkDeployment) bool
	// RESTBudget bounds all REST reads of one observation together (0: only each call's
	// own timeout), so a JobManager that answers slowly costs its resource one budget per
	// reconcile, not one timeout per call.
	RESTBudget time.Duration
	// Lister lists Pods and ConfigMaps by app label (through the cache's index when it
	// has one).
	Lister act.AppLister
	// Reader reads past the cache (nil: never). A Deployment the cache does not hold while
	// the status says it was deployed is read there before it counts as missing: the cache
	// may see the status write before the create (the informers do not keep order), and a
	// missing JobManager Deployment is a recovery, or an error. A deletion that the cache
	// shows finished reads the cluster's objects there before the finalizer goes (see
	// leftoversPastCache).
	Reader client.Reader
	// Snapshots lists the FlinkStateSnapshots of a job (act.SnapshotLister; the zero value:
	// none, snapshot resources off).
	Snapshots act.SnapshotLister
}

// Observe reads the cluster of d. Kubernetes read errors are returned (the reconcile is
// retried); Flink REST errors are part of the observation.
func (o *Observer) Observe(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (decide.Observation, error) {
	var obs decide.Observation
	var err error
	if obs.JobManager, err = o.deployment(ctx, d, act.JobManagerName(d.Name), expectsCluster(d)); err != nil {
		return obs, err
	}
	// A native cluster has no TaskManager Deployment: one left by a standalone spec is in the
	// cache, and an absence is not read again past it on every look.
	if obs.TaskManager, err = o.deployment(ctx, d, act.TaskManagerName(d.Name), expectsCluster(d) && !d.Spec.Native()); err != nil {
		return obs, err
	}
	if jm := obs.JobManager; jm != nil && (!jm.Available || jm.ReadyReplicas < jm.Replicas) {
		// Pods say why a JobManager (or a standby) is not ready; with every one ready there
		// is nothing to read.
		if obs.PodError, obs.JobManagerNeverStarted, err = o.jobManagerPods(ctx, d); err != nil {
			return obs, err
		}
		obs.JobManagerNeverStarted = obs.JobManagerNeverStarted && !jm.Available
	}
	if obs.HAMetadata, err = o.haMetadata(ctx, d); err != nil {
		return obs, err
	}
	if obs.Ingress, err = o.ingress(ctx, d); err != nil {
		return obs, err
	}
	if d.DeletionTimestamp != nil {
		if err := o.observeDeletion(ctx, d, &obs); err != nil {
			return obs, err
		}
	} else if err := o.autoscalerState(ctx, d, &obs); err != nil {
		return obs, err
	}
	if d.Spec.Job != nil && steady(d.DeletionTimestamp, &d.Status.ReconciliationStatus, &d.Status.JobStatus) {
		if obs.TakenSavepoint, err = takenSavepoint(ctx, o.Snapshots, o.Client, o.Reader, d, flinkv1beta1.JobKindDeployment, &d.Status.JobStatus); err != nil {
			return obs, err
		}
	}
	if obs.JobManager != nil && obs.JobManager.Available {
		o.observeFlink(ctx, d, &obs)
	}
	return obs, nil
}

// deployment observes one of d's Deployments. One that d does not control is not d's: it
// counts as absent, and deploying over it fails with act.ErrNotOwned. With pastCache, one the
// cache does not hold is read again past it (a create whose watch event has not arrived).
func (o *Observer) deployment(ctx context.Context, d *flinkv1beta1.FlinkDeployment, name string, pastCache bool) (*decide.DeploymentState, error) {
	var dep appsv1.Deployment
	key := client.ObjectKey{Namespace: d.Namespace, Name: name}
	err := o.Client.Get(ctx, key, &dep)
	if apierrors.IsNotFound(err) && o.Reader != nil && pastCache {
		err = o.Reader.Get(ctx, key, &dep)
	}
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get deployment %s/%s: %w", d.Namespace, name, err)
	}
	if dep.DeletionTimestamp != nil || !metav1.IsControlledBy(&dep, d) {
		return nil, nil // going away, or not d's: treat as gone
	}
	s := &decide.DeploymentState{
		Replicas: dep.Status.Replicas, ReadyReplicas: dep.Status.ReadyReplicas, AvailableReplicas: dep.Status.AvailableReplicas,
	}
	s.Generation, _ = strconv.ParseInt(dep.Annotations[act.AnnotationGeneration], 10, 64)
	s.Run = dep.Annotations[act.AnnotationRun]
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	s.Available = dep.Status.ObservedGeneration >= dep.Generation && dep.Status.UpdatedReplicas >= want &&
		dep.Status.AvailableReplicas >= 1
	for _, c := range dep.Status.Conditions {
		if ReadsDeploymentCondition(c) {
			s.ReplicaFailure = c.Reason + ": " + c.Message
		}
	}
	return s, nil
}

// ReadsDeploymentCondition reports whether the observer reads a Deployment's condition c: of
// its conditions it reads only a ReplicaFailure that is true (its pods cannot be created), so
// the manager's cache keeps no other.
func ReadsDeploymentCondition(c appsv1.DeploymentCondition) bool {
	return c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue
}

// jobManagerPods reports the first JobManager pod problem that needs a person, and whether no
// JobManager pod's main container ever ran (a pod that is pending, or whose image cannot be
// pulled or its container created).
func (o *Observer) jobManagerPods(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (*decide.PodError, bool, error) {
	pods, err := o.jobManagerPodStatuses(ctx, d)
	if err != nil {
		return nil, false, err
	}
	var problem *decide.PodError
	neverStarted := true
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil || cs.RestartCount > 0 {
				neverStarted = false
			}
		}
		for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
			if problem != nil {
				break
			}
			if w := cs.State.Waiting; w != nil && slices.Contains(decide.PodProblems, w.Reason) {
				problem = &decide.PodError{Reason: w.Reason, Message: fmt.Sprintf("pod %s container %s: %s", p.Name, cs.Name, w.Message)}
				if t := cs.LastTerminationState.Terminated; t != nil && t.Message != "" {
					// terminationMessagePolicy FallbackToLogsOnError: the tail of the log,
					// where Flink printed why it exited.
					problem.Message += fmt.Sprintf(" (exit code %d: %s)", t.ExitCode, lastLines(t.Message, 3))
				}
				if w.Reason == "CrashLoopBackOff" {
					neverStarted = false
				}
			}
			if t := cs.LastTerminationState.Terminated; problem == nil && t != nil && t.Reason == "OOMKilled" && !cs.Ready {
				problem = &decide.PodError{Reason: decide.ReasonOOMKilled, Message: fmt.Sprintf("pod %s container %s was killed for using too much memory", p.Name, cs.Name)}
			}
		}
	}
	return problem, neverStarted, nil
}

// jobManagerPodStatuses reads d's JobManager pods: their names from the cache, which holds
// pods' metadata only (act.MetadataOnly), and each pod by name past it (o.Reader; the cache's
// client without one). It runs only while a JobManager is not ready, so a fleet at steady
// state makes none of these reads. A pod gone between the two reads is skipped.
func (o *Observer) jobManagerPodStatuses(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]corev1.Pod, error) {
	names := act.PodMetadataList()
	if err := o.Lister.List(ctx, o.Client, names, d.Namespace, act.JobManagerPods(d.Name)); err != nil {
		return nil, fmt.Errorf("list JobManager pods: %w", err)
	}
	reader := o.Reader
	if reader == nil {
		reader = o.Client
	}
	pods := make([]corev1.Pod, 0, len(names.Items))
	for _, m := range names.Items {
		var p corev1.Pod
		err := reader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, &p)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get JobManager pod %s: %w", m.Name, err)
		}
		pods = append(pods, p)
	}
	return pods, nil
}

// HAClusterID is the HA cluster id of a deployment: always its name (the operator sets
// high-availability.cluster-id itself; a tenant-chosen id could reach another resource's HA
// metadata).
func HAClusterID(d *flinkv1beta1.FlinkDeployment) string {
	return d.Name
}

// HASelector selects the HA ConfigMaps of a deployment by the labels Flink gives them (its
// KubernetesUtils: app=<cluster-id>, type=flink-native-kubernetes,
// configmap-type=high-availability). It names Flink's type label, as the manager's cache
// does: the operator deletes by it only what it can see.
func HASelector(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
	return client.MatchingLabels{act.LabelApp: HAClusterID(d), act.LabelType: act.TypeNative, LabelHAConfigMapType: HAConfigMapType}
}

// haMetadata reports whether d's HA metadata exists: HA ConfigMaps of its cluster id while d
// has a cluster of its own (otherwise they are another cluster's, see act.OwnsCluster).
func (o *Observer) haMetadata(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (bool, error) {
	if owns, err := act.OwnsCluster(ctx, o.Client, d); err != nil || !owns {
		return false, err
	}
	cms := act.ConfigMapMetadataList()
	if err := o.Lister.List(ctx, o.Client, cms, d.Namespace, HASelector(d)); err != nil {
		return false, fmt.Errorf("list HA ConfigMaps: %w", err)
	}
	for i := range cms.Items {
		if IsJobHAConfigMap(&cms.Items[i]) {
			return true, nil
		}
	}
	return false, nil
}

// IsJobHAConfigMap reports whether an HA ConfigMap holds a job's HA metadata, as the Apache
// operator decides it (FlinkUtils.isValidHaConfigMap): not being deleted, and named
// <cluster-id>-<job-id>-config-map (a job's checkpoints and counter; the cluster's
// <cluster-id>-cluster-config-map alone is not enough) or, before Flink 1.15,
// <…>-jobmanager-leader. ConfigMaps of the autoscaler (label component=autoscaler) are not HA
// metadata. It reads cm's metadata only (the manager's cache holds no more of a ConfigMap).
func IsJobHAConfigMap(cm metav1.Object) bool {
	if cm.GetDeletionTimestamp() != nil || cm.GetLabels()["component"] == "autoscaler" {
		return false
	}
	if name := cm.GetName(); strings.HasSuffix(name, "-config-map") {
		return !strings.HasSuffix(name, "-cluster-config-map")
	}
	return strings.HasSuffix(cm.GetName(), "-jobmanager-leader")
}

func (o *Observer) ingress(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (*decide.IngressState, error) {
	var ing networkingv1.Ingress
	if err := o.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: act.IngressName(d.Name)}, &ing); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get ingress: %w", err)
	}
	if ing.DeletionTimestamp != nil || ing.Labels[act.LabelManagedBy] != act.ManagedBy || !metav1.IsControlledBy(&ing, d) {
		return nil, nil // going away, or not ours
	}
	return &decide.IngressState{Hash: ing.Annotations[act.AnnotationIngressHash]}, nil
}

// expectsCluster reports whether d's status says its Deployments were created: a JobManager
// Deployment status other than none or MISSING.
func expectsCluster(d *flinkv1beta1.FlinkDeployment) bool {
	s := d.Status.JobManagerDeploymentStatus
	return s != "" && s != flinkv1beta1.JobManagerMissing
}
