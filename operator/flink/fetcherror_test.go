package flink_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jarcoal/httpmock"

	"github.com/flinkop/flinkop/operator/flink"
)

// boundedFetchError fails t unless err is a jar fetch error whose message is short, valid
// UTF-8 and on one printable line, and says want.
func boundedFetchError(t *testing.T, err error, want string) {
	t.Helper()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	switch {
	case !errors.Is(err, flink.ErrJarFetch):
		t.Errorf("err = %.300q, want ErrJarFetch", msg)
	case len(msg) > flink.MaxFetchError:
		t.Errorf("message of %d bytes, want at most %d: %.300q", len(msg), flink.MaxFetchError, msg)
	case !utf8.ValidString(msg) || strings.IndexFunc(msg, unicode.IsControl) >= 0:
		t.Errorf("message %q has invalid UTF-8 or control characters", msg)
	case !strings.Contains(msg, want):
		t.Errorf("message %.300q does not say %q", msg, want)
	}
}

// Whatever a jar server puts in its status line, the fetch's error is short and printable:
// it goes into status.error, an Event and log lines.
func TestJarServerStatusLineIsCut(t *testing.T) {
	cases := map[string]struct {
		code   int
		status string
		// wantSays is what the error must still say.
		wantSays string
	}{
		"a 4 MB reason phrase":             {code: 500, status: "500 " + strings.Repeat("x", 4<<20), wantSays: "HTTP 500 xxxxxxxx"},
		"a reason phrase forging a line":   {code: 503, status: "503 \x1b[2J\r\n{\"level\":\"info\"}", wantSays: "HTTP 503 ?[2J?"},
		"a reason phrase of invalid UTF-8": {code: 404, status: "404 \xff\xfe\x00", wantSays: "HTTP 404 ??"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, "https://jars.example.com/x.jar", func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: tc.code, Status: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.status))}, nil
			})
			f := &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: dns}}
			_, err := f.Fetch(context.Background(), "https://jars.example.com/x.jar")
			boundedFetchError(t, err, tc.wantSays)
		})
	}
}

// The operator's own transport reads no more than 64 KiB of a jar server's status line and
// headers: a 4 MB status line is refused as it comes in, not kept in memory.
func TestJarServerHeadersAreBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_, _ = io.WriteString(c, "HTTP/1.1 500 "+strings.Repeat("x", 4<<20)+"\r\nContent-Length: 0\r\n\r\n")
	}()
	f := &flink.JarFetcher{TempDir: t.TempDir(), Policy: flink.FetchPolicy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	_, err = f.Fetch(context.Background(), "http://"+ln.Addr().String()+"/x.jar")
	boundedFetchError(t, err, "exceeded")
}
