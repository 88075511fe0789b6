package flink_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/flink"
)

func TestRESTSSLOf(t *testing.T) {
	tests := map[string]struct {
		conf    map[string]string
		want    flink.RESTSSL
		wantErr bool
	}{
		"nothing set":                  {conf: map[string]string{}, want: flink.RESTSSL{}},
		"enabled":                      {conf: map[string]string{"security.ssl.rest.enabled": "true"}, want: flink.RESTSSL{Enabled: true}},
		"any case, as Flink reads it":  {conf: map[string]string{"security.ssl.rest.enabled": "True"}, want: flink.RESTSSL{Enabled: true}},
		"authentication without SSL":   {conf: map[string]string{"security.ssl.rest.authentication-enabled": "true"}, want: flink.RESTSSL{}},
		"mutual":                       {conf: map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.authentication-enabled": "true"}, want: flink.RESTSSL{Enabled: true, Mutual: true}},
		"no hostname verification":     {conf: map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.verify-hostname": "false"}, want: flink.RESTSSL{Enabled: true, SkipHostname: true}},
		"internal SSL is not REST SSL": {conf: map[string]string{"security.ssl.internal.enabled": "true", "security.ssl.enabled": "true"}, want: flink.RESTSSL{}},
		"not a boolean":                {conf: map[string]string{"security.ssl.rest.enabled": "yes"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := flink.RESTSSLOf(tc.conf)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if back := flink.ParseRESTSSL(got.String()); back != got {
				t.Errorf("ParseRESTSSL(%q) = %+v, want %+v", got.String(), back, got)
			}
		})
	}
}

func TestHTTPS(t *testing.T) {
	for in, want := range map[string]string{
		"http://basic-rest.ns.svc:8081": "https://basic-rest.ns.svc:8081",
		"https://x:8081":                "https://x:8081",
	} {
		if got := flink.HTTPS(in); got != want {
			t.Errorf("HTTPS(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTLSTransportsReloadTheStores: a rotated trust store is read again once StoreReload has
// passed, and until then the transport built from the old one is kept.
func TestTLSTransportsReloadTheStores(t *testing.T) {
	dir := t.TempDir()
	trust := filepath.Join(dir, "truststore.pem")
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	transports := flink.NewTLSTransports(flink.OperatorStores{TrustStore: trust}, clk)
	ssl := flink.RESTSSL{Enabled: true}

	if _, err := transports.For(ssl).RoundTrip(&http.Request{}); err == nil {
		t.Fatal("a missing trust store gave a working transport")
	}
	if err := os.WriteFile(trust, fixtures.NewPKI(t, "x").CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := transports.For(ssl).(*http.Transport); ok {
		t.Fatal("the store was read again before StoreReload passed")
	}
	clk.SetTime(clk.Now().Add(flink.StoreReload))
	built, ok := transports.For(ssl).(*http.Transport)
	if !ok {
		t.Fatal("the rotated store was not read after StoreReload")
	}
	clk.SetTime(clk.Now().Add(flink.StoreReload))
	if transports.For(ssl) != built {
		t.Error("an unchanged store rebuilt the transport (and dropped its connections)")
	}
	_, err := transports.For(flink.RESTSSL{Enabled: true, Mutual: true}).RoundTrip(&http.Request{})
	if !errors.Is(err, flink.ErrNoClientCertificate) {
		t.Errorf("mutual authentication without a keystore: err = %v, want ErrNoClientCertificate", err)
	}
}
