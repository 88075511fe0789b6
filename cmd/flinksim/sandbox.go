package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/flink"
)

// sandbox runs the operator, the pod simulator and fakeflink on a real kube-apiserver for
// kubectl, until interrupted.
func sandbox(args []string) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "flinksim.kubeconfig", "where to write the sandbox's kubeconfig")
	optionsFile := fs.String("operator-config", "", "YAML file of kubernetes.operator.* options (default: the defaults, snapshots allowed under file:///data and file:///flink-data)")
	metricsAddr := fs.String("metrics-bind-address", "0", "serve the operator's /metrics over HTTPS to callers the API server authorizes for GET /metrics (0: off)")
	hooks := fs.Bool("webhook", false, "serve the operator's admission webhooks: the API server calls them on every apply")
	realJars := fs.Bool("real-jars", false, "fetch session jobs' jars with the operator's real fetcher and its policy (default: a simulated internet serving https://repo.example.com)")
	jarHosts := fs.String("jar-allowed-hosts", "", "with --real-jars: hosts http(s) jars may come from (as the operator's flag)")
	jarCIDRs := fs.String("jar-allowed-cidrs", "", "with --real-jars: CIDRs jars may be fetched from although not public (as the operator's flag)")
	jarRoot := fs.String("jar-file-root", "", "with --real-jars: the only directory file:// jars are read from")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	opts := envtest.SandboxOptions{MetricsAddr: *metricsAddr, Webhook: *hooks}
	if *optionsFile != "" {
		data, err := os.ReadFile(*optionsFile)
		if err != nil {
			return err
		}
		if opts.Live, err = config.NewLive(data); err != nil {
			return fmt.Errorf("--operator-config: %w", err)
		}
	}
	if *realJars {
		opts.Jars = &flink.JarFetcher{FileRoot: *jarRoot}
		opts.Jars.Policy.AllowedHosts = splitList(*jarHosts)
		for _, c := range splitList(*jarCIDRs) {
			p, err := netip.ParsePrefix(c)
			if err != nil {
				return fmt.Errorf("--jar-allowed-cidrs: %w", err)
			}
			opts.Jars.Policy.AllowedCIDRs = append(opts.Jars.Policy.AllowedCIDRs, p)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctrl.SetLogger(logr.Discard())
	// A sandbox killed outright (SIGKILL) takes its kube-apiserver and etcd with it.
	dir, err := os.MkdirTemp("", "flinksim-sandbox-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	startOpts := []envtest.Option{}
	if o, err := envtest.WithParentDeath(dir); err == nil {
		startOpts = append(startOpts, o)
	} else {
		fmt.Fprintf(os.Stderr, "flinksim sandbox: %v: if this process is killed, stop its etcd and kube-apiserver by hand\n", err)
	}
	if *hooks {
		startOpts = append(startOpts, envtest.WithWebhooks())
	}
	env, err := envtest.Start(startOpts...)
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	if err := env.WriteKubeconfig(*kubeconfig); err != nil {
		return err
	}
	fmt.Printf(`flinksim sandbox: the Flinkop operator, a pod simulator and fakeflink on a real kube-apiserver
(no cluster, no containers; JobManagers and TaskManagers are simulated, on the real clock).

  export KUBECONFIG=%s
  kubectl apply -f examples/basic.yaml
  kubectl apply -f examples/session-cluster.yaml   # a session cluster and a session job
  kubectl get flinkdep,sessionjob -w

Ctrl-C stops everything.
`, *kubeconfig)
	err = env.RunSandbox(ctx, 500*time.Millisecond, opts, func(err error) { fmt.Fprintln(os.Stderr, "pod simulator:", err) })
	fmt.Println("\nflinksim sandbox: stopped")
	return err
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
