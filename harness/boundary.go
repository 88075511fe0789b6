package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jarcoal/httpmock"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/flink"
)

// The tenant boundary of a world: what the operator may fetch for a session job, and what
// it must never reach. Jars come from an artifact repository (a public address) and from one
// jar directory; everything else the world offers is a secret: the cloud metadata address,
// the operator's own metrics, a cluster Service, a loopback port, a file beside the jar
// directory. The repository records every request, and the checker reports a request that
// reached a secret or a jar on a Flink cluster whose bytes are not a repository's.

// The jars the world serves, and the secrets a tenant must not get.
var (
	repositoryJar = []byte("PK\x03\x04 fake jar")
	localJar      = []byte("PK\x03\x04 local jar")
	secret        = []byte("SECRET: not for tenants")
)

// JarMaxBytes is the world's jar size limit (small, so an endless jar is cut quickly).
const JarMaxBytes = 64 << 10

// worldDNS is the world's name service: the artifact repository has a public address; the
// others are the operator's privileged neighbours.
var worldDNS = map[string]string{
	"repo.example.com":                                 "93.184.216.34",
	"jars.example.com":                                 "93.184.216.35",
	"metadata.google.internal":                         "169.254.169.254",
	"flinkop-metrics.flinkop-system.svc":               "10.96.0.20",
	"kubernetes.default.svc":                           "10.96.0.1",
	"localhost":                                        "127.0.0.1",
	"rebound.example.com":                              "10.0.0.7", // a public-looking name with a private address
	"session-rest.flink.svc.cluster.local":             "10.96.0.30",
	"flinkop-manager.flinkop-system.svc.cluster.local": "10.96.0.21",
}

// dnsTable resolves from worldDNS.
type dnsTable struct{}

func (dnsTable) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := lookup(host); ok {
		return []netip.Addr{a}, nil
	}
	return nil, fmt.Errorf("lookup %s: no such host (simulated)", host)
}

func lookup(host string) (netip.Addr, bool) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap(), true
	}
	a, ok := worldDNS[strings.ToLower(host)]
	if !ok {
		return netip.Addr{}, false
	}
	return netip.MustParseAddr(a), true
}

// public says whether the world treats addr as a public address (the repository's).
func public(addr netip.Addr) bool {
	return addr == netip.MustParseAddr(worldDNS["repo.example.com"]) || addr == netip.MustParseAddr(worldDNS["jars.example.com"])
}

// Boundary records what the operator fetched and checks it stayed inside the tenant boundary.
type Boundary struct {
	mu       sync.Mutex
	requests []string // every URL requested
	breaches []string // requests that reached a secret
}

// Transport is the artifact repository and the secrets behind the world's addresses, as one
// recording transport. Paths on the repository: /endless.jar never ends, /missing.jar is
// 404, /to-metadata.jar and /to-http.jar redirect to the metadata address and to plain http.
func (b *Boundary) Transport() http.RoundTripper {
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.requests = append(b.requests, req.URL.String())
		addr, ok := lookup(req.URL.Hostname())
		if !ok {
			return nil, fmt.Errorf("dial %s: no such host (simulated)", req.URL.Host)
		}
		if !public(addr) {
			b.breaches = append(b.breaches, fmt.Sprintf("jar fetch reached %s (%s), outside the allowed addresses", req.URL.Redacted(), addr))
			return httpmock.NewBytesResponse(http.StatusOK, secret), nil
		}
		switch req.URL.Path {
		case "/endless.jar":
			return httpmock.NewBytesResponse(http.StatusOK, make([]byte, 4*JarMaxBytes)), nil
		case "/missing.jar":
			return httpmock.NewStringResponse(http.StatusNotFound, "not found"), nil
		case "/to-metadata.jar":
			return redirectTo("http://169.254.169.254/latest/meta-data/x.jar"), nil
		case "/to-internal.jar":
			return redirectTo("https://rebound.example.com/x.jar"), nil
		case "/to-http.jar":
			return redirectTo("http://repo.example.com/job.jar"), nil
		}
		return httpmock.NewBytesResponse(http.StatusOK, repositoryJar), nil
	})
	return mt
}

func redirectTo(to string) *http.Response {
	resp := httpmock.NewStringResponse(http.StatusFound, "")
	resp.Header.Set("Location", to)
	return resp
}

// Fetcher is the operator's jar fetcher in the world: the repository transport, the world's
// DNS, the shared jar directory, and the default policy (public addresses only).
func (b *Boundary) Fetcher() *flink.JarFetcher {
	root, _ := JarDir()
	return &flink.JarFetcher{
		Transport: b.Transport(), FileRoot: root, MaxBytes: JarMaxBytes,
		Policy: flink.FetchPolicy{Resolver: dnsTable{}},
	}
}

// Breaches returns the requests that reached a secret so far.
func (b *Boundary) Breaches() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.breaches...)
}

// Requests returns every URL requested so far.
func (b *Boundary) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

var (
	jarDirOnce sync.Once
	jarDir     string
	errJarDir  error
)

// JarDir is the world's jar directory (the operator's --jar-file-root), made once per
// process: jars/job.jar is a jar; jars/escape.jar is a symlink to ../secret.txt and
// jars/dir.jar a directory; secret.txt lies beside the directory.
func JarDir() (string, error) {
	jarDirOnce.Do(func() {
		base, err := os.MkdirTemp("", "flinkop-world-jars-")
		if err != nil {
			errJarDir = err
			return
		}
		jarDir = filepath.Join(base, "jars")
		for _, step := range []func() error{
			func() error { return os.Mkdir(jarDir, 0o755) },
			func() error { return os.WriteFile(filepath.Join(jarDir, "job.jar"), localJar, 0o644) },
			func() error { return os.WriteFile(filepath.Join(base, "secret.txt"), secret, 0o600) },
			func() error { return os.Symlink("../secret.txt", filepath.Join(jarDir, "escape.jar")) },
			func() error { return os.Mkdir(filepath.Join(jarDir, "dir.jar"), 0o755) },
		} {
			if errJarDir = step(); errJarDir != nil {
				return
			}
		}
	})
	return jarDir, errJarDir
}

var allowedDigests = map[string]bool{digest(repositoryJar): true, digest(localJar): true}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// boundaryKept: no jar fetch reached a secret, and every jar uploaded to a Flink cluster is
// one of the world's jars (nothing the operator could read or reach beyond them).
func (c *Checker) boundaryKept() []string {
	out := c.w.Boundary.Breaches()
	c.w.Sim.EachCluster(func(key string, cl *fakeflink.Cluster) {
		for _, j := range cl.Jars() {
			if j.Digest != "" && !allowedDigests[j.Digest] {
				out = append(out, fmt.Sprintf("%s: jar %s (%d bytes) is none of the world's jars: the operator uploaded something it read or reached outside the boundary", key, j.Name, j.Size))
			}
		}
	})
	return out
}
