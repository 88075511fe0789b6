// Package kubeha keeps fakeflink's HA metadata in Kubernetes ConfigMaps, as Flink's
// Kubernetes HA services do: the harness's pod simulator and the fakeflink image (through the
// in-cluster API, under the Flink ServiceAccount) both use it.
package kubeha

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/observe"
)

// ConfigMapHA keeps fakeflink's HA metadata in ConfigMaps labelled as Flink's Kubernetes HA
// services label theirs (app=<cluster-id>, configmap-type=high-availability), one per job, so
// "HA metadata missing" is a Kubernetes-level fault and the operator sees what it would see.
// The ConfigMaps live in the namespace of the cluster.
type ConfigMapHA struct {
	Client client.Client
	// Namespace is where the cluster's HA ConfigMaps live.
	Namespace string
}

const haDataKey = "fakeflink-job"

var _ fakeflink.HAStore = (*ConfigMapHA)(nil)

func (h *ConfigMapHA) ns(string) string { return h.Namespace }

// Load implements fakeflink.HAStore.
func (h *ConfigMapHA) Load(clusterID string) (map[string]fakeflink.HAJob, error) {
	var cms corev1.ConfigMapList
	err := h.Client.List(context.Background(), &cms, client.InNamespace(h.ns(clusterID)),
		client.MatchingLabels{act.LabelApp: clusterID, observe.LabelHAConfigMapType: observe.HAConfigMapType})
	if err != nil {
		return nil, err
	}
	out := map[string]fakeflink.HAJob{}
	for _, cm := range cms.Items {
		var j fakeflink.HAJob
		if err := json.Unmarshal([]byte(cm.Data[haDataKey]), &j); err != nil {
			return nil, fmt.Errorf("HA ConfigMap %s: %w", cm.Name, err)
		}
		out[j.JobID] = j
	}
	return out, nil
}

// Save implements fakeflink.HAStore.
func (h *ConfigMapHA) Save(clusterID string, job fakeflink.HAJob) error {
	data, err := json.Marshal(job)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: h.ns(clusterID), Name: fmt.Sprintf("%s-%s-config-map", clusterID, job.JobID),
		Labels: map[string]string{act.LabelApp: clusterID, observe.LabelHAConfigMapType: observe.HAConfigMapType, "type": "flink-native-kubernetes"},
	}}
	var existing corev1.ConfigMap
	err = h.Client.Get(ctx, client.ObjectKeyFromObject(cm), &existing)
	if apierrors.IsNotFound(err) {
		cm.Data = map[string]string{haDataKey: string(data)}
		return h.Client.Create(ctx, cm)
	}
	if err != nil {
		return err
	}
	existing.Data = map[string]string{haDataKey: string(data)}
	return h.Client.Update(ctx, &existing)
}

// Remove implements fakeflink.HAStore.
func (h *ConfigMapHA) Remove(clusterID, jobID string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns(clusterID), Name: fmt.Sprintf("%s-%s-config-map", clusterID, jobID)}}
	return client.IgnoreNotFound(h.Client.Delete(context.Background(), cm))
}
