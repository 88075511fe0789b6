package controller

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// SecretCredentials returns the jar credentials reader of the session job executor: it reads
// the named Secret directly (r should be uncached: the operator keeps no cache of Secrets),
// requires the label sessionjob.LabelJarCredentials "true" (a tenant can only have sent the
// Secrets made for it, never any Secret of the namespace), and the key "host" (host[:port]:
// the only host they are sent to). The Authorization header value comes from key
// "authorization", or "username" and "password" (Basic).
func SecretCredentials(r client.Reader) func(ctx context.Context, namespace, name string) (act.JarCredentials, error) {
	return func(ctx context.Context, namespace, name string) (act.JarCredentials, error) {
		var none act.JarCredentials
		var s corev1.Secret
		if err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &s); err != nil {
			return none, fmt.Errorf("secret %s: %w", name, err)
		}
		if s.Labels[sessionjob.LabelJarCredentials] != "true" {
			return none, fmt.Errorf("secret %s is not labelled %s: \"true\"", name, sessionjob.LabelJarCredentials)
		}
		host := strings.TrimSpace(string(s.Data["host"]))
		if host == "" {
			return none, fmt.Errorf("secret %s has no host key: the host its credentials are for", name)
		}
		if a := strings.TrimSpace(string(s.Data["authorization"])); a != "" {
			return act.JarCredentials{Authorization: a, Host: host}, nil
		}
		user, pass := string(s.Data["username"]), string(s.Data["password"])
		if user == "" {
			return none, fmt.Errorf("secret %s has neither an authorization nor a username key", name)
		}
		return act.JarCredentials{Authorization: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)), Host: host}, nil
	}
}
