package keystore_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/flink/keystore"
)

func TestCertificatesOfEveryStoreFormat(t *testing.T) {
	pki := fixtures.NewPKI(t, "basic-rest.ns.svc")
	tests := map[string]struct {
		data     []byte
		password string
		wantErr  string
	}{
		"JKS trust store":           {data: pki.TrustJKS(t, "password1234"), password: "password1234"},
		"JKS keystore: its chain":   {data: pki.KeyJKS(t, pki.Server, "pw"), password: "pw"},
		"PKCS #12 trust store":      {data: pki.TrustPKCS12(t, "pw"), password: "pw"},
		"PKCS #12 keystore":         {data: pki.KeyPKCS12(t, pki.Server, "pw"), password: "pw"},
		"PEM":                       {data: pki.CAPEM()},
		"JKS, wrong password":       {data: pki.TrustJKS(t, "password1234"), password: "nope", wantErr: "JKS"},
		"PKCS #12, wrong password":  {data: pki.TrustPKCS12(t, "pw"), password: "nope", wantErr: "PKCS #12"},
		"PEM without a certificate": {data: []byte("-----BEGIN NOTHING-----\n-----END NOTHING-----\n"), wantErr: "no certificate"},
		"not a store":               {data: []byte("hello"), wantErr: "PKCS #12"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			certs, err := keystore.Certificates(tc.data, tc.password)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range certs {
				found = found || bytes.Equal(c.Raw, pki.CA.Raw)
			}
			if !found {
				t.Errorf("the CA is not among the %d certificates", len(certs))
			}
		})
	}
}

func TestKeyPairOfEveryStoreFormat(t *testing.T) {
	pki := fixtures.NewPKI(t, "basic-rest.ns.svc")
	pemPair := append(fixtures.PEMKeyPair(t, pki.Server), pki.CAPEM()...)
	tests := map[string]struct {
		data          []byte
		store, key    string
		wantErrSubstr string
	}{
		"JKS":                  {data: pki.KeyJKS(t, pki.Server, "pw"), store: "pw"},
		"PKCS #12":             {data: pki.KeyPKCS12(t, pki.Server, "pw"), store: "pw"},
		"PEM key and chain":    {data: pemPair},
		"JKS, wrong key pass":  {data: pki.KeyJKS(t, pki.Server, "pw"), store: "pw", key: "other", wantErrSubstr: "JKS key"},
		"JKS trust store only": {data: pki.TrustJKS(t, "pw"), store: "pw", wantErrSubstr: "no private key"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pair, err := keystore.KeyPair(tc.data, tc.store, tc.key)
			if tc.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSubstr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(pair.Certificate) == 0 || !bytes.Equal(pair.Certificate[0], pki.Server.Certificate[0]) {
				t.Errorf("the pair's leaf is not the server certificate")
			}
			if pair.PrivateKey == nil {
				t.Errorf("no private key")
			}
		})
	}
}

func TestReadFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, keystore.MaxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := keystore.ReadFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ReadFile of %d bytes: err = %v, want larger than", keystore.MaxSize+1, err)
	}
	if _, err := keystore.ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadFile of a missing file: no error")
	}
}
