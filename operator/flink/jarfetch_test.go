package flink_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/flink"
)

func fetch(t *testing.T, f *flink.JarFetcher, uri string) (string, error) {
	t.Helper()
	jar, err := f.Fetch(context.Background(), uri)
	if err != nil {
		return "", err
	}
	defer func() { _ = jar.Close() }()
	data, err := io.ReadAll(jar)
	if int64(len(data)) != jar.Size {
		t.Errorf("read %d bytes, Size says %d", len(data), jar.Size)
	}
	return string(data), err
}

func TestJarFetcher(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/ok.jar", httpmock.NewBytesResponder(200, []byte("0123456789")))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/big.jar", httpmock.NewBytesResponder(200, []byte("0123456789a")))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/gone.jar", httpmock.NewStringResponder(404, "not found"))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/to-http.jar", redirect("http://jars.example.com/ok.jar"))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/to-metadata.jar", redirect("https://169.254.169.254/latest/x.jar"))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/to-other.jar", redirect("https://evil.example.org/x.jar"))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/loop.jar", redirect("https://jars.example.com/loop.jar"))
	mt.RegisterNoResponder(httpmock.NewStringResponder(500, "no responder"))

	root := t.TempDir()
	jars := filepath.Join(root, "jars")
	secret := filepath.Join(root, "secret.txt")
	must(t, os.Mkdir(jars, 0o700))
	must(t, os.WriteFile(filepath.Join(jars, "job.jar"), []byte("local jar"), 0o600))
	must(t, os.WriteFile(secret, []byte("token"), 0o600))
	must(t, os.Symlink(secret, filepath.Join(jars, "link.jar")))
	must(t, os.Mkdir(filepath.Join(jars, "dir.jar"), 0o700))

	f := &flink.JarFetcher{
		Transport: mt, MaxBytes: 10, FileRoot: jars, TempDir: t.TempDir(),
		Policy: flink.FetchPolicy{AllowedHosts: []string{"jars.example.com", "*.example.net"}, Resolver: dns},
	}
	for _, tc := range []struct {
		name, uri, want, wantErr string
		is                       error
	}{
		{name: "https", uri: "https://jars.example.com/ok.jar", want: "0123456789"},
		{name: "file in root", uri: "file://" + jars + "/job.jar", want: "local jar"},
		{name: "too large", uri: "https://jars.example.com/big.jar", is: flink.ErrJarTooLarge},
		{name: "404", uri: "https://jars.example.com/gone.jar", wantErr: "404"},
		{name: "missing file", uri: "file://" + jars + "/missing.jar", wantErr: "no such file"},
		{name: "s3", uri: "s3://bucket/job.jar", wantErr: "file, http and https jars only"},
		// Finding 1: ".jar" in a query or fragment, and paths out of the root.
		{name: "query decoy", uri: "file:///etc/passwd?x.jar", is: flink.ErrJarURI},
		{name: "fragment decoy", uri: "file:///etc/passwd#.jar", is: flink.ErrJarURI},
		{name: "encoded query", uri: "file:///etc/passwd%3Fx.jar", is: flink.ErrJarURI},
		{name: "outside root", uri: "file://" + secret + ".jar", is: flink.ErrFetchRefused},
		{name: "dot-dot", uri: "file://" + jars + "/../secret.txt/../jars/../x.jar", is: flink.ErrFetchRefused},
		{name: "proc", uri: "file:///proc/self/environ/x.jar", is: flink.ErrFetchRefused},
		{name: "symlink out of root", uri: "file://" + jars + "/link.jar", is: flink.ErrFetchRefused},
		{name: "directory", uri: "file://" + jars + "/dir.jar", is: flink.ErrFetchRefused},
		{name: "file host", uri: "file://other" + jars + "/job.jar", is: flink.ErrJarURI},
		// Finding 2: credentials, addresses, hosts and redirects.
		{name: "credentials", uri: "https://user:pw@jars.example.com/ok.jar", is: flink.ErrJarURI},
		{name: "loopback literal", uri: "http://127.0.0.1:8080/metrics.jar", is: flink.ErrFetchRefused},
		{name: "host not allowed", uri: "https://evil.example.org/x.jar", is: flink.ErrFetchRefused},
		{name: "https to http", uri: "https://jars.example.com/to-http.jar", is: flink.ErrFetchRefused},
		{name: "redirect to metadata", uri: "https://jars.example.com/to-metadata.jar", is: flink.ErrFetchRefused},
		{name: "redirect to other host", uri: "https://jars.example.com/to-other.jar", is: flink.ErrFetchRefused},
		{name: "redirect loop", uri: "https://jars.example.com/loop.jar", is: flink.ErrFetchRefused},
		{name: "allowed name, private address", uri: "https://internal.example.net/x.jar", is: flink.ErrFetchRefused},
		{name: "name that does not resolve", uri: "https://gone.example.net/x.jar", wantErr: "no such host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fetch(t, f, tc.uri)
			switch {
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("err = %v, want %v", err, tc.is)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, tc.wantErr)
			case tc.is == nil && tc.wantErr == "" && (err != nil || got != tc.want):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "pw@") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// fakeDNS resolves names from a table; others do not exist.
type fakeDNS map[string]string

func (d fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := d[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, errors.New("no such host")
}

var dns = fakeDNS{"jars.example.com": "93.184.216.34", "evil.example.org": "93.184.216.35", "internal.example.net": "10.0.0.5"}

func redirect(to string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(http.StatusFound, "")
		resp.Header.Set("Location", to)
		return resp, nil
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestJarFetcherFileRootOffByDefault(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "job.jar"), []byte("x"), 0o600))
	_, err := fetch(t, &flink.JarFetcher{}, "file://"+dir+"/job.jar")
	if !errors.Is(err, flink.ErrFetchRefused) || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("err = %v, want file:// jars disabled", err)
	}
}

// The default transport checks the dialled address after name resolution: a real server on
// loopback is refused unless its range is allowed.
func TestJarFetcherDialPolicy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("jar")) }))
	defer srv.Close()
	uri := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/job.jar"
	if _, err := fetch(t, &flink.JarFetcher{}, uri); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("loopback by name: err = %v, want refused at dial time", err)
	}
	allowed := &flink.JarFetcher{Policy: flink.FetchPolicy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	if got, err := fetch(t, allowed, uri); err != nil || got != "jar" {
		t.Errorf("allowed loopback: got %q, %v", got, err)
	}
}

// An endless body is cut at the limit while being written to disk, never held in memory.
func TestJarFetcherEndlessBody(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/endless.jar", func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(endless{}), Header: http.Header{}}, nil
	})
	f := &flink.JarFetcher{Transport: mt, MaxBytes: 1 << 20, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: dns}}
	if _, err := f.Fetch(context.Background(), "https://jars.example.com/endless.jar"); !errors.Is(err, flink.ErrJarTooLarge) {
		t.Errorf("err = %v, want ErrJarTooLarge", err)
	}
	if left, _ := os.ReadDir(f.TempDir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

func TestCheckAddr(t *testing.T) {
	p := flink.FetchPolicy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	for addr, allowed := range map[string]bool{
		"8.8.8.8": true, "2001:4860:4860::8888": true, "10.1.2.3": true,
		"127.0.0.1": false, "::1": false, "10.96.0.1": false, "192.168.1.1": false, "172.16.0.1": false,
		"169.254.169.254": false, "fe80::1": false, "0.0.0.0": false, "::": false, "100.64.0.1": false,
		"224.0.0.1": false, "fd00::1": false, "::ffff:127.0.0.1": false,
		"64:ff9b::a00:1": false, "64:ff9b::a9fe:a9fe": false, "::7f00:1": false, "::ffff:0:7f00:1": false,
		"2002:7f00:1::": false, "fec0::1": false, "198.18.0.1": false, "192.0.0.1": false, "240.0.0.1": false,
		"255.255.255.255": false, "fe80::1%eth0": false, "64:ff9b::808:808": true, "2002:808:808::1": true,
	} {
		if err := p.CheckAddr(netip.MustParseAddr(addr)); (err == nil) != allowed {
			t.Errorf("CheckAddr(%s) = %v, want allowed=%v", addr, err, allowed)
		}
	}
}

// Credentials stay with the jar's host: a redirect to a subdomain or another port (which Go's
// client would send them to) gets the request without them.
func TestCredentialsStayWithTheirHost(t *testing.T) {
	mt := httpmock.NewMockTransport()
	var sent []string
	for _, target := range []string{"https://cdn.jars.example.com/x.jar", "https://jars.example.com:8443/x.jar"} {
		mt.RegisterResponder(http.MethodGet, target, func(r *http.Request) (*http.Response, error) {
			sent = append(sent, r.Header.Get("Authorization"))
			return httpmock.NewStringResponse(http.StatusOK, "PK"), nil
		})
	}
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/sub.jar", redirect("https://cdn.jars.example.com/x.jar"))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/port.jar", redirect("https://jars.example.com:8443/x.jar"))
	f := &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}}
	for _, uri := range []string{"https://jars.example.com/sub.jar", "https://jars.example.com/port.jar"} {
		jar, err := f.FetchAuthorized(context.Background(), uri, "Bearer secret")
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		_ = jar.Close()
	}
	if len(sent) != 2 || sent[0] != "" || sent[1] != "" {
		t.Errorf("Authorization sent to the redirect targets: %q", sent)
	}
}

// A FIFO planted in the jar directory is refused at once instead of hanging the fetch (a
// blocking open would hang this test until go test's timeout).
func TestJarFetcherRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe.jar"), 0o600))
	if _, err := fetch(t, &flink.JarFetcher{FileRoot: dir}, "file://"+dir+"/pipe.jar"); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("err = %v, want refused (not a regular file)", err)
	}
}
