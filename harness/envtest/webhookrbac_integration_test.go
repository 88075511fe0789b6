//go:build integration

package envtest

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkWebhookReadsByName holds an install that renders the admission webhook to granting the
// operator (op) its certificate Secret and its two webhook configurations by name only: a
// list narrowed to the name (as the operator's certificate rotator asks) is allowed, a list
// of all of them is Forbidden.
func checkWebhookReadsByName(ctx context.Context, t *testing.T, op client.Client, objs []*unstructured.Unstructured) {
	t.Helper()
	name, secret := "", ""
	for _, o := range objs {
		switch {
		case o.GetKind() == "ValidatingWebhookConfiguration":
			name = o.GetName()
		case o.GetKind() == "Secret" && o.GetNamespace() == "flinkop-system":
			secret = o.GetName()
		}
	}
	if name == "" || secret == "" {
		t.Fatalf("the install renders no webhook configuration (%q) or certificate Secret (%q)", name, secret)
	}
	reads := map[string]struct {
		list client.ObjectList
		opts []client.ListOption
		name string
	}{
		"validating configurations": {&admissionv1.ValidatingWebhookConfigurationList{}, nil, name},
		"mutating configurations":   {&admissionv1.MutatingWebhookConfigurationList{}, nil, name},
		"Secrets of flinkop-system": {&corev1.SecretList{}, []client.ListOption{client.InNamespace("flinkop-system")}, secret},
	}
	for what, r := range reads {
		if err := op.List(ctx, r.list, r.opts...); !apierrors.IsForbidden(err) {
			t.Errorf("listing all %s as the operator: %v; want Forbidden (by name only)", what, err)
		}
		byName := append([]client.ListOption{client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", r.name)}}, r.opts...)
		if err := op.List(ctx, r.list, byName...); err != nil {
			t.Errorf("listing %s by the name %s as the operator: %v", what, r.name, err)
		}
	}
}
