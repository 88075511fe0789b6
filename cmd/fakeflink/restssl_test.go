package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/flink"
)

// TestRESTSSLAsTheOperatorCallsIt serves a fake JobManager's REST API with Flink's REST SSL
// options (cert-manager's JKS and PKCS #12 stores) and calls it with the operator's client and
// TLS transports: HTTPS verified against the operator's trust store works, and so does mutual
// authentication with the operator's keystore; plain HTTP, an unknown CA, a missing client
// certificate and a host name the certificate does not name fail.
func TestRESTSSLAsTheOperatorCallsIt(t *testing.T) {
	pki := fixtures.NewPKI(t, "localhost")
	other := fixtures.NewPKI(t, "localhost")
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	serverJKS := write("keystore.jks", pki.KeyJKS(t, pki.Server, "password1234"))
	trustJKS := write("truststore.jks", pki.TrustJKS(t, "password1234"))
	operatorTrust := write("operator-truststore.p12", pki.TrustPKCS12(t, "pw"))
	operatorKey := write("operator-keystore.p12", pki.KeyPKCS12(t, pki.Client, "pw"))
	otherTrust := write("other-truststore.pem", other.CAPEM())

	tests := map[string]struct {
		conf    map[string]string
		host    string
		stores  flink.OperatorStores
		wantErr string
	}{
		"https": {
			conf:   map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234", "security.ssl.rest.key-password": "password1234"},
			stores: flink.OperatorStores{TrustStore: operatorTrust, Password: "pw"},
		},
		"https, the stores from the keys without rest.": {
			conf:   map[string]string{"security.ssl.rest.enabled": "TRUE", "security.ssl.keystore": serverJKS, "security.ssl.keystore-password": "password1234"},
			stores: flink.OperatorStores{TrustStore: operatorTrust, Password: "pw"},
		},
		"mutual": {
			conf:   map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.authentication-enabled": "true", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234", "security.ssl.rest.truststore": trustJKS, "security.ssl.rest.truststore-password": "password1234"},
			stores: flink.OperatorStores{TrustStore: operatorTrust, KeyStore: operatorKey, Password: "pw"},
		},
		"mutual, the operator has no keystore": {
			conf:    map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.authentication-enabled": "true", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234", "security.ssl.rest.truststore": trustJKS, "security.ssl.rest.truststore-password": "password1234"},
			stores:  flink.OperatorStores{TrustStore: operatorTrust, Password: "pw"},
			wantErr: "no client certificate",
		},
		"a CA the operator does not trust": {
			conf:    map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234"},
			stores:  flink.OperatorStores{TrustStore: otherTrust},
			wantErr: "certificate signed by unknown authority",
		},
		"a host the certificate does not name": {
			conf:    map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234"},
			host:    "127.0.0.1",
			stores:  flink.OperatorStores{TrustStore: operatorTrust, Password: "pw"},
			wantErr: "doesn't contain any IP SANs",
		},
		"no hostname verification": {
			conf:   map[string]string{"security.ssl.rest.enabled": "true", "security.ssl.verify-hostname": "false", "security.ssl.rest.keystore": serverJKS, "security.ssl.rest.keystore-password": "password1234"},
			host:   "127.0.0.1",
			stores: flink.OperatorStores{TrustStore: operatorTrust, Password: "pw"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			base := serveREST(t, tc.conf)
			if tc.host != "" {
				base = strings.Replace(base, "localhost", tc.host, 1)
			}
			ssl, err := flink.RESTSSLOf(tc.conf)
			if err != nil {
				t.Fatal(err)
			}
			transports := flink.NewTLSTransports(tc.stores, clocktesting.NewFakePassiveClock(time.Now()))
			c := flink.NewClient(flink.HTTPS(base), flink.WithTransport(transports.For(ssl)))
			_, err = c.ListJobs(context.Background())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("HTTPS call: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("HTTPS call: err = %v, want one saying %q", err, tc.wantErr)
			}
			if _, err := flink.NewClient(base).ListJobs(context.Background()); err == nil {
				t.Error("a plain HTTP call to the SSL endpoint succeeded")
			}
		})
	}
}

func TestRESTSSLRefusesToStartWithoutItsKeystore(t *testing.T) {
	for name, conf := range map[string]map[string]string{
		"no keystore":          {"security.ssl.rest.enabled": "true"},
		"a keystore not there": {"security.ssl.rest.enabled": "true", "security.ssl.rest.keystore": filepath.Join(t.TempDir(), "missing.jks")},
		"not a boolean":        {"security.ssl.rest.enabled": "yes"},
		"authentication, no trust store": {
			"security.ssl.rest.enabled": "true", "security.ssl.rest.authentication-enabled": "true", "security.ssl.rest.keystore": "/x.jks",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if lis, _, err := listenREST(conf); err == nil {
				_ = lis.Close()
				t.Fatal("the REST endpoint started")
			}
		})
	}
}

// serveREST serves a fake JobManager's REST API on a free local port as conf says, and
// returns its http:// base URL on localhost.
func serveREST(t *testing.T, conf map[string]string) string {
	t.Helper()
	conf["rest.port"], conf["rest.bind-address"] = "0", "127.0.0.1"
	lis, _, err := listenREST(conf)
	if err != nil {
		t.Fatal(err)
	}
	jm, err := newJobManager(&options{mode: "jobmanager", conf: conf}, clocktesting.NewFakeClock(time.Now()), durable{})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: jm.handler(), ReadHeaderTimeout: time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := strings.Cut(lis.Addr().String(), ":")
	return "http://localhost:" + port
}
