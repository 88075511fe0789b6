package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/kubeha"
)

// durable is what outlives a JobManager process: the snapshot store and the HA metadata.
type durable struct {
	store *fakeflink.Store
	ha    fakeflink.HAStore
}

// kubeClient returns a client of the Kubernetes API the JobManager runs in.
type kubeClient func() (client.Client, error)

// inCluster is the client of the pod's own API server, under the pod's ServiceAccount.
func inCluster() (client.Client, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes HA needs the in-cluster API: %w", err)
	}
	return client.New(cfg, client.Options{Scheme: scheme.Scheme})
}

// serviceAccountNamespace is where Kubernetes mounts the pod's namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// openDurable makes the JobManager's durable state as Flink keeps it: checkpoints and
// savepoints under file:// directories are real files (on a mounted volume), job results live
// under the HA storage directory, and Kubernetes HA metadata lives in ConfigMaps of the
// cluster's namespace. Other HA types are refused.
func openDurable(conf map[string]string, log io.Writer, kube kubeClient) (durable, error) {
	settings, err := fakeflink.ParseSettings(conf)
	if err != nil {
		return durable{}, err
	}
	results, _ := fakeflink.LocalPath(settings.JobResultStorePath)
	d := durable{store: fakeflink.NewDiskStore(results, func(err error) {
		_, _ = fmt.Fprintln(log, "fakeflink: durable store:", err)
	})}
	if !settings.HAEnabled {
		d.ha = fakeflink.NewMemoryHA()
		return d, nil
	}
	switch strings.ToLower(settings.HAType) {
	case "kubernetes", "org.apache.flink.kubernetes.highavailability.kuberneteshaservicesfactory":
	default:
		return durable{}, fmt.Errorf("high-availability.type %q: fakeflink supports kubernetes", settings.HAType)
	}
	c, err := kube()
	if err != nil {
		return durable{}, err
	}
	ns := conf["kubernetes.namespace"]
	if ns == "" {
		data, err := os.ReadFile(serviceAccountNamespace)
		if err != nil {
			return durable{}, fmt.Errorf("kubernetes HA: no kubernetes.namespace and no ServiceAccount namespace: %w", err)
		}
		ns = strings.TrimSpace(string(data))
	}
	d.ha = &kubeha.ConfigMapHA{Client: c, Namespace: ns}
	return d, nil
}
