// Package keystore reads the key and trust stores that Flink's REST SSL options and the Apache
// operator's OPERATOR_*STORE_PATH variables name: Java KeyStores (JKS), PKCS #12 files (Java's
// default keystore type) and PEM files, told apart by their content as Java's keystore loader
// tells JKS from PKCS #12. It holds no Flink rule of its own: the operator reads its trust store
// with it, and fakeflink its keystore.
package keystore

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"

	jks "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// MaxSize bounds a store file: a key, its chain and a few CA certificates take a few KiB.
const MaxSize = 1 << 20

// jksMagic starts every Java KeyStore file.
const jksMagic = 0xFEEDFEED

// ReadFile reads a store file of at most MaxSize bytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path) //nolint:gosec // the operator's own store or the fake's configured one, never a tenant's path
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read store %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("store %s is larger than %d bytes", path, MaxSize)
	}
	return data, nil
}

// Certificates returns every certificate of a trust store: the trusted entries and the chains
// of the key entries of a JKS, the certificates of a PKCS #12 file or of a PEM file.
func Certificates(data []byte, password string) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	var err error
	switch {
	case isPEM(data):
		certs, err = pemCertificates(data)
	case isJKS(data):
		certs, err = jksCertificates(data, password)
	default:
		certs, err = pkcs12Certificates(data, password)
	}
	if err != nil {
		return nil, err
	}
	if len(certs) == 0 {
		return nil, errors.New("the store holds no certificate")
	}
	return certs, nil
}

func pemCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return certs, nil
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM certificate: %w", err)
		}
		certs = append(certs, c)
	}
}

func jksCertificates(data []byte, password string) ([]*x509.Certificate, error) {
	ks, err := loadJKS(data, password)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, alias := range ks.Aliases() {
		var chain []jks.Certificate
		if e, err := ks.GetTrustedCertificateEntry(alias); err == nil {
			chain = []jks.Certificate{e.Certificate}
		} else if c, err := ks.GetPrivateKeyEntryCertificateChain(alias); err == nil {
			chain = c
		}
		for _, c := range chain {
			parsed, err := x509.ParseCertificate(c.Content)
			if err != nil {
				return nil, fmt.Errorf("JKS entry %q: %w", alias, err)
			}
			certs = append(certs, parsed)
		}
	}
	return certs, nil
}

func pkcs12Certificates(data []byte, password string) ([]*x509.Certificate, error) {
	certs, err := pkcs12.DecodeTrustStore(data, password)
	if err == nil {
		return certs, nil
	}
	// A PKCS #12 keystore holds a key entry, not trusted certificate bags.
	_, leaf, chain, kerr := pkcs12.DecodeChain(data, password)
	if kerr != nil {
		return nil, fmt.Errorf("PKCS #12 trust store: %w", err)
	}
	return append([]*x509.Certificate{leaf}, chain...), nil
}

// KeyPair returns the first private key of a keystore with its certificate chain.
// keyPassword decrypts the key of a JKS entry (Flink's key-password); "" means the store's.
func KeyPair(data []byte, storePassword, keyPassword string) (tls.Certificate, error) {
	if keyPassword == "" {
		keyPassword = storePassword
	}
	switch {
	case isPEM(data):
		pair, err := tls.X509KeyPair(data, data)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("PEM key pair: %w", err)
		}
		return pair, nil
	case isJKS(data):
		ks, err := loadJKS(data, storePassword)
		if err != nil {
			return tls.Certificate{}, err
		}
		for _, alias := range ks.Aliases() {
			if !ks.IsPrivateKeyEntry(alias) {
				continue
			}
			e, err := ks.GetPrivateKeyEntry(alias, []byte(keyPassword))
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("JKS key %q: %w", alias, err)
			}
			key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("JKS key %q: %w", alias, err)
			}
			pair := tls.Certificate{PrivateKey: key}
			for _, c := range e.CertificateChain {
				pair.Certificate = append(pair.Certificate, c.Content)
			}
			return pair, nil
		}
		return tls.Certificate{}, errors.New("the JKS holds no private key entry")
	default:
		key, leaf, chain, err := pkcs12.DecodeChain(data, storePassword)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("PKCS #12 keystore: %w", err)
		}
		pair := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
		for _, c := range chain {
			pair.Certificate = append(pair.Certificate, c.Raw)
		}
		return pair, nil
	}
}

func isPEM(data []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN")) }

func isJKS(data []byte) bool { return len(data) >= 4 && binary.BigEndian.Uint32(data) == jksMagic }

func loadJKS(data []byte, password string) (jks.KeyStore, error) {
	ks := jks.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return ks, fmt.Errorf("JKS: %w", err)
	}
	return ks, nil
}
