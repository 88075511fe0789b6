package flink_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/flinkop/flinkop/operator/flink"
)

func TestJarFetcher(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/ok.jar", httpmock.NewBytesResponder(200, []byte("0123456789")))
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/gone.jar", httpmock.NewStringResponder(404, "not found"))
	dir := t.TempDir()
	local := filepath.Join(dir, "job.jar")
	if err := os.WriteFile(local, []byte("local jar"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &flink.JarFetcher{Transport: mt, MaxBytes: 10}
	for _, tc := range []struct {
		uri, want, wantErr string
	}{
		{uri: "https://jars.example.com/ok.jar", want: "0123456789"},
		{uri: "file://" + local, wantErr: "larger than the limit"}, // 9 bytes fit, see below
		{uri: "https://jars.example.com/gone.jar", wantErr: "404"},
		{uri: "file://" + filepath.Join(dir, "missing.jar"), wantErr: "no such file"},
		{uri: "s3://bucket/job.jar", wantErr: "file, http and https jars only"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			if strings.HasPrefix(tc.uri, "file://"+local) {
				f.MaxBytes = 8 // the local jar has 9 bytes
				defer func() { f.MaxBytes = 10 }()
			}
			got, err := f.Fetch(context.Background(), tc.uri)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || string(got) != tc.want):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			if tc.wantErr == "larger than the limit" && !errors.Is(err, flink.ErrJarTooLarge) {
				t.Errorf("err %v is not ErrJarTooLarge", err)
			}
		})
	}
}
