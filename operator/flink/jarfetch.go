package flink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
)

// Default limits of jar fetching.
const (
	DefaultJarFetchTimeout = 2 * time.Minute
	DefaultJarMaxBytes     = 512 << 20
)

// JarFetcher stages session job jars from file:// URIs (only below FileRoot) and http(s)://
// URIs (only as Policy allows) into unlinked temporary files, bounded in time and size: memory
// stays flat whatever the jar's size.
type JarFetcher struct {
	// Transport carries http(s) requests (default: Policy.Transport(), which checks every
	// dialled address).
	Transport http.RoundTripper
	// Policy decides which http(s) URLs and redirects may be fetched.
	Policy FetchPolicy
	// FileRoot is the only directory file:// jars are read from, symlinks included; empty
	// (the default) refuses file:// jars.
	FileRoot string
	// TempDir holds jars while they are uploaded (default: os.TempDir()).
	TempDir string
	// Timeout bounds one fetch (default DefaultJarFetchTimeout).
	Timeout time.Duration
	// MaxBytes is the largest jar accepted (default DefaultJarMaxBytes).
	MaxBytes int64
}

// ErrJarTooLarge is returned for a jar over the size limit.
var ErrJarTooLarge = errors.New("jar is larger than the limit")

// ErrJarFetch wraps every failure to fetch a jar (not found, unreachable, refused, too
// large): the jar URI is the tenant's, so the failure is theirs to see in status.
var ErrJarFetch = errors.New("cannot fetch the jar")

// ErrJarURI is returned for a jar URI that is not a plain .jar path at a supported scheme.
var ErrJarURI = flinkv1beta1.ErrInvalidJarURI

// StagedJar is a fetched jar in an unlinked temporary file: reading it reads the jar; Close
// releases its space.
type StagedJar struct {
	file *os.File
	// Size is the jar's length in bytes.
	Size int64
}

// Read reads the jar.
func (s *StagedJar) Read(p []byte) (int, error) { return s.file.Read(p) }

// Close releases the jar's temporary file.
func (s *StagedJar) Close() error { return s.file.Close() }

// Fetch stages the jar at uri. The caller closes it. Every error wraps ErrJarFetch, and its
// message is at most MaxFetchError bytes.
func (f *JarFetcher) Fetch(ctx context.Context, uri string) (*StagedJar, error) {
	return f.FetchAuthorized(ctx, uri, "")
}

// FetchAuthorized is Fetch with an Authorization header value for the jar's host (empty:
// none). Credentials go over https only, and never to another host: Go's client drops the
// header on a redirect to a different domain, and the policy refuses https→http.
func (f *JarFetcher) FetchAuthorized(ctx context.Context, uri, authorization string) (*StagedJar, error) {
	jar, err := f.fetch(ctx, uri, authorization)
	if err != nil {
		return nil, boundFetchError(err)
	}
	return jar, nil
}

func (f *JarFetcher) fetch(ctx context.Context, uri, authorization string) (*StagedJar, error) {
	u, err := flinkv1beta1.ParseJarURI(uri)
	if err != nil {
		return nil, err
	}
	timeout, limit := f.Timeout, f.MaxBytes
	if timeout <= 0 {
		timeout = DefaultJarFetchTimeout
	}
	if limit <= 0 {
		limit = DefaultJarMaxBytes
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.ReadCloser
	switch u.Scheme {
	case "file":
		if authorization != "" {
			return nil, fmt.Errorf("%w: credentials are for https jars", ErrFetchRefused)
		}
		body, err = f.open(u)
	case "http", "https":
		body, err = f.get(ctx, u, authorization)
	default:
		err = fmt.Errorf("%w: %q: the operator fetches file, http and https jars only", ErrJarURI, u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	return f.stage(body, limit, u.Redacted())
}

// open opens a file:// jar through an os.Root at FileRoot, so neither ".." nor a symlink
// reaches outside it.
func (f *JarFetcher) open(u *url.URL) (io.ReadCloser, error) {
	if f.FileRoot == "" {
		return nil, fmt.Errorf("%w: file:// jars are disabled (the operator's --jar-file-root is not set)", ErrFetchRefused)
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("%w: file:// jar on host %q", ErrJarURI, u.Host)
	}
	root := path.Clean("/" + f.FileRoot)
	p := path.Clean(u.Path)
	rel, ok := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/")
	if !ok || rel == "" {
		return nil, fmt.Errorf("%w: %s is outside the jar directory %s", ErrFetchRefused, p, root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open jar directory: %w", err)
	}
	defer func() { _ = r.Close() }()
	// Non-blocking, so a FIFO planted in the directory cannot hang the open; a regular file
	// reads the same either way.
	file, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: open jar %s: %w", ErrFetchRefused, p, err)
	}
	if st, err := file.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = file.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrFetchRefused, p)
	}
	return file, nil
}

func (f *JarFetcher) get(ctx context.Context, u *url.URL, authorization string) (io.ReadCloser, error) {
	if authorization != "" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: credentials are sent over https only", ErrFetchRefused)
	}
	if err := f.Policy.CheckURL(u); err != nil {
		return nil, fmt.Errorf("fetch jar %s: %w", u.Redacted(), err)
	}
	if err := f.Policy.CheckHost(ctx, u); err != nil {
		return nil, fmt.Errorf("fetch jar %s: %w", u.Redacted(), err)
	}
	transport := f.Transport
	if transport == nil {
		transport = f.Policy.Transport()
	}
	client := &http.Client{Transport: transport, CheckRedirect: f.Policy.checkRedirect}
	if f.Transport == nil {
		defer client.CloseIdleConnections() // this fetch's own transport: leave nothing behind
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("jar request: %w", err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch jar: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("fetch jar %s: HTTP %s", u.Redacted(), clip.Line(resp.Status, MaxServerText))
	}
	return resp.Body, nil
}

// stage copies body into an unlinked temporary file, refusing more than limit bytes.
func (f *JarFetcher) stage(body io.Reader, limit int64, what string) (*StagedJar, error) {
	file, err := os.CreateTemp(f.TempDir, "flinkop-jar-*")
	if err != nil {
		return nil, fmt.Errorf("stage jar: %w", err)
	}
	// Unlinked at once: the space is freed when the file is closed, even after a crash.
	if err := os.Remove(file.Name()); err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("stage jar: %w", err)
	}
	n, err := io.Copy(file, io.LimitReader(body, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%s: %w (%d bytes)", what, ErrJarTooLarge, limit)
	} else if err != nil {
		err = fmt.Errorf("read jar %s: %w", what, err)
	}
	if err == nil {
		_, err = file.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	return &StagedJar{file: file, Size: n}, nil
}
