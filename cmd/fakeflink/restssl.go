package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"

	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/operator/flink/keystore"
)

// listenREST opens the REST endpoint's listener: TLS when the configuration enables REST SSL
// (image.RESTSSLOf), with the keystore it names and, with authentication enabled, a client
// certificate required that its trust store signed. A store that cannot be read fails the
// JobManager, as Flink's REST endpoint fails to start.
func listenREST(conf map[string]string) (net.Listener, string, error) {
	ssl, err := image.RESTSSLOf(conf)
	if err != nil {
		return nil, "", err
	}
	var cfg *tls.Config
	if ssl.Enabled {
		if cfg, err = serverTLS(ssl); err != nil {
			return nil, "", err
		}
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(conf["rest.bind-address"], strconv.Itoa(confInt(conf, "rest.port", 8081))))
	if err != nil {
		return nil, "", err
	}
	if cfg == nil {
		return lis, "http", nil
	}
	return tls.NewListener(lis, cfg), "https", nil
}

func serverTLS(ssl image.RESTSSL) (*tls.Config, error) {
	data, err := keystore.ReadFile(ssl.KeyStore)
	if err != nil {
		return nil, fmt.Errorf("REST SSL keystore: %w", err)
	}
	pair, err := keystore.KeyPair(data, ssl.KeyStorePassword, ssl.KeyPassword)
	if err != nil {
		return nil, fmt.Errorf("REST SSL keystore %s: %w", ssl.KeyStore, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if ssl.Authentication {
		data, err := keystore.ReadFile(ssl.TrustStore)
		if err != nil {
			return nil, fmt.Errorf("REST SSL trust store: %w", err)
		}
		certs, err := keystore.Certificates(data, ssl.TrustStorePassword)
		if err != nil {
			return nil, fmt.Errorf("REST SSL trust store %s: %w", ssl.TrustStore, err)
		}
		cfg.ClientCAs = x509.NewCertPool()
		for _, c := range certs {
			cfg.ClientCAs.AddCert(c)
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}
