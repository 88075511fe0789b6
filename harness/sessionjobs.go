package harness

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// sessionJobPrefix marks the due keys of FlinkSessionJobs.
const sessionJobPrefix = "sessionjob/"

// SessionJobKey is the key a FlinkSessionJob's reconciles and trace entries go by.
func SessionJobKey(name string) string { return sessionJobPrefix + name }

// ApplySessionJob creates a FlinkSessionJob or replaces the spec of the existing one, as
// kubectl apply would.
func (w *World) ApplySessionJob(j *flinkv1beta1.FlinkSessionJob) error {
	ctx := context.Background()
	j = j.DeepCopy()
	j.Namespace = w.Namespace
	var cur flinkv1beta1.FlinkSessionJob
	err := w.Client.Get(ctx, client.ObjectKeyFromObject(j), &cur)
	switch {
	case apierrors.IsNotFound(err):
		j.Generation, j.UID = 1, types.UID(fmt.Sprintf("uid-%s-%d", j.Name, w.Rand.Int63()))
		err = w.Client.Create(ctx, j)
		cur = *j
	case err == nil && !equality.Semantic.DeepEqual(cur.Spec, j.Spec):
		cur.Spec = j.Spec
		cur.Generation++
		err = w.Client.Update(ctx, &cur)
	}
	if err != nil {
		return err
	}
	key := SessionJobKey(j.Name)
	w.Trace.add(w.Clock.Now(), "spec", key, "applied generation "+fmt.Sprint(cur.Generation))
	w.watchEvent(key)
	return nil
}

// DeleteSessionJob deletes a FlinkSessionJob.
func (w *World) DeleteSessionJob(name string) error {
	j, err := w.GetSessionJob(name)
	if err != nil {
		return err
	}
	key := SessionJobKey(name)
	w.Trace.add(w.Clock.Now(), "spec", key, "deleted")
	w.watchEvent(key)
	return w.Client.Delete(context.Background(), j)
}

// GetSessionJob reads a FlinkSessionJob.
func (w *World) GetSessionJob(name string) (*flinkv1beta1.FlinkSessionJob, error) {
	var j flinkv1beta1.FlinkSessionJob
	err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: name}, &j)
	return &j, err
}
