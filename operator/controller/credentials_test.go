package controller_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

func TestSecretCredentials(t *testing.T) {
	labelled := map[string]string{sessionjob.LabelJarCredentials: "true"}
	secret := func(name string, labels map[string]string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	c := fake.NewClientBuilder().WithObjects(
		secret("token", labelled, map[string]string{"authorization": "Bearer abc", "host": "repo.example.com"}),
		secret("basic", labelled, map[string]string{"username": "u", "password": "p", "host": "repo.example.com"}),
		secret("db-password", nil, map[string]string{"authorization": "Bearer db", "host": "repo.example.com"}),
		secret("empty", labelled, map[string]string{"host": "repo.example.com"}),
		secret("anywhere", labelled, map[string]string{"authorization": "Bearer abc"}),
	).Build()
	read := controller.SecretCredentials(c)
	for name, want := range map[string]string{
		"token": "Bearer abc", "basic": "Basic dTpw",
		"db-password": "error: not labelled", "empty": "error: neither", "missing": "error: not found",
		"anywhere": "error: no host key",
	} {
		creds, err := read(context.Background(), ns, name)
		got := creds.Authorization
		if err == nil && creds.Host != "repo.example.com" {
			t.Errorf("%s: host %q", name, creds.Host)
		}
		switch wantErr, isErr := strings.CutPrefix(want, "error: "); {
		case isErr && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%s: %q, %v; want an error saying %q", name, got, err, wantErr)
		case !isErr && (err != nil || got != want):
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
