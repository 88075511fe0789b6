package harness

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// missingReasons are the Events that say a resource's JobManager Deployment is gone.
var missingReasons = map[string]bool{"RecoverDeployment": true, "JobManagerDeploymentMissing": true}

// alarms watches the operator's claims that a JobManager Deployment is missing (invariant 7):
// before each reconcile of a FlinkDeployment the world notes whether its JobManager Deployment
// exists on the API server; an Event of missingReasons from that reconcile while it did is a
// false alarm (the operator believed a lagging cache over the API).
type alarms struct {
	reconciling string // the FlinkDeployment being reconciled ("": none)
	present     bool   // its JobManager Deployment existed when the reconcile began
	falseAlarms []string
}

// beginAlarms notes the JobManager Deployment of the FlinkDeployment about to be reconciled.
func (w *World) beginAlarms(key string) {
	w.alarms.reconciling, w.alarms.present = "", false
	if strings.HasPrefix(key, sessionJobPrefix) {
		return
	}
	ctx := context.Background()
	var dep appsv1.Deployment
	var d flinkv1beta1.FlinkDeployment
	// Present as the operator counts it: not being deleted, and controlled by the resource.
	present := w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: act.JobManagerName(key)}, &dep) == nil &&
		w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: key}, &d) == nil &&
		dep.DeletionTimestamp == nil && metav1.IsControlledBy(&dep, &d)
	w.alarms.reconciling, w.alarms.present = key, present
}

// endAlarms ends the reconcile's watch: Events outside a reconcile are nobody's.
func (w *World) endAlarms() { w.alarms.reconciling, w.alarms.present = "", false }

// event checks one Event of the reconcile under way.
func (a *alarms) event(object, reason, message string) {
	if object == a.reconciling && a.present && missingReasons[reason] {
		a.falseAlarms = append(a.falseAlarms, fmt.Sprintf("%s: Event %s (%q) while its JobManager Deployment exists on the API server (invariant 7)", object, reason, message))
	}
}

// FalseAlarms are the false claims of a missing JobManager Deployment so far (invariant 7).
func (w *World) FalseAlarms() []string { return w.alarms.falseAlarms }

// reader is the operator's reader past its cache (the manager's API reader): current and
// whole, whatever the cache lags, but down while the API server is.
func (f *apiFaults) reader(c client.WithWatch) client.Reader {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := f.unavailable(); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := f.unavailable(); err != nil {
				return err
			}
			return c.List(ctx, list, opts...)
		},
	})
}
