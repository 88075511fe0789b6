//go:build e2e

// Package e2e runs the operator binary and the fakeflink image in a real Kubernetes cluster made
// by kind (as a library), installed with its Helm chart the way users install it, and checks
// the operator's promises with real pods: deploy, savepoints, upgrades that keep state, lost
// JobManagers, suspend and resume, bad images and rollback, session jobs and clean deletion.
//
// Run it with `make e2e`, which builds the node and container images first. The cluster
// (flinkop-e2e) is reused when it exists and deleted at the end when this run created it;
// FLINKOP_E2E_KEEP=1 keeps it for debugging.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kindlog "sigs.k8s.io/kind/pkg/log"

	"github.com/flinkop/flinkop/harness/envtest"
)

// Names of what the tests run; the Makefile builds the images under these names.
const (
	clusterName    = "flinkop-e2e"
	nodeImage      = "kindest/node:v1.37.0-flinkop"
	operatorImage  = "flinkop/flink-operator:dev"
	fakeflinkImage = "flinkop/fakeflink:dev"
	operatorNS     = "flinkop-system"
	jobNS          = "default" // the only namespace the operator watches; the chart puts Flink's ServiceAccount here
)

// env is the cluster every test runs against.
var env struct {
	root       string // the module root
	kubeconfig string
	client     client.Client
	clientset  kubernetes.Interface
}

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	code, err := setUp(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		code = 1
	}
	os.Exit(code)
}

func setUp(m *testing.M) (int, error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return 0, err
	}
	env.root = root
	provider := cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(kindlog.NoopLogger{}))
	existing, err := provider.List()
	if err != nil {
		return 0, fmt.Errorf("list kind clusters (is a Docker engine up? make docker-up): %w", err)
	}
	dir, err := os.MkdirTemp("", "flinkop-e2e-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	env.kubeconfig = filepath.Join(dir, "kubeconfig")
	created, err := ensureCluster(provider, slices.Contains(existing, clusterName))
	if err != nil {
		return 0, err
	}
	if created && os.Getenv("FLINKOP_E2E_KEEP") == "" {
		defer func() {
			step("deleting kind cluster %s", clusterName)
			if err := provider.Delete(clusterName, env.kubeconfig); err != nil {
				fmt.Fprintln(os.Stderr, "delete kind cluster:", err)
			}
		}()
	}
	operatorChanged, err := loadImages(provider, operatorImage, fakeflinkImage)
	if err != nil {
		return 0, err
	}
	if err := connect(); err != nil {
		return 0, err
	}
	if err := install(operatorChanged && !created); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// ensureCluster creates the cluster unless it exists, writes its kubeconfig to
// env.kubeconfig, and reports whether it created it.
func ensureCluster(provider *cluster.Provider, exists bool) (bool, error) {
	if exists {
		step("kind cluster %s (reusing)", clusterName)
		err := provider.ExportKubeConfig(clusterName, env.kubeconfig, false)
		if err == nil {
			return false, nil
		}
		// A cluster whose node container stopped (the Docker engine restarted) cannot be
		// reused: start over.
		step("kind cluster %s cannot be reused (%v): deleting it", clusterName, err)
		if err := provider.Delete(clusterName, env.kubeconfig); err != nil {
			return false, fmt.Errorf("delete kind cluster: %w", err)
		}
	}
	step("kind cluster %s (creating)", clusterName)
	err := provider.Create(clusterName,
		cluster.CreateWithConfigFile(filepath.Join(env.root, "kind-config.yaml")),
		cluster.CreateWithNodeImage(nodeImage),
		cluster.CreateWithKubeconfigPath(env.kubeconfig),
		cluster.CreateWithWaitForReady(3*time.Minute),
		cluster.CreateWithDisplayUsage(false), cluster.CreateWithDisplaySalutation(false))
	if err != nil {
		return false, fmt.Errorf("create kind cluster: %w", err)
	}
	return true, nil
}

// loadImages loads the images from the Docker engine into the cluster's node where the node
// has another (or no) image of that name, as `kind load docker-image` does. It reports
// whether the first image changed.
func loadImages(provider *cluster.Provider, images ...string) (firstChanged bool, err error) {
	nodes, err := provider.ListInternalNodes(clusterName)
	if err != nil {
		return false, err
	}
	for i, image := range images {
		out, err := exec.Command("docker", "image", "inspect", "-f", "{{.Id}}", image).Output()
		if err != nil {
			return false, fmt.Errorf("image %s is not built (make operator-image fakeflink-image): %w", image, err)
		}
		want := strings.TrimSpace(string(out))
		for _, n := range nodes {
			if got, err := nodeutils.ImageID(n, image); err == nil && got == want {
				continue
			}
			step("loading %s into %s", image, n.String())
			if err := loadImage(n, image); err != nil {
				return false, err
			}
			firstChanged = firstChanged || i == 0
		}
	}
	return firstChanged, nil
}

// loadImage streams `docker save` of image into the node's containerd.
func loadImage(n nodes.Node, image string) error {
	var archive, stderr bytes.Buffer
	save := exec.Command("docker", "save", image)
	save.Stdout, save.Stderr = &archive, &stderr
	if err := save.Run(); err != nil {
		return fmt.Errorf("docker save %s: %w: %s", image, err, stderr.String())
	}
	if err := nodeutils.LoadImageArchive(n, &archive); err != nil {
		return fmt.Errorf("load %s into %s: %w", image, n, err)
	}
	return nil
}

// connect makes the clients of the cluster.
func connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		return err
	}
	scheme, err := envtest.Scheme()
	if err != nil {
		return err
	}
	if env.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	env.clientset, err = kubernetes.NewForConfig(cfg)
	return err
}

// install installs the operator with its Helm chart as docs/helm.md tells users to, watching
// the tests' namespace only (the chart's per-namespace RBAC; it also creates Flink's
// ServiceAccount there), restarts the operator when its image changed under a running
// Deployment, and waits until it is available. The CRDs are applied first, server-side: Helm
// installs a chart's CRDs only into a cluster that has none, and a reused cluster may hold
// older ones.
func install(restart bool) error {
	step("installing the operator (helm upgrade --install flinkop charts/flinkop, watching %s)", jobNS)
	if _, err := kubectl(context.Background(), "apply", "--server-side", "--force-conflicts", "-k", filepath.Join(env.root, "config", "crd")); err != nil {
		return err
	}
	if err := upgradeChart(); err != nil {
		return err
	}
	if restart {
		if _, err := kubectl(context.Background(), "-n", operatorNS, "rollout", "restart", "deployment/flinkop-manager"); err != nil {
			return err
		}
	}
	_, err := kubectl(context.Background(), "-n", operatorNS, "rollout", "status", "deployment/flinkop-manager", "--timeout=3m")
	return err
}

// e2eOptions are the operator options the tests install: the chart's, and the state
// directories of the tests' deployments (file:///flink-data, on the node) as the paths their
// snapshots may record and dispose of (snapshots are confined to the operator's configured
// directories).
const e2eOptions = "kubernetes.operator.reconcile.interval: 60 s\n" +
	"kubernetes.operator.dynamic.config.check.interval: 1 min\n" +
	"kubernetes.operator.snapshot.allowed-path-prefixes: file:///flink-data\n"

// upgradeChart installs or upgrades the chart with the tests' values (e2eOptions), and extra
// flags (a later --set-file of the options wins).
func upgradeChart(extra ...string) error {
	file := filepath.Join(os.TempDir(), "flinkop-e2e-options.yaml")
	if err := os.WriteFile(file, []byte(e2eOptions), 0o600); err != nil {
		return err
	}
	args := append([]string{
		"upgrade", "--install", "flinkop", filepath.Join(env.root, "charts", "flinkop"),
		"--namespace", operatorNS, "--create-namespace", "--set", "watchNamespaces={" + jobNS + "}",
		"--set", "image.repository=" + strings.Split(operatorImage, ":")[0], "--set", "image.tag=" + strings.Split(operatorImage, ":")[1],
		"--set-file", `defaultConfiguration.config\.yaml=` + file,
	}, extra...)
	_, err := helm(context.Background(), args...)
	return err
}

// helm runs the helm binary `make e2e` builds (FLINKOP_HELM) against the cluster.
func helm(ctx context.Context, args ...string) (string, error) {
	bin := os.Getenv("FLINKOP_HELM")
	if bin == "" {
		return "", errors.New("FLINKOP_HELM is not set: run the e2e tests with make e2e, which builds helm")
	}
	return run(ctx, bin, args...)
}

// kubectl runs kubectl against the cluster and returns its output.
func kubectl(ctx context.Context, args ...string) (string, error) {
	return run(ctx, "kubectl", args...)
}

// run runs a command against the cluster (--kubeconfig) and returns its output; a failure
// carries its standard error.
func run(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", env.kubeconfig}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// step prints a progress line with the time, so the CI log shows where time goes.
func step(format string, args ...any) {
	fmt.Printf("e2e %s  %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}
