package act

import (
	"context"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
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
	for _, obj := range []client.Object{ConfigMapMetadata(d.Namespace, ConfigMapName(d.Name)), jm} {
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
	cms := ConfigMapMetadataList()
	if err := e.Lister.List(ctx, e.Client, cms, d.Namespace, e.HASelector(d)); err != nil {
		return wrap("list HA ConfigMaps", err)
	}
	name := ""
	if len(cms.Items) > 0 {
		name = cms.Items[0].Name
	} else {
		// A JobManager joins its cluster's ConfigMap by name, whatever its labels: one the
		// cache cannot see (not labelled as Flink labels it) is read past it, once per deploy
		// while the cache shows no cluster of the resource's own.
		leader := ConfigMapMetadata(d.Namespace, HAClusterConfigMapName(d.Name))
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

// deleteHA deletes d's HA ConfigMaps, only while d has a cluster of its own: those the cache
// shows (it holds every ConfigMap with Flink's labels), and its cluster's and its job's (the
// job in status) read past the cache by name, which a JobManager may have written a moment
// before the cache could show them; each only when it carries Flink's HA labels of d's cluster
// id, and only if it is still the object read (a UID precondition; one replaced meanwhile is
// read again). Never by a collection delete: a delete by label selector has the API server
// scan every ConfigMap of the namespace for every cluster deleted, and read them all from etcd
// when its watch cache lags etcd by over 3 s (as under load). In an upgrade wave of 10,000
// deployments in one namespace, etcd grew past 10 GB within two minutes and stopped answering.
// Two reads by name past the cache per call, two more when there is something to delete.
func (e *Executor) deleteHA(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	cms := ConfigMapMetadataList()
	if err := e.Lister.List(ctx, e.Client, cms, d.Namespace, e.HASelector(d)); err != nil {
		return wrap("list HA ConfigMaps", err)
	}
	found := map[string]types.UID{}
	for i := range cms.Items {
		if c := &cms.Items[i]; c.DeletionTimestamp == nil {
			found[c.Name] = c.UID
		}
	}
	for _, name := range haNames(d) {
		if _, seen := found[name]; seen || e.Reader == nil {
			continue
		}
		uid, ok, err := e.haConfigMapPastCache(ctx, d, name)
		if err != nil {
			return err
		}
		if ok {
			found[name] = uid
		}
	}
	if len(found) == 0 {
		return nil
	}
	// Past the cache: a flink-config ConfigMap created a moment ago is d's all the same.
	if owns, err := OwnsCluster(ctx, e.reader(), d); err != nil || !owns {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(found)) {
		if err := e.deleteHAConfigMap(ctx, d, name, found[name]); err != nil {
			return err
		}
	}
	return nil
}

// haNames are the HA ConfigMaps of d's cluster id that Flink names for the cluster and for
// the job in d's status.
func haNames(d *flinkv1beta1.FlinkDeployment) []string {
	names := []string{HAClusterConfigMapName(d.Name)}
	if id := d.Status.JobStatus.JobID; id != "" {
		names = append(names, HAJobConfigMapName(d.Name, id))
	}
	return names
}

// haConfigMapPastCache reads ConfigMap name's metadata past the cache and returns its UID when
// it is there with Flink's HA labels of d's cluster id and not being deleted.
func (e *Executor) haConfigMapPastCache(ctx context.Context, d *flinkv1beta1.FlinkDeployment, name string) (types.UID, bool, error) {
	m := ConfigMapMetadata(d.Namespace, name)
	err := e.reader().Get(ctx, client.ObjectKeyFromObject(m), m)
	switch {
	case apierrors.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, wrap("get HA ConfigMap "+name+" past the cache", err)
	case m.DeletionTimestamp != nil || !labels.SelectorFromSet(labels.Set(e.HASelector(d))).Matches(labels.Set(m.Labels)):
		return "", false, nil
	}
	return m.UID, true, nil
}

// deleteHAConfigMap deletes HA ConfigMap name if it is still uid; one replaced meanwhile (a
// JobManager still stopping wrote it anew) is read again past the cache and deleted once more
// when it is still d's HA metadata.
func (e *Executor) deleteHAConfigMap(ctx context.Context, d *flinkv1beta1.FlinkDeployment, name string, uid types.UID) error {
	for range 2 {
		err := client.IgnoreNotFound(e.Client.Delete(ctx, cm(d.Namespace, name), client.Preconditions{UID: &uid}))
		if !apierrors.IsConflict(err) {
			return wrap("delete HA ConfigMap "+name, err)
		}
		if e.Reader == nil {
			break
		}
		var still bool
		if uid, still, err = e.haConfigMapPastCache(ctx, d, name); err != nil || !still {
			return err
		}
	}
	return fmt.Errorf("delete HA ConfigMap %s: replaced while being deleted", name)
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
