package envtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/harness"
)

// backend is one world on the real API server: a namespace of its own.
type backend struct {
	c  client.WithWatch
	ns string
}

func (b backend) Client() client.WithWatch { return b.c }
func (b backend) Namespace() string        { return b.ns }
func (backend) Name() string               { return "envtest" }

// Backend returns a harness backend on this API server, in a fresh namespace, so that worlds
// sharing one API server never see each other.
func (e *Env) Backend() (harness.Backend, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "world-"}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		return nil, fmt.Errorf("namespace for a world: %w", err)
	}
	return backend{c: e.Client, ns: ns.Name}, nil
}
