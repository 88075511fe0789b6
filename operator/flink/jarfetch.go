package flink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Default limits of jar fetching.
const (
	DefaultJarFetchTimeout = 2 * time.Minute
	DefaultJarMaxBytes     = 512 << 20
)

// JarFetcher reads session job jars from file:// (the operator's file system) and http(s)://
// URIs, with a timeout and a size limit.
type JarFetcher struct {
	// Transport carries http(s) requests (default: Go's default transport).
	Transport http.RoundTripper
	// Timeout bounds one fetch (default DefaultJarFetchTimeout).
	Timeout time.Duration
	// MaxBytes is the largest jar accepted (default DefaultJarMaxBytes).
	MaxBytes int64
}

// ErrJarTooLarge is returned for a jar over the size limit.
var ErrJarTooLarge = errors.New("jar is larger than the limit")

// Fetch returns the jar at uri.
func (f *JarFetcher) Fetch(ctx context.Context, uri string) ([]byte, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("jar URI %q: %w", uri, err)
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
		if body, err = os.Open(u.Path); err != nil {
			return nil, fmt.Errorf("open jar: %w", err)
		}
	case "http", "https":
		if body, err = f.get(ctx, uri); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("jar URI %q: the operator fetches file, http and https jars only", uri)
	}
	defer func() { _ = body.Close() }()
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read jar %s: %w", uri, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", uri, ErrJarTooLarge, limit)
	}
	return data, nil
}

func (f *JarFetcher) get(ctx context.Context, uri string) (io.ReadCloser, error) {
	client := &http.Client{Transport: f.Transport}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, fmt.Errorf("jar request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch jar: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("fetch jar %s: HTTP %s", uri, resp.Status)
	}
	return resp.Body, nil
}
