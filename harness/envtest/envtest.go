// Package envtest starts a real kube-apiserver and etcd (controller-runtime's envtest) with
// Flinkop's CRDs installed, for tests that must see what the API server accepts, rejects and
// stores. The binaries come from KUBEBUILDER_ASSETS or ./bin/k8s, where `make envtest-assets`
// puts them; their absence is an error, never a skip.
package envtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Env is a running API server with Flinkop's CRDs.
type Env struct {
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Client is a client for Config with Flinkop's and Kubernetes' types registered.
	Client client.WithWatch
	// Scheme is the scheme Client uses.
	Scheme *runtime.Scheme

	// Webhook is where the API server calls the operator's admission webhook (WithWebhooks).
	Webhook *crenvtest.WebhookInstallOptions

	env *crenvtest.Environment
}

// Option configures Start.
type Option func(*crenvtest.Environment, string)

// WithWebhooks installs the webhook configuration of config/webhook, pointed at a local
// webhook server with a certificate envtest makes (Env.Webhook: host, port, cert dir).
func WithWebhooks() Option {
	return func(env *crenvtest.Environment, root string) {
		env.WebhookInstallOptions = crenvtest.WebhookInstallOptions{Paths: []string{filepath.Join(root, "config", "webhook")}}
	}
}

// WithFlags sets command-line flags of the API server and of etcd, each as name=value (no
// leading dashes), over envtest's defaults: what a fleet benchmark tunes to fit the machine.
func WithFlags(apiServer, etcd []string) Option {
	return func(env *crenvtest.Environment, _ string) {
		setFlags(env.ControlPlane.GetAPIServer().Configure(), apiServer)
		if len(etcd) > 0 && env.ControlPlane.Etcd == nil {
			env.ControlPlane.Etcd = &crenvtest.Etcd{}
		}
		setFlags(env.ControlPlane.Etcd.Configure(), etcd)
	}
}

// setFlags sets each name=value of flags on args.
func setFlags(args *crenvtest.Arguments, flags []string) {
	for _, f := range flags {
		name, value, _ := strings.Cut(f, "=")
		args.Set(name, value)
	}
}

// AssetsDir returns where the kube-apiserver and etcd binaries are.
func AssetsDir() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	root, err := fixtures.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin", "k8s"), nil
}

var binaries = []string{"kube-apiserver", "etcd"}

// HasAssets reports whether dir holds the kube-apiserver and etcd binaries.
func HasAssets(dir string) bool {
	for _, bin := range binaries {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return false
		}
	}
	return true
}

// Scheme returns a scheme with Kubernetes' built-in types and Flinkop's.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := flinkv1beta1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// ServiceIPRange is the API server's Service cluster IP range: 65,534 addresses.
const ServiceIPRange = "10.0.0.0/16"

// Start starts etcd and kube-apiserver and installs the CRDs from config/crd/bases.
func Start(opts ...Option) (*Env, error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	for _, bin := range binaries {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return nil, fmt.Errorf("envtest binary %s missing in %s: run `make envtest-assets`: %w", bin, assets, err)
		}
	}
	root, err := fixtures.ModuleRoot()
	if err != nil {
		return nil, err
	}
	s, err := Scheme()
	if err != nil {
		return nil, err
	}
	env := &crenvtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
	}
	for _, o := range opts {
		o(env, root)
	}
	// Room for a fleet's REST Services: envtest's default /24 holds 253 cluster IPs.
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", ServiceIPRange)
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest (assets %s): %w", assets, err)
	}
	// The harness drives the API server as fast as it answers: no client-side rate limit.
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = -1, 0
	c, err := client.NewWithWatch(fast, client.Options{Scheme: s})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("client: %w", err)
	}
	out := &Env{Config: cfg, Client: c, Scheme: s, env: env}
	if len(env.WebhookInstallOptions.Paths) > 0 {
		out.Webhook = &env.WebhookInstallOptions
	}
	return out, nil
}

// Stop stops the API server and etcd.
func (e *Env) Stop() error { return e.env.Stop() }
