package harness

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// snapshotPrefix marks the due keys of FlinkStateSnapshots.
const snapshotPrefix = "snapshot/"

// SnapshotKey is the key a FlinkStateSnapshot's reconciles and trace entries go by.
func SnapshotKey(name string) string { return snapshotPrefix + name }

// CreateSnapshot creates a FlinkStateSnapshot (a snapshot's spec is not meant to change).
func (w *World) CreateSnapshot(s *flinkv1beta1.FlinkStateSnapshot) error {
	s = s.DeepCopy()
	s.Namespace = w.Namespace
	s.UID = types.UID(fmt.Sprintf("uid-%s-%d", s.Name, w.Rand.Int63()))
	if err := w.Client.Create(context.Background(), s); err != nil {
		return err
	}
	key := SnapshotKey(s.Name)
	w.Trace.add(w.Clock.Now(), "spec", key, "created")
	w.watchEvent(key)
	return nil
}

// DeleteSnapshot deletes a FlinkStateSnapshot.
func (w *World) DeleteSnapshot(name string) error {
	s, err := w.GetSnapshot(name)
	if err != nil {
		return err
	}
	key := SnapshotKey(name)
	w.Trace.add(w.Clock.Now(), "spec", key, "deleted")
	w.watchEvent(key)
	return w.Client.Delete(context.Background(), s)
}

// GetSnapshot reads a FlinkStateSnapshot.
func (w *World) GetSnapshot(name string) (*flinkv1beta1.FlinkStateSnapshot, error) {
	var s flinkv1beta1.FlinkStateSnapshot
	err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: name}, &s)
	return &s, err
}

// Snapshots lists the world's FlinkStateSnapshots.
func (w *World) Snapshots() ([]flinkv1beta1.FlinkStateSnapshot, error) {
	var list flinkv1beta1.FlinkStateSnapshotList
	err := w.Client.List(context.Background(), &list, client.InNamespace(w.Namespace))
	return list.Items, err
}
