package envtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
)

// WithParentDeath starts kube-apiserver and etcd so that the kernel kills them when this
// process dies, however it dies (SIGKILL included): each runs under util-linux's setpriv
// --pdeathsig KILL, through a small script in dir that execs the binary. Without setpriv on
// the PATH it returns an error: the sandbox then says that a killed sandbox leaves them running.
func WithParentDeath(dir string) (Option, error) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return nil, fmt.Errorf("setpriv (util-linux) not found: %w", err)
	}
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	paths := map[string]string{}
	for _, bin := range binaries {
		script := filepath.Join(dir, bin)
		body := fmt.Sprintf("#!/bin/sh\nexec %q --pdeathsig KILL -- %q \"$@\"\n", setpriv, filepath.Join(assets, bin))
		if err := os.WriteFile(script, []byte(body), 0o700); err != nil { //nolint:gosec // a script of ours, run by us
			return nil, fmt.Errorf("parent-death wrapper: %w", err)
		}
		paths[bin] = script
	}
	return func(env *crenvtest.Environment, _ string) {
		env.ControlPlane.GetAPIServer().Path = paths["kube-apiserver"]
		if env.ControlPlane.Etcd == nil {
			env.ControlPlane.Etcd = &crenvtest.Etcd{}
		}
		env.ControlPlane.Etcd.Path = paths["etcd"]
	}, nil
}
