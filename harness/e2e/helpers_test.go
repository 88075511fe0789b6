//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// poll is how often the tests look; every wait is bounded by its own timeout.
const poll = time.Second

// newDeployment creates examples/fakeflink-ha.yaml (an application on the fakeflink image with
// Kubernetes HA and its state on a hostPath volume) as name with the given upgrade mode, after
// edit changed it; it registers the deletion (checking that nothing is left) and a dump on
// failure.
func newDeployment(t *testing.T, name string, mode flinkv1beta1.UpgradeMode, edit func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	t.Helper()
	d := fakeflinkHA(t, name, mode)
	d.Name, d.Namespace = name, jobNS
	if edit != nil {
		edit(d)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dump(t, name)
		}
		deleteAndCheckNothingLeft(t, d)
	})
	create(t, d)
	return d
}

// create creates obj, retrying for up to a minute the API server's transient refusals (a
// timeout, 429, 500 or 503 on a loaded CI machine: etcd's "request timed out" is a 500), each
// logged; any other error fails the test with the kind and name. A retry that finds the object
// stored by the attempt that timed out takes it as created (each test's names are its own).
func create(t *testing.T, obj client.Object) {
	t.Helper()
	kind := fmt.Sprintf("%T", obj)
	for attempt := 1; ; attempt++ {
		err := env.client.Create(context.Background(), obj)
		switch {
		case err == nil:
			return
		case attempt > 1 && apierrors.IsAlreadyExists(err):
			// The attempt that timed out stored it; read it back (uid, resourceVersion).
			if err := env.client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
				t.Fatalf("create %s %s: read back: %v", kind, obj.GetName(), err)
			}
			t.Logf("create %s %s: stored by the attempt that timed out", kind, obj.GetName())
			return
		case attempt < 12 && (apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)):
			t.Logf("create %s %s (attempt %d): %v; retrying", kind, obj.GetName(), attempt, err)
			time.Sleep(5 * time.Second)
		default:
			t.Fatalf("create %s %s: %v", kind, obj.GetName(), err)
		}
	}
}

// fakeflinkHA reads examples/fakeflink-ha.yaml with the given upgrade mode and its state on a
// fresh hostPath volume named after volume.
func fakeflinkHA(t *testing.T, volume string, mode flinkv1beta1.UpgradeMode) *flinkv1beta1.FlinkDeployment {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(env.root, "examples", "fakeflink-ha.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := &flinkv1beta1.FlinkDeployment{}
	if err := yaml.UnmarshalStrict(data, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Job.UpgradeMode = mode
	d.Spec.PodTemplate.Spec.Volumes[0].HostPath.Path = "/tmp/flinkop-e2e/" + volume
	return d
}

// waitFor polls the object until cond holds (it gets the fresh object) or timeout passes.
func waitFor[T client.Object](t *testing.T, obj T, what string, timeout time.Duration, cond func(T) bool) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	var last error
	for {
		err := env.client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if err == nil && cond(obj) {
			step("%s: %s after %s", obj.GetName(), what, time.Since(start).Round(time.Second))
			return obj
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not %s within %s (last error: %v); last seen:\n%s", obj.GetName(), what, timeout, last, statusYAML(obj))
		case <-time.After(poll):
		}
	}
}

// running waits until, for the current generation, the JobManager is READY, the job RUNNING and
// the lifecycle STABLE, and returns the deployment.
func running(t *testing.T, d *flinkv1beta1.FlinkDeployment, timeout time.Duration) *flinkv1beta1.FlinkDeployment {
	t.Helper()
	return waitFor(t, d, "RUNNING and STABLE", timeout, func(d *flinkv1beta1.FlinkDeployment) bool {
		s := d.Status
		return s.ObservedGeneration == d.Generation && s.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			s.LifecycleState == flinkv1beta1.LifecycleStable && s.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	})
}

// update applies change to the fresh object, retrying on conflicts.
func update[T client.Object](t *testing.T, obj T, change func(T)) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		if err := env.client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		change(obj)
		err := env.client.Update(ctx, obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("update %s: %v", obj.GetName(), err)
		}
	}
	t.Fatalf("update %s: conflicts kept coming", obj.GetName())
}

// fakeJob asks the deployment's JobManager, through the API server's service proxy, for the
// job's offset and the snapshot it restored.
func fakeJob(t *testing.T, name, jobID string) fakeflink.JobReport {
	t.Helper()
	st, err := askFakeJob(name, jobID)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func askFakeJob(name, jobID string) (fakeflink.JobReport, error) {
	var st fakeflink.JobReport
	raw, err := env.clientset.CoreV1().Services(jobNS).
		ProxyGet("http", act.RESTServiceName(name), "rest", "/fakeflink/jobs/"+jobID, nil).
		DoRaw(context.Background())
	if err != nil {
		return st, fmt.Errorf("GET /fakeflink/jobs/%s of %s: %w", jobID, name, err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("decode %s: %w", raw, err)
	}
	return st, nil
}

// deleteAndCheckNothingLeft deletes the deployment, waits until it is gone, and checks that no
// Deployment, Service, ConfigMap or pod of it is left behind.
func deleteAndCheckNothingLeft(t *testing.T, d *flinkv1beta1.FlinkDeployment) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := env.client.Delete(ctx, d); client.IgnoreNotFound(err) != nil {
		t.Errorf("delete %s: %v", d.Name, err)
		return
	}
	for {
		err := env.client.Get(ctx, client.ObjectKeyFromObject(d), &flinkv1beta1.FlinkDeployment{})
		if apierrors.IsNotFound(err) {
			break
		}
		select {
		case <-ctx.Done():
			t.Errorf("%s still exists 2 minutes after its deletion:\n%s", d.Name, statusYAML(d))
			dump(t, d.Name)
			return
		case <-time.After(poll):
		}
	}
	left := leftovers(ctx, d.Name)
	for len(left) > 0 && ctx.Err() == nil { // pods terminate after their owners are gone
		time.Sleep(poll)
		left = leftovers(ctx, d.Name)
	}
	if len(left) > 0 {
		t.Errorf("left behind after deleting %s: %s", d.Name, strings.Join(left, ", "))
	}
}

// leftovers lists the objects of a deployment still in the namespace: those labelled
// app=<name> (what Flinkop renders and Flink's HA ConfigMaps) and the objects named after it.
func leftovers(ctx context.Context, name string) []string {
	var out []string
	sel := client.MatchingLabels{act.LabelApp: name}
	lists := map[string]client.ObjectList{
		"Deployment": &appsv1.DeploymentList{}, "Service": &corev1.ServiceList{}, "ConfigMap": &corev1.ConfigMapList{}, "Pod": &corev1.PodList{},
	}
	for kind, list := range lists {
		if err := env.client.List(ctx, list, client.InNamespace(jobNS), sel); err != nil {
			return []string{fmt.Sprintf("%s list: %v", kind, err)}
		}
		out = append(out, names(kind, list)...)
	}
	return out
}

// statusYAML renders an object's status for a failure message.
func statusYAML(obj client.Object) string {
	out, err := yaml.Marshal(obj)
	if err != nil {
		return err.Error()
	}
	if _, status, ok := strings.Cut(string(out), "\nstatus:"); ok {
		return "status:" + status
	}
	return string(out)
}
