package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
)

// A JobManager process with Kubernetes HA and file:// directories that is replaced by a new
// process (a deleted pod) recovers its job from the checkpoint the HA ConfigMap points at,
// read back from the volume, at the checkpoint's exact offset.
func TestJobManagerProcessRecoversFromConfigMapsAndVolume(t *testing.T) {
	t.Setenv("FLINK_PROPERTIES", "")
	data := t.TempDir()
	kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	jobID := strings.Repeat("cd", 16)
	start := func(seed string) (*jobManager, *httptest.Server) {
		t.Helper()
		o, err := parseFlags("standalone-job", []string{
			"--conf-dir", t.TempDir(), "--seed", seed, "--job-id", jobID,
			"-D", "kubernetes.cluster-id=app", "-D", "kubernetes.namespace=flink",
			"-D", "high-availability.type=kubernetes", "-D", "high-availability.storageDir=file://" + data + "/ha",
			"-D", "state.checkpoints.dir=file://" + data + "/checkpoints", "-D", "execution.checkpointing.interval=10s",
		})
		if err != nil {
			t.Fatal(err)
		}
		d, err := openDurable(o.conf, io.Discard, func() (client.Client, error) { return kube, nil })
		if err != nil {
			t.Fatal(err)
		}
		jm, err := newJobManager(o, clk, d)
		if err != nil {
			t.Fatal(err)
		}
		srv, rpc := httptest.NewServer(jm.handler()), httptest.NewServer(jm.taskManagerHandler())
		t.Cleanup(srv.Close)
		t.Cleanup(rpc.Close)
		if !heartbeat(context.Background(), rpc.Client(), rpc.URL+"/fakeflink/taskmanagers/tm-1?slots=1") {
			t.Fatal("TaskManager registration failed")
		}
		return jm, srv
	}

	jm, srv := start("1")
	for range 25 {
		clk.Step(time.Second)
		jm.tick()
	}
	before := jobStateOf(t, srv)
	if before.Status != fakeflink.StatusRunning {
		t.Fatalf("job %s before the restart, want RUNNING", before.Status)
	}
	var cms corev1.ConfigMapList
	if err := kube.List(context.Background(), &cms, client.InNamespace("flink"), client.MatchingLabels{"app": "app", "configmap-type": "high-availability"}); err != nil || len(cms.Items) != 2 {
		t.Fatalf("HA ConfigMaps in namespace flink: %d, %v; want the cluster's and the job's", len(cms.Items), err)
	}
	srv.Close()

	jm2, srv2 := start("2") // the pod was deleted: a new process, nothing in memory
	for range 3 {
		clk.Step(time.Second)
		jm2.tick()
	}
	after := jobStateOf(t, srv2)
	if after.Status != fakeflink.StatusRunning || after.Restored == nil {
		t.Fatalf("job after the restart: %+v, want RUNNING from a checkpoint", after)
	}
	if want := "file://" + data + "/checkpoints/" + jobID + "/chk-2"; after.Restored.Path != want || after.Restored.Offset != 2000 || after.StartOffset != 2000 {
		t.Errorf("restored %s at offset %d, started at %d; want %s at 2000", after.Restored.Path, after.Restored.Offset, after.StartOffset, want)
	}
}

func TestOpenDurableRefusesOtherHATypes(t *testing.T) {
	_, err := openDurable(map[string]string{"high-availability.type": "zookeeper"}, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "supports kubernetes") {
		t.Errorf("zookeeper HA: %v, want a refusal", err)
	}
}

func jobStateOf(t *testing.T, srv *httptest.Server) fakeflink.JobReport {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/fakeflink/jobs/" + strings.Repeat("cd", 16))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /fakeflink/jobs: %s", resp.Status)
	}
	var st fakeflink.JobReport
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
