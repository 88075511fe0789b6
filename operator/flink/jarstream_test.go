package flink_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/flinkop/flinkop/operator/flink"
)

// zeros is a jar body of n bytes that is never held in memory.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// A 64 MiB jar goes from the repository through the staging file into the upload with memory
// flat: the process allocates a small fraction of the jar's size (reading it into memory, as
// before, allocated it twice over).
func TestJarStreamsFromFetchToUpload(t *testing.T) {
	const size = 64 << 20
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/big.jar", func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(&zeros{n: size}), Header: http.Header{}, ContentLength: -1}, nil
	})
	var received int64
	jm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength <= size {
			t.Errorf("upload Content-Length %d, want the jar plus the multipart framing", r.ContentLength)
		}
		received, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(`{"filename":"/tmp/flink-web-upload/abc_big.jar","status":"success"}`))
	}))
	defer jm.Close()
	f := &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), MaxBytes: 2 * size, Policy: flink.FetchPolicy{Resolver: dns}}
	c := flink.NewClient(jm.URL)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	jar, err := f.Fetch(context.Background(), "https://jars.example.com/big.jar")
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.UploadJar(context.Background(), "big.jar", jar, jar.Size)
	_ = jar.Close()
	runtime.ReadMemStats(&after)
	if err != nil || id != "abc_big.jar" {
		t.Fatalf("upload: %q, %v", id, err)
	}
	if received <= size {
		t.Errorf("the JobManager received %d bytes, want the whole jar", received)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("fetching and uploading a %d MiB jar allocated %d MiB", size>>20, alloc>>20)
	}
}
