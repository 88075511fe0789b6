package fleet

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/flinkop/flinkop/operator/config"
)

// operatorProcess is the operator running as its own process (Config.OperatorBinary): its
// memory and CPU are then its own, not shared with the API server's client, the pod
// simulator and the fakeflink clusters.
type operatorProcess struct {
	cmd *exec.Cmd
	dir string // its kubeconfig, options and log
	// metrics and pprof are the base URLs of its metrics and pprof endpoints.
	metrics, pprof string
}

// startProcess runs Config.OperatorBinary against the fleet's API server. Its API requests
// pass through a proxy that counts them (f.api) and its Flink REST calls through a proxy
// (HTTP_PROXY) that carries them to the pod simulator (f.rest); done closes once it exited.
func (f *fleet) startProcess(ctx context.Context) (<-chan struct{}, error) {
	dir, err := os.MkdirTemp("", "flinksim-operator-")
	if err != nil {
		return nil, fmt.Errorf("operator process: %w", err)
	}
	apiURL, apiCA, err := f.serveAPIProxy(ctx)
	if err != nil {
		return nil, err
	}
	restURL, err := serve(ctx, restProxy(f.rest))
	if err != nil {
		return nil, err
	}
	kubeconfig, operatorConfig := filepath.Join(dir, "kubeconfig"), filepath.Join(dir, "operator.yaml")
	if err := writeKubeconfig(kubeconfig, apiURL, apiCA); err != nil {
		return nil, err
	}
	if err := os.WriteFile(operatorConfig, []byte(fmt.Sprintf("%s: %d ms\n", config.KeyReconcileInterval, f.cfg.ReconcileInterval.Milliseconds())), 0o600); err != nil {
		return nil, fmt.Errorf("operator config: %w", err)
	}
	metricsAddr, pprofAddr := freeAddr(), freeAddr()
	if metricsAddr == "" || pprofAddr == "" {
		return nil, errors.New("operator process: no free port")
	}
	args := []string{
		"--kubeconfig", kubeconfig, "--namespaces", namespace, "--operator-config", operatorConfig,
		"--metrics-bind-address", metricsAddr, "--metrics-secure=false", "--health-probe-bind-address", "0",
		"--pprof-bind-address", pprofAddr,
	}
	if f.cfg.Parallelism > 0 {
		args = append(args, "--reconcile-parallelism", strconv.Itoa(f.cfg.Parallelism))
	}
	logPath := filepath.Join(dir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("operator log: %w", err)
	}
	cmd := exec.CommandContext(ctx, f.cfg.OperatorBinary, args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY="+restURL, "http_proxy="+restURL, "NO_PROXY=", "no_proxy=")
	if f.cfg.OperatorMemoryLimit != "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+f.cfg.OperatorMemoryLimit)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("operator process: %w", err)
	}
	f.rep.Apart = true
	f.proc = &operatorProcess{cmd: cmd, dir: dir, metrics: "http://" + metricsAddr, pprof: "http://" + pprofAddr}
	f.logf("operator process %d: %s, log %s", cmd.Process.Pid, f.cfg.OperatorBinary, logPath)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = logFile.Close() }()
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			f.logf("operator process: %v (see %s)", err, logPath)
		}
	}()
	if err := f.proc.ready(ctx, done); err != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
		return nil, fmt.Errorf("%w (see %s)", err, logPath)
	}
	return done, nil
}

// serveAPIProxy serves the API server to the operator process on loopback, as the
// administrator envtest made, counting the requests in f.api; it returns the proxy's URL and
// the PEM certificate to trust it by. It serves HTTPS, so that the operator's client speaks
// HTTP/2 to it, one connection for all its requests, as to an API server: over plain HTTP,
// client-go speaks HTTP/1.1, keeps 25 idle connections, and the operator dialled a new one for
// most requests while its workers were busy.
func (f *fleet) serveAPIProxy(ctx context.Context) (string, []byte, error) {
	target, _, err := rest.DefaultServerUrlFor(f.env.Config)
	if err != nil {
		return "", nil, fmt.Errorf("API proxy: %w", err)
	}
	rt, err := rest.TransportFor(f.env.Config)
	if err != nil {
		return "", nil, fmt.Errorf("API proxy: %w", err)
	}
	f.api.inner = rt
	srv := httptest.NewUnstartedServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     f.api,
		FlushInterval: -1, // watches stream
		ErrorLog:      log.New(io.Discard, "", 0),
	})
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	go func() {
		<-ctx.Done()
		// The listener and every connection, its watches included, which Close alone would
		// wait for (and a client reconnecting meanwhile would open more of).
		_ = srv.Config.Close()
		srv.Close()
	}()
	return srv.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), nil
}

// restProxy serves the REST transport as an HTTP proxy for the operator process's Flink
// calls (absolute-form requests, as HTTP_PROXY makes them).
func restProxy(t *slowTransport) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = r.In.URL.Scheme, r.In.URL.Host, r.In.URL.Host
		},
		Transport: t,
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host == "" {
			http.Error(w, "only proxy requests are served here", http.StatusBadRequest)
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// serve serves h on a loopback port until ctx ends and returns its URL.
func serve(ctx context.Context, h http.Handler) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(l) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	return "http://" + l.Addr().String(), nil
}

// freeAddr is a loopback address with a port free right now ("" when there is none).
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func writeKubeconfig(path, server string, ca []byte) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["fleet"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	kc.AuthInfos["fleet"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["fleet"] = &clientcmdapi.Context{Cluster: "fleet", AuthInfo: "fleet"}
	kc.CurrentContext = "fleet"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	return nil
}

// ready waits until the process serves its metrics.
func (p *operatorProcess) ready(ctx context.Context, exited <-chan struct{}) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := p.get(ctx, p.metrics+"/metrics"); err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("operator process exited before it served its metrics")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("operator process did not serve its metrics within a minute")
}

// get reads one of the process's endpoints; a wedged process fails the read in 30 s.
func (p *operatorProcess) get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, err
}

// memory collects the process's garbage (through its heap profile, written to profile when
// that is set) and returns its heap in use, its resident set and the peak of that, in MB.
func (p *operatorProcess) memory(ctx context.Context, profile string) (heap, rss, peak float64, err error) {
	data, err := p.get(ctx, p.pprof+"/debug/pprof/heap?gc=1")
	if err != nil {
		return 0, 0, 0, fmt.Errorf("operator heap profile: %w", err)
	}
	if profile != "" {
		if err := os.WriteFile(profile, data, 0o600); err != nil {
			return 0, 0, 0, fmt.Errorf("heap profile: %w", err)
		}
	}
	heap, err = p.metric(ctx, "go_memstats_heap_inuse_bytes")
	if err != nil {
		return 0, 0, 0, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, 0, fmt.Errorf("operator memory: %w", err)
	}
	return heap / (1 << 20), statusMB(string(status), "VmRSS:"), statusMB(string(status), "VmHWM:"), nil
}

// cpu is the CPU time the process used so far.
func (p *operatorProcess) cpu(ctx context.Context) (time.Duration, error) {
	s, err := p.metric(ctx, "process_cpu_seconds_total")
	return time.Duration(s * float64(time.Second)), err
}

// metric reads one unlabelled sample of the process's metrics.
func (p *operatorProcess) metric(ctx context.Context, name string) (float64, error) {
	data, err := p.get(ctx, p.metrics+"/metrics")
	if err != nil {
		return 0, fmt.Errorf("operator metrics: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("operator metric %s: %w", name, err)
			}
			return f, nil
		}
	}
	return 0, fmt.Errorf("operator metrics: no %s", name)
}

// statusMB reads a "Key:   123 kB" line of /proc/PID/status, in MB (0 when absent).
func statusMB(status, key string) float64 {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
