package act

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Flink's HA ConfigMaps carry no mark of the resource whose JobManagers wrote them, only the
// cluster id (the resource's name) in a label; another Flink cluster in the namespace may use
// the same id. So the operator treats them as the resource's only while the resource has a
// cluster of its own (its flink-config ConfigMap or its JobManager Deployment exists): it
// never deletes them otherwise, and never deploys a first cluster next to HA metadata that
// is already there.

// OwnsCluster reports whether d has a cluster of its own: its flink-config ConfigMap or its
// JobManager Deployment, controlled by d. Only then are the HA ConfigMaps of its cluster id
// its own.
func OwnsCluster(ctx context.Context, c client.Reader, d *flinkv1beta1.FlinkDeployment) (bool, error) {
	jm := &appsv1.Deployment{}
	jm.Namespace, jm.Name = d.Namespace, JobManagerName(d.Name)
	for _, obj := range []client.Object{cm(d.Namespace, ConfigMapName(d.Name)), jm} {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		switch {
		case err == nil && controlledBy(obj, d.UID):
			return true, nil
		case err != nil && !apierrors.IsNotFound(err):
			return false, wrap("get "+describe(obj), err)
		}
	}
	return false, nil
}

// precheck refuses a deploy before it writes anything: when one of the objects to apply
// exists with the operator's labels and is another resource's, or when d has no cluster of its own yet and HA metadata of its
// cluster id is already there (another cluster's, which a new JobManager would join).
func (e *Executor) precheck(ctx context.Context, d *flinkv1beta1.FlinkDeployment, objs []client.Object) error {
	for _, obj := range objs {
		existing := asCached(obj)
		// The cache holds only labelled objects. An unlabelled one of the same name is found
		// by apply instead: its create fails with AlreadyExists, apply reads it past the
		// cache and refuses it. (Reading every object of every first deploy past the cache
		// here would spend the API budget a fleet needs.)
		err := e.Client.Get(ctx, client.ObjectKeyFromObject(obj), existing)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return wrap("get "+describe(obj), err)
		}
		if err := checkControlled(existing, controllerUID(obj)); err != nil {
			return err
		}
	}
	owns, err := OwnsCluster(ctx, e.Client, d)
	if err != nil || owns {
		return err
	}
	var cms corev1.ConfigMapList
	if err := e.Lister.List(ctx, e.Client, &cms, d.Namespace, e.HASelector(d)); err != nil {
		return wrap("list HA ConfigMaps", err)
	}
	name := ""
	if len(cms.Items) > 0 {
		name = cms.Items[0].Name
	} else {
		// A JobManager joins its cluster's ConfigMap by name, whatever its labels: one the
		// cache cannot see (not labelled as Flink labels it) is read past it, once per deploy
		// while the cache shows no cluster of the resource's own.
		leader := cm(d.Namespace, HAClusterConfigMapName(d.Name))
		err := e.reader().Get(ctx, client.ObjectKeyFromObject(leader), leader)
		if err != nil && !apierrors.IsNotFound(err) {
			return wrap("get "+describe(leader), err)
		}
		if err == nil {
			name = leader.Name
		}
	}
	if name != "" {
		// The cache may not have seen the resource's own cluster yet (a deploy that failed
		// part-way, retried before its informers caught up): ask the API server before refusing.
		if owns, err := OwnsCluster(ctx, e.reader(), d); err != nil || owns {
			return err
		}
		return fmt.Errorf("HA ConfigMap %s %w (this resource has no cluster yet; another Flink cluster in the namespace uses cluster id %s): remove it or rename the resource",
			name, ErrNotOwned, d.Name)
	}
	return nil
}

// deleteHA deletes d's HA ConfigMaps, only while d has a cluster of its own. It deletes those
// the cache shows (it holds every ConfigMap with Flink's labels), one by one, each only if it
// is still the object the cache saw. A delete by label selector would have the API server
// read every ConfigMap of the namespace from etcd, for every cluster deleted: in an upgrade
// wave of 10,000 deployments in one namespace, etcd grew past 10 GB within two minutes and
// stopped answering.
func (e *Executor) deleteHA(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	var cms corev1.ConfigMapList
	if err := e.Lister.List(ctx, e.Client, &cms, d.Namespace, e.HASelector(d)); err != nil {
		return wrap("list HA ConfigMaps", err)
	}
	if len(cms.Items) == 0 {
		return nil
	}
	// Past the cache: a flink-config ConfigMap created a moment ago is d's all the same.
	if owns, err := OwnsCluster(ctx, e.reader(), d); err != nil || !owns {
		return err
	}
	for i := range cms.Items {
		c := &cms.Items[i]
		if c.DeletionTimestamp != nil {
			continue
		}
		err := client.IgnoreNotFound(e.Client.Delete(ctx, c, client.Preconditions{UID: &c.UID}))
		if err != nil && !apierrors.IsConflict(err) { // a conflict: replaced meanwhile, not the one seen
			return wrap("delete HA ConfigMap "+c.Name, err)
		}
	}
	return nil
}

// deleteHAPastCache deletes d's HA ConfigMaps that the cache may not have seen yet, by name:
// its cluster's and its job's (the job in status), read past the cache, each deleted when it
// carries Flink's HA labels of d's cluster id. Deletion does it once its JobManagers are gone,
// right before it deletes the flink-config ConfigMap (after which HA metadata is no longer
// known to be d's), so that metadata a JobManager wrote just before it stopped is not left
// for a new resource of the same name to recover from. Three reads by name, once.
func (e *Executor) deleteHAPastCache(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	if owns, err := OwnsCluster(ctx, e.reader(), d); err != nil || !owns {
		return err
	}
	names := []string{HAClusterConfigMapName(d.Name)}
	if id := d.Status.JobStatus.JobID; id != "" {
		names = append(names, HAJobConfigMapName(d.Name, id))
	}
	flinks := labels.SelectorFromSet(labels.Set(e.HASelector(d)))
	for _, name := range names {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
		err := e.reader().Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: name}, m)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return wrap("get HA ConfigMap "+name+" past the cache", err)
		}
		if m.DeletionTimestamp != nil || !flinks.Matches(labels.Set(m.Labels)) {
			continue
		}
		err = client.IgnoreNotFound(e.Client.Delete(ctx, cm(d.Namespace, name), client.Preconditions{UID: &m.UID}))
		if err != nil && !apierrors.IsConflict(err) {
			return wrap("delete HA ConfigMap "+name, err)
		}
	}
	return nil
}

// podsLeft reports whether JobManager pods of d's cluster are still there (terminating
// JobManagers may still write HA metadata, so the flink-config ConfigMap, which marks the
// cluster as d's, goes last). TaskManagers never write HA metadata, and the manager's cache
// holds no TaskManager pods.
func (e *Executor) podsLeft(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (bool, error) {
	pods := PodMetadataList()
	err := e.Lister.List(ctx, e.Client, pods, d.Namespace, JobManagerPods(d.Name))
	return len(pods.Items) > 0, wrap("list pods", err)
}
