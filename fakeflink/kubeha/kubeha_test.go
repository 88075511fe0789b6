package kubeha

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/observe"
)

const job = "00000000000000000000000000000001"

func TestFlinkLayout(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	ha := &ConfigMapHA{Client: c, Namespace: "ns"}
	prog := fakeflink.Program{Name: "orders", Parallelism: 2}
	if err := ha.Save("orders", fakeflink.HAJob{JobID: job, Program: prog}); err != nil {
		t.Fatal(err)
	}
	jobCM := get(t, c, JobConfigMapName("orders", job))
	if diff := cmp.Diff(map[string]string{CounterKey: "1"}, jobCM.Data); diff != "" {
		t.Errorf("job ConfigMap before the first checkpoint (-want +got):\n%s", diff)
	}
	if !observe.IsJobHAConfigMap(jobCM) {
		t.Error("the operator does not count the job ConfigMap as HA metadata")
	}
	cluster := get(t, c, ClusterConfigMapName("orders"))
	if _, ok := cluster.Data[JobGraphKeyPrefix+job]; !ok || observe.IsJobHAConfigMap(cluster) {
		t.Errorf("cluster ConfigMap %v: want the job graph key, and not HA metadata of a job on its own", cluster.Data)
	}

	if err := ha.Save("orders", fakeflink.HAJob{JobID: job, Program: prog, CheckpointID: 12, CheckpointPath: "file:///cp/chk-12"}); err != nil {
		t.Fatal(err)
	}
	jobCM = get(t, c, JobConfigMapName("orders", job))
	if _, ok := jobCM.Data["checkpointID-0000000000000000012"]; !ok || jobCM.Data[CounterKey] != "13" {
		t.Errorf("job ConfigMap after checkpoint 12: %v", jobCM.Data)
	}
	got, err := ha.Load("orders")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fakeflink.HAJob{job: {JobID: job, Program: prog, CheckpointID: 12, CheckpointPath: "file:///cp/chk-12"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	// As Flink, it reads them by name: ConfigMaps that lost their labels still count.
	for _, name := range []string{ClusterConfigMapName("orders"), JobConfigMapName("orders", job)} {
		cm := get(t, c, name)
		cm.Labels = nil
		if err := c.Update(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ha.Load("orders"); err != nil || cmp.Diff(want, got) != "" {
		t.Errorf("Load of unlabelled ConfigMaps: %v, %v", got, err)
	}

	if err := ha.Remove("orders", job); err != nil {
		t.Fatal(err)
	}
	if got, err := ha.Load("orders"); err != nil || len(got) != 0 {
		t.Errorf("after Remove: %v, %v", got, err)
	}
}

func get(t *testing.T, c client.Client, name string) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: name}, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["app"] != "orders" || cm.Labels["configmap-type"] != "high-availability" || cm.Labels["type"] != "flink-native-kubernetes" {
		t.Errorf("%s labels %v, want Flink's", name, cm.Labels)
	}
	return &cm
}
