package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/operator/config"
)

// TestCacheNamespaces: what the manager caches, and whether the watched namespaces may change
// while the operator runs.
func TestCacheNamespaces(t *testing.T) {
	for name, tc := range map[string]struct {
		flag, file  string
		wantCache   []string
		reloadTo    string
		wantWatched []string
	}{
		"all by default": {reloadTo: config.KeyWatchedNamespaces + ": a\n"},
		"the option, pinned": {
			file: config.KeyWatchedNamespaces + ": a,b\n", wantCache: []string{"a", "b"},
			reloadTo: config.KeyWatchedNamespaces + ": c\n", wantWatched: []string{"a", "b"},
		},
		"dynamic: every namespace cached, the option followed": {
			file:     config.KeyDynamicNamespaces + ": true\n" + config.KeyWatchedNamespaces + ": a\n",
			reloadTo: config.KeyDynamicNamespaces + ": true\n" + config.KeyWatchedNamespaces + ": c\n", wantWatched: []string{"c"},
		},
		"the flag bounds the cache": {
			flag: "a, b", file: config.KeyDynamicNamespaces + ": true\n", wantCache: []string{"a", "b"},
			reloadTo: config.KeyDynamicNamespaces + ": true\n" + config.KeyWatchedNamespaces + ": b\n", wantWatched: []string{"b"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			live, err := config.NewLive([]byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			cache, err := cacheNamespaces(tc.flag, live, live.Flat())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCache, cache); diff != "" {
				t.Errorf("cached namespaces (-want +got):\n%s", diff)
			}
			path := t.TempDir() + "/operator.yaml"
			if err := writeFile(path, tc.reloadTo); err != nil {
				t.Fatal(err)
			}
			if _, _, err := live.Reload(path); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantWatched, live.Scope().Namespaces); diff != "" {
				t.Errorf("watched namespaces after a reload (-want +got):\n%s", diff)
			}
		})
	}
	live, err := config.NewLive(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cacheNamespaces("", live, map[string]string{config.KeyDynamicNamespaces: "maybe"}); err == nil {
		t.Error("a bad " + config.KeyDynamicNamespaces + " was taken")
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }

// TestProcessOptions: the file's leader election and probe options reach the manager unless
// the flags that say the same were given.
func TestProcessOptions(t *testing.T) {
	flat := map[string]string{
		config.KeyLeaderElection: "true", config.KeyLeaseName: "apache-lease",
		config.KeyLeaseDuration: "20 s", config.KeyHealthProbePort: "8085",
		config.KeyTerminationTimeout: "3 s", config.KeyStopOnInformerError: "false",
	}
	type got struct {
		Elect           bool
		ID, Probe       string
		Lease, Shutdown time.Duration
		CacheSync       time.Duration
	}
	for name, tc := range map[string]struct {
		given map[string]bool
		want  got
	}{
		"from the file": {nil, got{true, "apache-lease", ":8085", 20 * time.Second, 3 * time.Second, config.MaxDuration}},
		"flags win": {
			map[string]bool{"leader-elect": true, "health-probe-bind-address": true},
			got{false, "apache-lease", ":8081", 20 * time.Second, 3 * time.Second, config.MaxDuration},
		},
	} {
		t.Run(name, func(t *testing.T) {
			opts := ctrl.Options{LeaderElection: false, LeaderElectionID: "flinkop.flink.apache.org", HealthProbeBindAddress: ":8081"}
			if err := processOptions(&opts, flat, tc.given); err != nil {
				t.Fatal(err)
			}
			g := got{opts.LeaderElection, opts.LeaderElectionID, opts.HealthProbeBindAddress, *opts.LeaseDuration, *opts.GracefulShutdownTimeout, opts.Controller.CacheSyncTimeout}
			if g != tc.want {
				t.Errorf("got %+v, want %+v", g, tc.want)
			}
		})
	}
	defaults := ctrl.Options{}
	if err := processOptions(&defaults, map[string]string{}, nil); err != nil || *defaults.GracefulShutdownTimeout != 10*time.Second ||
		defaults.Controller.CacheSyncTimeout != 2*time.Minute {
		t.Errorf("defaults: shutdown %v, cache sync %s (%v); want Apache's 10 s and 2 min", defaults.GracefulShutdownTimeout, defaults.Controller.CacheSyncTimeout, err)
	}
	if err := processOptions(&ctrl.Options{}, map[string]string{config.KeyTerminationTimeout: "soon"}, nil); err == nil || !strings.Contains(err.Error(), config.KeyTerminationTimeout) {
		t.Errorf("a malformed termination timeout: %v, want it refused by name", err)
	}
	noName := map[string]string{config.KeyLeaderElection: "true"}
	if err := processOptions(&ctrl.Options{}, noName, nil); err == nil || !strings.Contains(err.Error(), config.KeyLeaseName) {
		t.Errorf("leader election the file turns on without a lease name: %v, want it refused", err)
	}
	if err := processOptions(&ctrl.Options{}, noName, map[string]bool{"leader-elect": true}); err != nil {
		t.Errorf("with --leader-elect given the file's switch does not decide, its lease name is not needed: %v", err)
	}
}
