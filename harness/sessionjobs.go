package harness

import (
	"context"
	"fmt"

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
	gen, err := w.applySpec(j.DeepCopy())
	if err != nil {
		return err
	}
	key := SessionJobKey(j.Name)
	w.Trace.add(w.Clock.Now(), "spec", key, "applied generation "+fmt.Sprint(gen))
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
