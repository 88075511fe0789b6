package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// observeDeletion adds what deletion waits for: the objects left, and a session cluster's jobs.
func (o *Observer) observeDeletion(ctx context.Context, d *flinkv1beta1.FlinkDeployment, obs *decide.Observation) error {
	var err error
	if obs.Leftovers, err = o.leftovers(ctx, d); err != nil {
		return err
	}
	if obs.Ingress != nil {
		obs.Leftovers = append(obs.Leftovers, "ingress/"+act.IngressName(d.Name))
	}
	if d.Spec.Job == nil {
		if obs.SessionJobs, err = o.sessionJobs(ctx, d); err != nil {
			return err
		}
	}
	if len(obs.Leftovers) == 0 && len(obs.SessionJobs) == 0 && d.Status.ReconciliationStatus.LastReconciledSpec != "" {
		obs.Leftovers, err = o.leftoversPastCache(ctx, d)
	}
	return err
}

// sessionJobs names the FlinkSessionJobs that target the session deployment d, sorted.
func (o *Observer) sessionJobs(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]string, error) {
	jobs, err := o.sessionJobsOf(ctx, d)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, j := range jobs {
		if j.Spec.DeploymentName == d.Name {
			out = append(out, j.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// sessionJobsOf lists the FlinkSessionJobs of d's namespace, those naming d only when the
// cache indexes them by session cluster (act.IndexSessionJobCluster); callers keep d's.
func (o *Observer) sessionJobsOf(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]flinkv1beta1.FlinkSessionJob, error) {
	var jobs flinkv1beta1.FlinkSessionJobList
	opts := []client.ListOption{client.InNamespace(d.Namespace)}
	if o.Lister.Indexed {
		opts = append(opts, client.MatchingFields{act.IndexSessionJobCluster: d.Name})
	}
	if err := o.Client.List(ctx, &jobs, opts...); err != nil {
		return nil, fmt.Errorf("list FlinkSessionJobs: %w", err)
	}
	return jobs.Items, nil
}

// leftovers names what deletion still waits for, as the cache shows it: d's Services and
// ConfigMaps (their metadata, read by name: a list by label would scan every Service of the namespace, once
// per deletion pass) and its JobManager pods.
func (o *Observer) leftovers(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]string, error) {
	var out []string
	for _, x := range []struct {
		kind, name string
		obj        client.Object
	}{
		{"service", act.InternalServiceName(d.Name), act.ServiceMetadata(d.Namespace, act.InternalServiceName(d.Name))},
		{"service", act.RESTServiceName(d.Name), act.ServiceMetadata(d.Namespace, act.RESTServiceName(d.Name))},
		{"configmap", act.AutoscalerConfigMapName(d.Name), act.ConfigMapMetadata(d.Namespace, act.AutoscalerConfigMapName(d.Name))},
		{"configmap", act.ConfigMapName(d.Name), act.ConfigMapMetadata(d.Namespace, act.ConfigMapName(d.Name))},
	} {
		err := o.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: x.name}, x.obj)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get %s/%s: %w", x.kind, x.name, err)
		}
		if metav1.IsControlledBy(x.obj, d) {
			out = append(out, x.kind+"/"+x.name)
		}
	}
	// A JobManager pod that is still shutting down may write HA metadata after it was deleted:
	// deletion waits for those pods, so that its last pass removes what they wrote.
	pods := act.PodMetadataList()
	if err := o.Lister.List(ctx, o.Client, pods, d.Namespace, act.JobManagerPods(d.Name)); err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		out = append(out, "pod/"+p.Name)
	}
	return out, nil
}

// leftoversPastCache reads past the cache, by name, the objects of d's cluster that deletion
// removes, once the cache shows none left and nothing else holds the deletion: an informer
// that has not yet seen one (created a moment before the deletion) must not let the finalizer
// go while it stays behind. It reads metadata only, and counts only objects the cache will
// hold once it catches up (act.CachedLabels), which deletion then removes; one the cache never
// holds (a flink-config ConfigMap of an older Flinkop, without Flink's type label) is left to
// Kubernetes' garbage collection through its owner reference, or it would hold the deletion
// forever. Six reads by name, once per deletion that is about to finish, and none for a
// resource that never recorded a spec.
func (o *Observer) leftoversPastCache(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]string, error) {
	if o.Reader == nil {
		return nil, nil
	}
	objs := []struct {
		name  string
		typed client.Object // its kind's CachedLabels
		gvk   schema.GroupVersionKind
	}{
		{act.ConfigMapName(d.Name), &corev1.ConfigMap{}, corev1.SchemeGroupVersion.WithKind("ConfigMap")},
		{act.AutoscalerConfigMapName(d.Name), &corev1.ConfigMap{}, corev1.SchemeGroupVersion.WithKind("ConfigMap")},
		{act.JobManagerName(d.Name), &appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithKind("Deployment")},
		{act.TaskManagerName(d.Name), &appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithKind("Deployment")},
		{act.RESTServiceName(d.Name), &corev1.Service{}, corev1.SchemeGroupVersion.WithKind("Service")},
		{act.InternalServiceName(d.Name), &corev1.Service{}, corev1.SchemeGroupVersion.WithKind("Service")},
	}
	var out []string
	for _, x := range objs {
		kind := strings.ToLower(x.gvk.Kind)
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(x.gvk)
		err := o.Reader.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: x.name}, m)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get %s/%s past the cache: %w", kind, x.name, err)
		}
		x.typed.SetLabels(m.Labels)
		if act.Cached(x.typed) && m.DeletionTimestamp == nil && metav1.IsControlledBy(m, d) {
			out = append(out, kind+"/"+x.name)
		}
	}
	return out, nil
}
