package harness

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// discoverSnapshots plays the operator's watch of FlinkStateSnapshots and Kubernetes's
// garbage collector for them: a snapshot the operator created (a savepoint's record) or
// changed (deleted a trimmed record) is reconciled at once, and one whose owning
// FlinkDeployment or FlinkSessionJob is gone is deleted, as its owner reference asks.
func (w *World) discoverSnapshots() error {
	if !w.Options.SnapshotResources || (w.api.snapshotWrites == w.snapWrites && !w.ownerGone) {
		return nil // nothing the operator did, and no owner gone, since the last look
	}
	w.snapWrites, w.ownerGone = w.api.snapshotWrites, false
	snaps, err := w.Snapshots()
	if err != nil {
		return fmt.Errorf("list FlinkStateSnapshots: %w", err)
	}
	now := w.Clock.Now()
	if w.snapshots == nil {
		w.snapshots = map[string]string{}
	}
	for i := range snaps {
		s := &snaps[i]
		key := SnapshotKey(s.Name)
		seen, known := w.snapshots[key]
		switch _, due := w.due[key]; {
		case !known && !due:
			w.Trace.add(now, "spec", key, "FlinkStateSnapshot "+s.Name+" created by the operator")
			w.due[key] = now
		case seen != s.ResourceVersion && !due:
			w.due[key] = now // changed (deleted by the operator, say): the watch tells
		}
		w.snapshots[key] = s.ResourceVersion
		if s.DeletionTimestamp != nil {
			continue
		}
		gone, err := w.controllerGone(s)
		if err != nil {
			return fmt.Errorf("owner of FlinkStateSnapshot %s: %w", s.Name, err)
		}
		if !gone {
			continue
		}
		w.Trace.add(now, "spec", key, "FlinkStateSnapshot "+s.Name+" deleted by the garbage collector: its owner is gone")
		w.due[key] = now
		if err := w.Client.Delete(context.Background(), s); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("collect FlinkStateSnapshot %s: %w", s.Name, err)
		}
	}
	return nil
}

// controllerGone reports whether obj's controller (a FlinkDeployment, FlinkSessionJob or
// FlinkBlueGreenDeployment) is gone, or replaced by another object of its name: the garbage
// collector then deletes obj. An object with no such controller is never collected.
func (w *World) controllerGone(obj client.Object) (bool, error) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil {
		return false, nil
	}
	var owner client.Object
	switch ref.Kind {
	case string(flinkv1beta1.JobKindDeployment):
		owner = &flinkv1beta1.FlinkDeployment{}
	case string(flinkv1beta1.JobKindSessionJob):
		owner = &flinkv1beta1.FlinkSessionJob{}
	case "FlinkBlueGreenDeployment":
		owner = &flinkv1beta1.FlinkBlueGreenDeployment{}
	default:
		return false, nil
	}
	err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: ref.Name}, owner)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return err == nil && owner.GetUID() != ref.UID, err
}
