package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/kuberm"
)

// modeApplication is the fake's mode for Flink's native application entrypoint
// (kubernetes-jobmanager.sh kubernetes-application): the job comes from the configuration.
const modeApplication = "kubernetes-application"

// nativeArgs reads the command a native cluster's pods start with, `bash -c "<script> …"`
// (what Flink's decorators give the image's entrypoint), as one of the fake's modes and its
// arguments; ok is false for any other command line.
func nativeArgs(args []string) (mode string, rest []string, ok bool) {
	if len(args) != 3 || args[0] != "bash" || args[1] != "-c" {
		return "", nil, false
	}
	words := strings.Fields(args[2])
	if len(words) == 0 {
		return "", nil, false
	}
	switch path.Base(words[0]) {
	case image.ScriptTaskManager:
		return "taskmanager", words[1:], true
	case image.ScriptJobManager:
		if len(words) > 1 && words[1] == image.TargetSession {
			return "jobmanager", words[2:], true
		}
		if len(words) > 1 && words[1] == image.TargetApplication {
			return modeApplication, words[2:], true
		}
	}
	return "", nil, false
}

// nativeJob fills the job options of a native application cluster from its configuration, as
// KubernetesApplicationClusterEntrypoint reads them.
func nativeJob(o *options) {
	o.job.className = o.conf["$internal.application.main"]
	o.job.jobID = o.conf["$internal.pipeline.job-id"]
	o.job.args = nil
	if a := o.conf["$internal.application.program-args"]; a != "" {
		o.job.args = strings.Split(a, ";")
	}
}

// runResourceManager is a native JobManager's resource manager: every interval it gives the
// cluster's TaskManager pods the job's slot demand (fakeflink/kuberm), through the in-cluster
// API under the pod's ServiceAccount, and tells the driver which of its pods are gone or
// failed (a list of them, standing in for Flink's pod watch). It returns when ctx ends.
func runResourceManager(ctx context.Context, o *options, jm *jobManager, out io.Writer) error {
	cfg, err := restclient.InClusterConfig()
	if err != nil {
		return fmt.Errorf("native resource manager: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("native resource manager: %w", err)
	}
	var tmpl *corev1.Pod
	if file := o.conf[kuberm.KeyTaskManagerTemplate]; file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("pod template file %s does not exist: %w", file, err)
		}
		if tmpl, err = kuberm.ParseTemplate(string(data)); err != nil {
			return err
		}
	}
	d, err := kuberm.New(kube, o.conf, tmpl, clock.RealClock{})
	if err != nil {
		return err
	}
	slots := confInt(o.conf, "taskmanager.numberOfTaskSlots", 1)
	ticker := time.NewTicker(2 * time.Second)
	defer ticker.Stop()
	last := ""
	for {
		want := 0
		jm.rest.Do(func(c *fakeflink.Cluster) { want = kuberm.WorkersFor(c.RequiredSlots(), slots) })
		observe(ctx, kube, o.conf, d)
		msg := ""
		if err := d.Sync(ctx, want); err != nil {
			msg = err.Error() // Flink logs it and asks again
		}
		if msg != last {
			_, _ = fmt.Fprintf(out, "fakeflink resource manager: %d TaskManager(s) wanted, %d held %s\n", want, len(d.Pods()), msg)
			last = msg
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// observe lists the cluster's TaskManager pods and tells the driver which it holds are gone or
// ended.
func observe(ctx context.Context, kube kubernetes.Interface, conf map[string]string, d *kuberm.Driver) {
	sel := labels.SelectorFromSet(kuberm.Selector(conf["kubernetes.cluster-id"])).String()
	list, err := kube.CoreV1().Pods(conf["kubernetes.namespace"]).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return // the next round sees them
	}
	present := map[string]*corev1.Pod{}
	for i := range list.Items {
		present[list.Items[i].Name] = &list.Items[i]
	}
	for _, name := range d.Pods() {
		p, ok := present[name]
		if !ok || p.DeletionTimestamp != nil {
			d.Observe(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, true)
			continue
		}
		d.Observe(p, false)
	}
}
