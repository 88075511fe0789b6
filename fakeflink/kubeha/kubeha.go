// Package kubeha keeps fakeflink's HA metadata in Kubernetes ConfigMaps with the names, labels
// and data keys of Flink's Kubernetes HA services: the harness's pod simulator and the
// fakeflink image (through the in-cluster API, under the Flink ServiceAccount) both use it.
package kubeha

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
)

// The labels Flink's Kubernetes HA services put on their ConfigMaps (Flink's
// org.apache.flink.kubernetes.utils.Constants: LABEL_APP_KEY, LABEL_TYPE_KEY with
// LABEL_TYPE_NATIVE_TYPE, LABEL_CONFIGMAP_TYPE_KEY with LABEL_CONFIGMAP_TYPE_HIGH_AVAILABILITY).
// Spelled here, not taken from the operator: the operator's selector must match what Flink
// writes, and a misread label must not hide in shared code.
const (
	LabelApp           = "app"
	LabelType          = "type"
	TypeNative         = "flink-native-kubernetes"
	LabelConfigMapType = "configmap-type"
	ConfigMapTypeHA    = "high-availability"
)

// Flink's layout (Kubernetes HA services since Flink 1.15):
//   - <cluster-id>-cluster-config-map holds the cluster's job graphs, one key per job:
//     jobGraph-<job-id> (executionPlan-<job-id> from Flink 2.0, also read here);
//   - <cluster-id>-<job-id>-config-map holds the job's completed checkpoints, one key per
//     checkpoint, checkpointID-<id as 19 digits>, and the checkpoint id counter, counter.
//
// Flink stores serialized state handles pointing into high-availability.storageDir under
// those keys; the fake stores base64-encoded JSON of what it needs instead.
const (
	JobGraphKeyPrefix      = "jobGraph-"
	ExecutionPlanKeyPrefix = "executionPlan-"
	CheckpointIDKeyPrefix  = "checkpointID-"
	CounterKey             = "counter"
)

// ClusterConfigMapName is the name of a cluster's HA ConfigMap.
func ClusterConfigMapName(clusterID string) string { return clusterID + "-cluster-config-map" }

// JobConfigMapName is the name of a job's HA ConfigMap.
func JobConfigMapName(clusterID, jobID string) string {
	return fmt.Sprintf("%s-%s-config-map", clusterID, jobID)
}

// CheckpointKey is the data key of a completed checkpoint.
func CheckpointKey(id int64) string { return fmt.Sprintf("%s%019d", CheckpointIDKeyPrefix, id) }

// ConfigMapHA keeps fakeflink's HA metadata in ConfigMaps labelled as Flink's Kubernetes HA
// services label theirs (app=<cluster-id>, configmap-type=high-availability,
// type=flink-native-kubernetes), so "HA metadata missing" is a Kubernetes-level fault and the
// operator sees what it would see. The ConfigMaps live in the namespace of the cluster.
type ConfigMapHA struct {
	Client client.Client
	// Namespace is where the cluster's HA ConfigMaps live.
	Namespace string
}

var _ fakeflink.HAStore = (*ConfigMapHA)(nil)

type checkpointHandle struct {
	Path string `json:"path"`
}

func encode(v any) (string, error) {
	data, err := json.Marshal(v)
	return base64.StdEncoding.EncodeToString(data), err
}

func decode(s string, v any) error {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Load implements fakeflink.HAStore: the jobs with a job graph, each with the latest
// checkpoint of its job ConfigMap. As Flink does, it reads the ConfigMaps by name, whatever
// their labels.
func (h *ConfigMapHA) Load(clusterID string) (map[string]fakeflink.HAJob, error) {
	ctx := context.Background()
	get := func(name string) (*corev1.ConfigMap, error) {
		var cm corev1.ConfigMap
		err := h.Client.Get(ctx, client.ObjectKey{Namespace: h.Namespace, Name: name}, &cm)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return &cm, err
	}
	out := map[string]fakeflink.HAJob{}
	cluster, err := get(ClusterConfigMapName(clusterID))
	if err != nil || cluster == nil {
		return out, err
	}
	for key, value := range cluster.Data {
		jobID, ok := strings.CutPrefix(key, JobGraphKeyPrefix)
		if !ok {
			jobID, ok = strings.CutPrefix(key, ExecutionPlanKeyPrefix)
		}
		if !ok {
			continue
		}
		j := fakeflink.HAJob{JobID: jobID}
		if err := decode(value, &j.Program); err != nil {
			return nil, fmt.Errorf("HA ConfigMap %s key %s: %w", cluster.Name, key, err)
		}
		cm, err := get(JobConfigMapName(clusterID, jobID))
		if err != nil {
			return nil, err
		}
		if cm != nil {
			if err := latestCheckpoint(cm, &j); err != nil {
				return nil, err
			}
		}
		out[jobID] = j
	}
	return out, nil
}

// latestCheckpoint reads the highest checkpointID- key of a job ConfigMap into j.
func latestCheckpoint(cm *corev1.ConfigMap, j *fakeflink.HAJob) error {
	for key, value := range cm.Data {
		s, ok := strings.CutPrefix(key, CheckpointIDKeyPrefix)
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= j.CheckpointID {
			continue
		}
		var handle checkpointHandle
		if err := decode(value, &handle); err != nil {
			return fmt.Errorf("HA ConfigMap %s key %s: %w", cm.Name, key, err)
		}
		j.CheckpointID, j.CheckpointPath = id, handle.Path
	}
	return nil
}

// Save implements fakeflink.HAStore: the job graph in the cluster ConfigMap, the latest
// checkpoint and the counter in the job's ConfigMap (Flink keeps the retained checkpoints;
// the fake keeps the latest, the one recovery uses).
func (h *ConfigMapHA) Save(clusterID string, job fakeflink.HAJob) error {
	graph, err := encode(job.Program)
	if err != nil {
		return err
	}
	if err := h.update(ClusterConfigMapName(clusterID), clusterID, func(data map[string]string) {
		data[JobGraphKeyPrefix+job.JobID] = graph
	}); err != nil {
		return err
	}
	jobData := map[string]string{CounterKey: strconv.FormatInt(job.CheckpointID+1, 10)}
	if job.CheckpointID > 0 {
		handle, err := encode(checkpointHandle{Path: job.CheckpointPath})
		if err != nil {
			return err
		}
		jobData[CheckpointKey(job.CheckpointID)] = handle
	}
	return h.update(JobConfigMapName(clusterID, job.JobID), clusterID, func(data map[string]string) {
		clear(data)
		for k, v := range jobData {
			data[k] = v
		}
	})
}

// update creates or changes one HA ConfigMap, retrying on conflicts (a session cluster's jobs
// share the cluster ConfigMap).
func (h *ConfigMapHA) update(name, clusterID string, change func(map[string]string)) error {
	ctx := context.Background()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cm corev1.ConfigMap
		err := h.Client.Get(ctx, client.ObjectKey{Namespace: h.Namespace, Name: name}, &cm)
		if apierrors.IsNotFound(err) {
			cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: h.Namespace, Name: name,
				Labels: map[string]string{LabelApp: clusterID, LabelConfigMapType: ConfigMapTypeHA, LabelType: TypeNative},
			}, Data: map[string]string{}}
			change(cm.Data)
			err = h.Client.Create(ctx, &cm)
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(corev1.Resource("configmaps"), name, err)
			}
			return err
		}
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		change(cm.Data)
		return h.Client.Update(ctx, &cm)
	})
}

// Remove implements fakeflink.HAStore: the job's ConfigMap and its job graph go.
func (h *ConfigMapHA) Remove(clusterID, jobID string) error {
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.Namespace, Name: JobConfigMapName(clusterID, jobID)}}
	if err := client.IgnoreNotFound(h.Client.Delete(ctx, cm)); err != nil {
		return err
	}
	return client.IgnoreNotFound(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cluster corev1.ConfigMap
		if err := h.Client.Get(ctx, client.ObjectKey{Namespace: h.Namespace, Name: ClusterConfigMapName(clusterID)}, &cluster); err != nil {
			return err
		}
		delete(cluster.Data, JobGraphKeyPrefix+jobID)
		delete(cluster.Data, ExecutionPlanKeyPrefix+jobID)
		return h.Client.Update(ctx, &cluster)
	}))
}
