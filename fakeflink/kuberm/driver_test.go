package kuberm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

func testConf() map[string]string {
	return map[string]string{
		"kubernetes.cluster-id": "basic", "kubernetes.namespace": "flink",
		"kubernetes.container.image.ref": "flink:1.20", "taskmanager.numberOfTaskSlots": "2",
		"taskmanager.memory.process.size": "1728m",
	}
}

// world is a fake API holding the JobManager Deployment the driver's pods are owned by.
func world(t *testing.T) (*fake.Clientset, *clocktesting.FakeClock) {
	t.Helper()
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "basic", Namespace: "flink", UID: "jm-uid"}}
	return fake.NewClientset(dep), clocktesting.NewFakeClock(time.Unix(0, 0))
}

func podNames(t *testing.T, kube *fake.Clientset) []string {
	t.Helper()
	list, err := kube.CoreV1().Pods("flink").List(context.Background(), metav1.ListOptions{LabelSelector: "app=basic,component=taskmanager,type=flink-native-kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name)
	}
	return out
}

func TestDriverCreatesWhatTheDemandNeedsOwnedByTheJobManagerDeployment(t *testing.T) {
	kube, clk := world(t)
	d, err := New(kube, testConf(), nil, clk)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(context.Background(), WorkersFor(3, 2)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"basic-taskmanager-1-1", "basic-taskmanager-1-2"}, podNames(t, kube)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	pod, err := kube.CoreV1().Pods("flink").Get(context.Background(), "basic-taskmanager-1-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := pod.OwnerReferences
	if len(owner) != 1 || owner[0].Kind != "Deployment" || owner[0].Name != "basic" || owner[0].UID != "jm-uid" || !*owner[0].Controller {
		t.Errorf("owner references = %+v, want the JobManager Deployment as controller", owner)
	}
	main := pod.Spec.Containers[0]
	if main.Name != MainContainer || main.Image != "flink:1.20" || main.Command[0] != DefaultEntryPath ||
		main.Args[2] != "kubernetes-taskmanager.sh -D taskmanager.resource-id=basic-taskmanager-1-1" {
		t.Errorf("main container = %+v", main)
	}
	if got := main.Resources.Requests.Memory().Value(); got != 1728<<20 {
		t.Errorf("memory request = %d, want 1728 MiB", got)
	}
	if got := main.Resources.Requests.Cpu().String(); got != "2" {
		t.Errorf("cpu request = %s, want the slots (2)", got)
	}
	if got := main.Resources.Limits.Cpu().String(); got != "2" {
		t.Errorf("cpu limit = %s, want the request at the default factor", got)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy = %s, want Never", pod.Spec.RestartPolicy)
	}
}

func TestDriverReplacesLostAndFailedPodsAndReleasesIdleOnesAfterTheTimeout(t *testing.T) {
	kube, clk := world(t)
	ctx := context.Background()
	d, err := New(kube, testConf(), nil, clk)
	if err != nil {
		t.Fatal(err)
	}
	must := func(want int) {
		t.Helper()
		if err := d.Sync(ctx, want); err != nil {
			t.Fatal(err)
		}
	}
	must(2)
	// One pod is deleted from outside, the other fails: both are replaced.
	gone, _ := kube.CoreV1().Pods("flink").Get(ctx, "basic-taskmanager-1-1", metav1.GetOptions{})
	_ = kube.CoreV1().Pods("flink").Delete(ctx, gone.Name, metav1.DeleteOptions{})
	d.Observe(gone, true)
	failed, _ := kube.CoreV1().Pods("flink").Get(ctx, "basic-taskmanager-1-2", metav1.GetOptions{})
	failed.Status.Phase = corev1.PodFailed
	d.Observe(failed, false)
	must(2)
	if diff := cmp.Diff([]string{"basic-taskmanager-1-3", "basic-taskmanager-1-4"}, podNames(t, kube)); diff != "" {
		t.Errorf("after a loss and a failure (-want +got):\n%s", diff)
	}
	// The demand drops: the extra pod stays until the idle timeout (30 s), then the newest goes.
	must(1)
	clk.Step(29 * time.Second)
	must(1)
	if got := len(podNames(t, kube)); got != 2 {
		t.Errorf("%d pods before the idle timeout, want 2", got)
	}
	clk.Step(time.Second)
	must(1)
	if diff := cmp.Diff([]string{"basic-taskmanager-1-3"}, podNames(t, kube)); diff != "" {
		t.Errorf("after the idle timeout (-want +got):\n%s", diff)
	}
}

func TestDriverTakesOverThePodsOfAnEarlierAttempt(t *testing.T) {
	kube, clk := world(t)
	ctx := context.Background()
	first, _ := New(kube, testConf(), nil, clk)
	if err := first.Sync(ctx, 2); err != nil {
		t.Fatal(err)
	}
	second, _ := New(kube, testConf(), nil, clk)
	if err := second.Sync(ctx, 3); err != nil {
		t.Fatal(err)
	}
	want := []string{"basic-taskmanager-1-1", "basic-taskmanager-1-2", "basic-taskmanager-2-1"}
	if diff := cmp.Diff(want, podNames(t, kube)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
}

func TestDriverFailsAsFlinkWhenTheAPIRefusesAPod(t *testing.T) {
	kube, clk := world(t)
	kube.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("exceeded quota: compute"))
	})
	d, _ := New(kube, testConf(), nil, clk)
	err := d.Sync(context.Background(), 1)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Sync = %v, want the API's Forbidden", err)
	}
	if len(d.Pods()) != 0 {
		t.Errorf("holds %v after a refused create, want none", d.Pods())
	}
}

func TestDriverRefusesAJobManagerWithoutItsDeployment(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	d, _ := New(fake.NewClientset(), testConf(), nil, clk)
	if err := d.Sync(context.Background(), 1); !apierrors.IsNotFound(err) {
		t.Fatalf("Sync = %v, want NotFound (no owner to give the pods)", err)
	}
}

func TestTaskManagerPodAppliesTheTemplateAndFlinksOptions(t *testing.T) {
	tmpl, err := ParseTemplate(`
metadata:
  labels: {team: a}
spec:
  schedulerName: custom
  nodeSelector: {disk: ssd}
  containers:
  - name: flink-main-container
    env: [{name: A, value: "1"}]
  - name: sidecar
    image: busybox
`)
	if err != nil {
		t.Fatal(err)
	}
	conf := testConf()
	conf["kubernetes.taskmanager.labels"] = "tier:gold"
	conf["kubernetes.taskmanager.node-selector"] = "zone:z1"
	conf["kubernetes.taskmanager.tolerations"] = "key:k1,operator:Equal,value:v1,effect:NoSchedule"
	conf["kubernetes.container.image.pull-secrets"] = "s1;s2"
	conf["kubernetes.service-account"] = "flink"
	conf["containerized.taskmanager.env.B"] = "2"
	conf["kubernetes.secrets"] = "creds:/etc/creds"
	conf["kubernetes.env.secretKeyRef"] = "env:TOKEN,secret:creds,key:token"
	conf["kubernetes.hadoop.conf.config-map.name"] = "hadoop"
	conf["kubernetes.taskmanager.cpu.limit-factor"] = "1.5"
	conf["kubernetes.taskmanager.memory.limit-factor"] = "2"
	pod, err := TaskManagerPod(conf, tmpl, "basic-taskmanager-1-1", metav1.OwnerReference{Name: "basic"})
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{"team": "a", "tier": "gold", "app": "basic", "component": "taskmanager", "type": "flink-native-kubernetes"}
	if diff := cmp.Diff(wantLabels, pod.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"disk": "ssd", "zone": "z1"}, pod.Spec.NodeSelector); diff != "" {
		t.Errorf("nodeSelector (-want +got):\n%s", diff)
	}
	if pod.Spec.SchedulerName != "custom" || pod.Spec.ServiceAccountName != "flink" || len(pod.Spec.ImagePullSecrets) != 2 ||
		len(pod.Spec.Tolerations) != 1 || pod.Spec.Tolerations[0].Key != "k1" || len(pod.Spec.Containers) != 2 {
		t.Errorf("spec = %+v", pod.Spec)
	}
	env := pod.Spec.Containers[0].Env
	wantEnv := []corev1.EnvVar{
		{Name: "A", Value: "1"},
		{Name: "B", Value: "2"},
		{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "token"}}},
		{Name: "HADOOP_CONF_DIR", Value: "/opt/hadoop/conf"},
	}
	if diff := cmp.Diff(wantEnv, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	res := pod.Spec.Containers[0].Resources
	if res.Limits.Cpu().String() != "3" || res.Limits.Memory().Value() != 2*1728<<20 {
		t.Errorf("limits %v, want the requests times the limit factors", res.Limits)
	}
	var mounts []string
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		mounts = append(mounts, m.Name+"@"+m.MountPath)
	}
	if diff := cmp.Diff([]string{"flink-config-volume@/opt/flink/conf", "creds-volume@/etc/creds", "hadoop-config-volume@/opt/hadoop/conf"}, mounts); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
}

func TestTaskManagerPodRefusesWhatFlinkRefuses(t *testing.T) {
	for key, value := range map[string]string{
		"kubernetes.taskmanager.labels":           "no-colon",
		"kubernetes.taskmanager.tolerations":      "key:k,tolerationSeconds:soon",
		"taskmanager.memory.process.size":         "lots",
		"kubernetes.taskmanager.cpu":              "fast",
		"kubernetes.taskmanager.node-selector":    ":v",
		"kubernetes.env.secretKeyRef":             "env:X,secret:s",
		"kubernetes.secrets":                      "no-path",
		"kubernetes.taskmanager.cpu.limit-factor": "0.5",
	} {
		conf := testConf()
		conf[key] = value
		if _, err := TaskManagerPod(conf, nil, "p", metav1.OwnerReference{}); err == nil {
			t.Errorf("%s=%q: no error", key, value)
		}
	}
	if _, err := ParseTemplate("spec: [not a map"); err == nil {
		t.Error("a template that is no pod: no error")
	}
}
