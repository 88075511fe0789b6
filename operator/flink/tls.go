package flink

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/flinkop/flinkop/operator/flink/keystore"
)

// Flink's REST SSL options (SecurityOptions), as the operator reads them from a cluster's
// configuration. The stores they name are paths inside the JobManager's pod: the operator
// never opens them (a tenant would choose which of the operator's files it reads).
const (
	KeyRESTSSLEnabled        = "security.ssl.rest.enabled"
	KeyRESTSSLAuthentication = "security.ssl.rest.authentication-enabled"
	KeySSLVerifyHostname     = "security.ssl.verify-hostname"
)

// RESTSSL is how a cluster's REST endpoint speaks TLS.
type RESTSSL struct {
	// Enabled: the endpoint serves HTTPS only (security.ssl.rest.enabled, default false).
	Enabled bool
	// Mutual: it asks for a client certificate signed by its trust store
	// (security.ssl.rest.authentication-enabled, default false; only with Enabled).
	Mutual bool
	// SkipHostname: the certificate need not name the host dialled
	// (security.ssl.verify-hostname: false); its chain is verified all the same.
	SkipHostname bool
}

// String is the form AnnotationRESTSSL stores: "https", then ",client-certificate" and
// ",no-hostname-verification" as they apply.
func (s RESTSSL) String() string {
	if !s.Enabled {
		return "http"
	}
	out := "https"
	if s.Mutual {
		out += "," + sslClientCertificate
	}
	if s.SkipHostname {
		out += "," + sslNoHostname
	}
	return out
}

const (
	sslClientCertificate = "client-certificate"
	sslNoHostname        = "no-hostname-verification"
)

// ParseRESTSSL reads what String wrote; anything else is plain HTTP.
func ParseRESTSSL(v string) RESTSSL {
	parts := strings.Split(v, ",")
	if parts[0] != "https" {
		return RESTSSL{}
	}
	s := RESTSSL{Enabled: true}
	for _, p := range parts[1:] {
		s.Mutual = s.Mutual || p == sslClientCertificate
		s.SkipHostname = s.SkipHostname || p == sslNoHostname
	}
	return s
}

// RESTSSLOf reads a cluster's REST SSL options from its flattened configuration. Flink
// refuses to start on a boolean other than true or false in any case, and so does this.
func RESTSSLOf(conf map[string]string) (RESTSSL, error) {
	var s RESTSSL
	verify := true
	for _, o := range []struct {
		key string
		dst *bool
	}{{KeyRESTSSLEnabled, &s.Enabled}, {KeyRESTSSLAuthentication, &s.Mutual}, {KeySSLVerifyHostname, &verify}} {
		key, dst := o.key, o.dst
		v, ok := conf[key]
		if !ok {
			continue
		}
		b, err := parseBool(v)
		if err != nil {
			return RESTSSL{}, fmt.Errorf("%s: %w", key, err)
		}
		*dst = b
	}
	s.Mutual = s.Mutual && s.Enabled
	s.SkipHostname = s.Enabled && !verify
	return s, nil
}

// parseBool parses a boolean as Flink's configuration does: "true" or "false", in any case.
func parseBool(v string) (bool, error) {
	switch {
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (true or false)", v)
}

// HTTPS turns a JobManager address into its https:// form.
func HTTPS(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return base
	}
	u.Scheme = "https"
	return u.String()
}

// OperatorStores are the operator's own TLS stores for REST endpoints that enable SSL, named
// as the Apache operator's chart names them (tls.create): OPERATOR_TRUSTSTORE_PATH (the CAs
// a JobManager's certificate must chain to; unset: the system's), OPERATOR_KEYSTORE_PATH (the
// client certificate shown to a cluster with authentication enabled) and
// OPERATOR_KEYSTORE_PASSWORD (both stores' password). JKS, PKCS #12 and PEM are read.
type OperatorStores struct {
	TrustStore, KeyStore, Password string
}

// OperatorStoresFromEnv reads OperatorStores from the environment through getenv.
func OperatorStoresFromEnv(getenv func(string) string) OperatorStores {
	return OperatorStores{
		TrustStore: getenv("OPERATOR_TRUSTSTORE_PATH"),
		KeyStore:   getenv("OPERATOR_KEYSTORE_PATH"),
		Password:   getenv("OPERATOR_KEYSTORE_PASSWORD"),
	}
}

// StoreReload is how often TLSTransports re-reads the operator's stores, rebuilding its
// transports when they changed, so a rotated Secret takes effect without a restart.
const StoreReload = time.Minute

// TLSTransports hands out the HTTPS transports of REST endpoints, one per kind of RESTSSL,
// built from the operator's stores and rebuilt when StoreReload has passed. Safe for
// concurrent use.
type TLSTransports struct {
	stores OperatorStores
	clock  clock.PassiveClock
	read   func(string) ([]byte, error)

	mu     sync.Mutex
	loaded time.Time
	digest [sha256.Size]byte // of the stores the transports were built from
	byKind map[RESTSSL]http.RoundTripper
}

// NewTLSTransports returns the transports built from stores.
func NewTLSTransports(stores OperatorStores, clk clock.PassiveClock) *TLSTransports {
	return &TLSTransports{stores: stores, clock: clk, read: keystore.ReadFile}
}

// For returns the transport of endpoints with ssl. When the stores cannot be read, or a
// cluster asks for a client certificate the operator has none of, it is a transport whose
// every call fails with that error, which the reconcile reports.
func (t *TLSTransports) For(ssl RESTSSL) http.RoundTripper {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now := t.clock.Now(); t.byKind == nil || now.Sub(t.loaded) >= StoreReload {
		t.loaded = now
		if d := t.storesDigest(); t.byKind == nil || d != t.digest {
			for _, rt := range t.byKind { // rotated: new connections with the new stores
				if tr, ok := rt.(*http.Transport); ok {
					tr.CloseIdleConnections()
				}
			}
			t.byKind, t.digest = map[RESTSSL]http.RoundTripper{}, d
		}
	}
	if rt, ok := t.byKind[ssl]; ok {
		return rt
	}
	var rt http.RoundTripper
	if cfg, err := t.config(ssl); err != nil {
		rt = FailingTransport(err)
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = cfg
		tr.MaxResponseHeaderBytes = MaxAnswerHeaderBytes
		rt = tr
	}
	t.byKind[ssl] = rt
	return rt
}

// storesDigest is a digest of the stores' bytes (or of why they cannot be read): the
// transports are rebuilt, and their connections dropped, only when it changes.
func (t *TLSTransports) storesDigest() [sha256.Size]byte {
	h := sha256.New()
	for _, path := range []string{t.stores.TrustStore, t.stores.KeyStore} {
		if path == "" {
			continue
		}
		data, err := t.read(path)
		if err != nil {
			data = []byte(err.Error())
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	var d [sha256.Size]byte
	copy(d[:], h.Sum(nil))
	return d
}

// ErrNoClientCertificate is the error of a cluster with REST authentication enabled when the
// operator has no keystore.
var ErrNoClientCertificate = errors.New("the cluster enables " + KeyRESTSSLAuthentication +
	" but the operator has no client certificate (OPERATOR_KEYSTORE_PATH)")

func (t *TLSTransports) config(ssl RESTSSL) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.stores.TrustStore != "" {
		data, err := t.read(t.stores.TrustStore)
		if err != nil {
			return nil, fmt.Errorf("operator trust store: %w", err)
		}
		certs, err := keystore.Certificates(data, t.stores.Password)
		if err != nil {
			return nil, fmt.Errorf("operator trust store %s: %w", t.stores.TrustStore, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		for _, c := range certs {
			cfg.RootCAs.AddCert(c)
		}
	}
	if ssl.Mutual {
		if t.stores.KeyStore == "" {
			return nil, ErrNoClientCertificate
		}
		data, err := t.read(t.stores.KeyStore)
		if err != nil {
			return nil, fmt.Errorf("operator keystore: %w", err)
		}
		pair, err := keystore.KeyPair(data, t.stores.Password, "")
		if err != nil {
			return nil, fmt.Errorf("operator keystore %s: %w", t.stores.KeyStore, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if ssl.SkipHostname {
		verifyChainOnly(cfg)
	}
	return cfg, nil
}

// verifyChainOnly makes cfg verify the server's chain against its roots without matching the
// host name, as Flink's client does with security.ssl.verify-hostname: false.
func verifyChainOnly(cfg *tls.Config) {
	roots := cfg.RootCAs
	cfg.InsecureSkipVerify = true //nolint:gosec // the chain is verified below; only the host name is not
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}

// FailingTransport is a transport whose every call fails with err: the calls of a cluster
// whose TLS set-up is wrong, so that each reconcile reports why.
func FailingTransport(err error) http.RoundTripper { return failingTransport{err} }

type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, f.err
}
