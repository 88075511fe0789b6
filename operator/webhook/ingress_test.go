package webhook_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/webhook"
)

// TestIngressPolicyAtAdmission: given the operator's options, the validators refuse a
// spec.ingress the Ingress policy of the resource's namespace refuses, on its field.
func TestIngressPolicyAtAdmission(t *testing.T) {
	live, err := config.NewLive([]byte(`kubernetes.operator.ingress.allowed-hosts: "*.{{namespace}}.apps.example.com"
kubernetes.operator.ingress.allowed-annotations: "cert-manager.io/*"
kubernetes.operator.default-configuration.namespace.platform.kubernetes.operator.ingress.allowed-hosts: ""
`))
	if err != nil {
		t.Fatal(err)
	}
	policies := webhook.WithIngressPolicies(webhook.LiveIngressPolicies(live))
	ctx := context.Background()
	deployment := func(namespace, template string, annotations map[string]string) *flinkv1beta1.FlinkDeployment {
		d := fixtures.Deployment(namespace, "web")
		d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: template, Annotations: annotations}
		return d
	}
	child := deployment("team-a", "x.other.apps.example.com", nil)
	bgRef := fixtures.BlueGreen("team-a", "bg", child.Spec)
	child.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(bgRef, flinkv1beta1.GroupVersion.WithKind("FlinkBlueGreenDeployment"))}
	blueGreen := func(template string) *flinkv1beta1.FlinkBlueGreenDeployment {
		bg := fixtures.BlueGreen("team-a", "bg", *fixtures.StatefulDeployment("", "", flinkv1beta1.UpgradeModeSavepoint).Spec.DeepCopy())
		bg.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: template}
		return bg
	}
	cases := map[string]struct {
		run     func() error
		wantErr string // a field path in the refusal; "" allows
	}{
		"the namespace's own host": {run: func() error {
			_, err := webhook.NewDeploymentValidator(nil, policies).ValidateCreate(ctx, deployment("team-a", "{{name}}.{{namespace}}.apps.example.com", nil))
			return err
		}},
		"another tenant's host": {run: func() error {
			_, err := webhook.NewDeploymentValidator(nil, policies).ValidateCreate(ctx, deployment("team-a", "web.team-b.apps.example.com", nil))
			return err
		}, wantErr: "spec.ingress.template"},
		"a snippet annotation": {run: func() error {
			d := deployment("team-a", "{{name}}.{{namespace}}.apps.example.com", map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"})
			_, err := webhook.NewDeploymentValidator(nil, policies).ValidateUpdate(ctx, fixtures.Deployment("team-a", "web"), d)
			return err
		}, wantErr: "spec.ingress.annotations[nginx.ingress.kubernetes.io/server-snippet]"},
		"a namespace whose options allow any host": {run: func() error {
			_, err := webhook.NewDeploymentValidator(nil, policies).ValidateCreate(ctx, deployment("platform", "web.team-b.apps.example.com", nil))
			return err
		}},
		"without the operator's options, any host (Apache's behaviour)": {run: func() error {
			_, err := webhook.NewDeploymentValidator(nil).ValidateCreate(ctx, deployment("team-a", "web.team-b.apps.example.com", nil))
			return err
		}},
		"a blue/green deployment's child is left to its reconciler": {run: func() error {
			_, err := webhook.NewDeploymentValidator(nil, policies).ValidateCreate(ctx, child)
			return err
		}},
		"a blue/green deployment's own host": {run: func() error {
			_, err := webhook.NewBlueGreenValidator(nil, policies).ValidateCreate(ctx, blueGreen("{{name}}.{{namespace}}.apps.example.com"))
			return err
		}},
		"a blue/green deployment with another tenant's host": {run: func() error {
			_, err := webhook.NewBlueGreenValidator(nil, policies).ValidateCreate(ctx, blueGreen("x.other.apps.example.com"))
			return err
		}, wantErr: "spec.ingress.template"},
		"a blue/green template whose children's host is another tenant's": {run: func() error {
			bg := blueGreen("{{name}}.{{namespace}}.apps.example.com")
			bg.Spec.Template.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: "{{name}}.other.apps.example.com"}
			_, err := webhook.NewBlueGreenValidator(nil, policies).ValidateCreate(ctx, bg)
			return err
		}, wantErr: "spec.template.spec.ingress.template"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.run()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) ||
				!strings.Contains(err.Error(), "kubernetes.operator.ingress.")):
				t.Fatalf("err = %v, want Invalid naming %s and the option", err, tc.wantErr)
			}
		})
	}
}
