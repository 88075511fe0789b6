package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/harness/fleet"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// fleetBench runs the fleet benchmark (see package harness/fleet) and prints its table.
func fleetBench(args []string) error {
	fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
	n := fs.Int("n", 100, "number of FlinkDeployments")
	slow := fs.Float64("slow", 5, "percent of JobManagers that stop answering in the last phase")
	parallelism := fs.Int("parallelism", 0, "reconcile workers (0: kubernetes.operator.reconcile.parallelism's default)")
	changes := fs.Int("changes", 0, "healthy deployments changed to measure first-action latency (0: min(n, 50))")
	steady := fs.Duration("steady", 0, "steady-state window (0: one reconcile interval)")
	interval := fs.Duration("reconcile-interval", 0, "the operator's kubernetes.operator.reconcile.interval (0: 60s)")
	hostile := fs.Bool("hostile", false, fmt.Sprintf("after the steady state, make %d JobManagers answer hostile (20 MiB, endless) and add %d ConfigMaps of 1 MB with Flink's labels, and measure the operator's memory again", fleet.HostileJobManagers, fleet.HostileConfigMaps))
	mode := fs.String("mode", "", "every deployment's spec.mode: native (the default when unset) or standalone")
	autoscaled := fs.Bool("autoscaled", false, "run every job under the autoscaler on fakeflink's workload model (its metric collection and state at steady state)")
	bystanders := fs.Bool("bystanders", false, fmt.Sprintf("at the end, add %d ConfigMaps and %d Pods that are not the operator's and measure its heap again", fleet.BystanderConfigMaps, fleet.BystanderPods))
	convergeOnly := fs.Bool("converge-only", false, "stop after the steady state (no wave, no latency phases, no single-writer floor): for 10,000 deployments")
	noWave := fs.Bool("no-wave", false, "skip the upgrade wave: the latency phases follow the steady state")
	freshFloor := fs.Bool("fresh-floor", false, "measure the floor on a fresh API server after the run (default: on the fleet's server after the phases)")
	noSerialFloor := fs.Bool("no-serial-floor", false, "skip the floor's single-writer run (over half an hour at 10,000); the 16-writer run stays")
	operator := fs.String("operator-binary", "", "run this flink-operator binary as its own process and measure its heap, resident set and CPU apart (default: the operator runs inside flinksim)")
	memLimit := fs.String("operator-gomemlimit", "", "the GOMEMLIMIT of the operator process (with --operator-binary), e.g. 270MiB")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound on each phase")
	heapProfile := fs.String("heapprofile", "", "write the heap profile at steady state to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (operator, API server client, pod simulator) to this file")
	var apiServerFlags, etcdFlags repeated
	fs.Var(&apiServerFlags, "apiserver-flag", "an extra kube-apiserver flag, name=value (repeatable), over the fleet's own")
	fs.Var(&etcdFlags, "etcd-flag", "an extra etcd flag, name=value (repeatable), over the fleet's own")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *memLimit != "" && *operator == "" {
		return fmt.Errorf("--operator-gomemlimit needs --operator-binary: the operator runs in this process otherwise")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctrl.SetLogger(logr.Discard())
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("flinksim fleet: %d FlinkDeployments on a real kube-apiserver, %.0f%% hung JobManagers in the last phase\n", *n, *slow)
	rep, err := fleet.Run(ctx, fleet.Config{
		N: *n, SlowPercent: *slow, Parallelism: *parallelism, Changes: *changes, Steady: *steady, ReconcileInterval: *interval, Timeout: *timeout, Log: os.Stdout,
		Bystanders: *bystanders, Hostile: *hostile, Autoscaled: *autoscaled, Mode: flinkv1beta1.KubernetesDeploymentMode(*mode), ConvergeOnly: *convergeOnly, NoWave: *noWave, FreshFloor: *freshFloor, NoSerialFloor: *noSerialFloor, HeapProfile: *heapProfile,
		OperatorBinary: *operator, OperatorMemoryLimit: *memLimit, APIServerFlags: apiServerFlags, EtcdFlags: etcdFlags,
	})
	if rep != nil {
		// Also after an error: the phases measured before it are worth reading.
		fmt.Println()
		rep.Write(os.Stdout)
	}
	return err
}

// repeated is a flag that may be given more than once.
type repeated []string

func (r *repeated) String() string { return strings.Join(*r, ",") }

// Set adds one value; a flag without "=" is refused.
func (r *repeated) Set(v string) error {
	if !strings.Contains(v, "=") || strings.HasPrefix(v, "-") {
		return fmt.Errorf("%q: want name=value, without leading dashes", v)
	}
	*r = append(*r, v)
	return nil
}
