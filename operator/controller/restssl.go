package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
)

// deployedRESTSSL is how the REST endpoint of d's cluster serves now: what its JobManager
// Deployment was rendered with (act.AnnotationRESTSSL), read from the cache. Neither the spec
// nor the reconciled spec will do: during an upgrade that turns SSL on or off the operator has
// recorded the new spec while the old cluster still serves, and its savepoint and cancel go to
// that one. No JobManager Deployment: plain HTTP (nothing answers either way).
func deployedRESTSSL(c client.Reader, d *flinkv1beta1.FlinkDeployment) flink.RESTSSL {
	var dep appsv1.Deployment
	key := types.NamespacedName{Namespace: d.Namespace, Name: act.JobManagerName(d.Name)}
	if err := c.Get(context.Background(), key, &dep); err != nil {
		return flink.RESTSSL{}
	}
	return flink.ParseRESTSSL(dep.Annotations[act.AnnotationRESTSSL])
}
