package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/webhook"
)

// webhookFlags configure the admission webhooks, validating and mutating (docs/operator.md).
type webhookFlags struct {
	port          int
	certDir       string
	secret        string
	service       string
	configuration string
	selfSigned    bool
}

func bindWebhookFlags(fs *flag.FlagSet) *webhookFlags {
	w := &webhookFlags{}
	fs.IntVar(&w.port, "webhook-port", 0, "port of the admission webhooks, validating and mutating (0: none)")
	fs.StringVar(&w.certDir, "webhook-cert-dir", "/var/run/flinkop/webhook-certs", "directory of the webhook's tls.crt and tls.key")
	fs.BoolVar(&w.selfSigned, "webhook-self-signed", true, "the operator makes and rotates the webhook's CA and certificate itself (false: tls.crt and tls.key are mounted, e.g. by cert-manager)")
	fs.StringVar(&w.secret, "webhook-secret", "", "namespace/name of the Secret the operator keeps the webhook's CA and certificate in (with --webhook-self-signed)")
	fs.StringVar(&w.service, "webhook-service", "", "DNS name of the webhook's Service, <name>.<namespace>.svc (with --webhook-self-signed)")
	fs.StringVar(&w.configuration, "webhook-configuration", "", "name of the ValidatingWebhookConfiguration and the MutatingWebhookConfiguration whose caBundle the operator fills (with --webhook-self-signed)")
	return w
}

// setup serves the webhook when a port is given: at once with mounted certificates, else once
// the operator's rotator has written its certificate and put its CA into the configuration.
// It validates with live's Flink defaults and Ingress policy, as they are at each request.
func (w *webhookFlags) setup(mgr ctrl.Manager, live *config.Live) error {
	if w.port == 0 {
		return nil
	}
	srv := crwebhook.NewServer(crwebhook.Options{Port: w.port, CertDir: w.certDir})
	webhook.Register(srv, mgr.GetScheme(), live.FlinkDefaults, webhook.WithIngressPolicies(webhook.LiveIngressPolicies(live)))
	ready := make(chan struct{})
	if w.selfSigned {
		ns, name, ok := strings.Cut(w.secret, "/")
		if !ok || ns == "" || name == "" || w.service == "" || w.configuration == "" {
			return errors.New("--webhook-self-signed needs --webhook-secret namespace/name, --webhook-service and --webhook-configuration")
		}
		// The rotator reads its Secret and the two configurations by name only, as the
		// chart's RBAC allows (webhookreads.go).
		named := withNamedReads(mgr, rotatorReads(ns, name, w.configuration))
		if err := rotator.AddRotator(named, &rotator.CertRotator{
			SecretKey: types.NamespacedName{Namespace: ns, Name: name},
			CertDir:   w.certDir, CAName: "flinkop-webhook-ca", CAOrganization: "flinkop",
			DNSName: w.service, IsReady: ready,
			Webhooks: []rotator.WebhookInfo{{Name: w.configuration, Type: rotator.Validating}, {Name: w.configuration, Type: rotator.Mutating}},
		}); err != nil {
			return fmt.Errorf("webhook certificate rotator: %w", err)
		}
	} else {
		close(ready)
	}
	// Every replica serves: the API server calls whichever the Service picks.
	return mgr.Add(controller.EveryReplica(func(ctx context.Context) error {
		select {
		case <-ready:
		case <-ctx.Done():
			return nil
		}
		return srv.Start(ctx)
	}))
}
