package observe

import (
	"context"
	"fmt"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
)

// BlueGreenObserver builds the Observations of FlinkBlueGreenDeployments. It only reads.
type BlueGreenObserver struct {
	// Client reads Kubernetes objects (the manager's cache).
	Client client.Reader
	// Reader reads past the cache (nil: Client): the cache holds only Ingresses labelled as
	// the operator's, so an Ingress asked for and not in it is looked for there.
	Reader client.Reader
	// Flink returns the REST client of a child's JobManager.
	Flink func(d *flinkv1beta1.FlinkDeployment) OperationAPI
	// RESTBudget bounds the REST reads of one observation together (see Observer).
	RESTBudget time.Duration
	// Defaults are given to the children read (see FlinkDefaults).
	Defaults flinkv1beta1.FlinkDefaults
}

// Observe reads bg's two children (a FlinkDeployment of a child's name that bg does not
// control is reported as Foreign, never returned) and, while a switch's savepoint is in
// progress, what the active child's JobManager says of it. Kubernetes read errors are
// returned; a Flink REST error leaves the savepoint unknown.
func (o *BlueGreenObserver) Observe(ctx context.Context, bg *flinkv1beta1.FlinkBlueGreenDeployment) (bluegreen.Observation, error) {
	var obs bluegreen.Observation
	for _, c := range []flinkv1beta1.BlueGreenColor{flinkv1beta1.Blue, flinkv1beta1.Green} {
		var d flinkv1beta1.FlinkDeployment
		err := o.Client.Get(ctx, client.ObjectKey{Namespace: bg.Namespace, Name: c.ChildName(bg.Name)}, &d)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return obs, fmt.Errorf("get FlinkDeployment %s: %w", c.ChildName(bg.Name), err)
		}
		o.Defaults.Apply(&d)
		if ref := metav1.GetControllerOf(&d); ref == nil || ref.UID != bg.UID {
			if obs.Foreign == "" {
				obs.Foreign = d.Name
			}
			continue
		}
		if c == flinkv1beta1.Blue {
			obs.Blue = &d
		} else {
			obs.Green = &d
		}
	}
	var ing networkingv1.Ingress
	key := client.ObjectKey{Namespace: bg.Namespace, Name: bg.Name}
	err := o.Client.Get(ctx, key, &ing)
	if apierrors.IsNotFound(err) && bg.Spec.Ingress != nil && o.Reader != nil {
		err = o.Reader.Get(ctx, key, &ing) // another's, unlabelled, is not in the cache
	}
	switch {
	case err == nil:
		ref := metav1.GetControllerOf(&ing)
		obs.Ingress = &bluegreen.IngressSeen{Hash: ing.Annotations[act.AnnotationIngressHash], Foreign: ref == nil || ref.UID != bg.UID}
	case !apierrors.IsNotFound(err):
		return obs, fmt.Errorf("get Ingress %s: %w", bg.Name, err)
	}
	st := bg.Status
	if st.SavepointTriggerID == "" || (st.BlueGreenState != flinkv1beta1.BlueGreenSavepointingBlue && st.BlueGreenState != flinkv1beta1.BlueGreenSavepointingGreen) {
		return obs, nil
	}
	active := obs.Blue
	if st.BlueGreenState == flinkv1beta1.BlueGreenSavepointingGreen {
		active = obs.Green
	}
	if active != nil && active.Status.JobStatus.JobID != "" {
		ctx, cancel := withBudget(ctx, o.RESTBudget)
		defer cancel()
		obs.Savepoint = savepointObservation(ctx, o.Flink(active), active.Status.JobStatus.JobID, st.SavepointTriggerID)
	}
	return obs, nil
}
