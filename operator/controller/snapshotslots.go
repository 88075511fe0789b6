package controller

import (
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// SnapshotSlots bound the snapshots in flight across the fleet
// (kubernetes.operator.snapshot.max-concurrent): a periodic savepoint or checkpoint starts only
// while fewer than the limit are in flight, so that the periodic snapshots of thousands of jobs
// do not all write to the checkpoint storage at once. Every savepoint and checkpoint a
// resource's status shows in flight (manual, periodic, upgrade) holds a slot; only periodic
// ones wait for one (an upgrade or a savepoint a person asked for goes ahead). The slots are
// the operator process's: after a restart they fill again as resources are reconciled.
type SnapshotSlots struct {
	limit int
	mu    sync.Mutex
	held  map[string]bool
}

// NewSnapshotSlots returns limit slots; nil (no limit) when limit <= 0.
func NewSnapshotSlots(limit int) *SnapshotSlots {
	if limit <= 0 {
		return nil
	}
	return &SnapshotSlots{limit: limit, held: map[string]bool{}}
}

// refused reports whether the decided action (kind, with decided job status js) of the
// resource key is a periodic snapshot that finds no slot; otherwise a periodic snapshot holds
// a slot from now on. Decide leaves a periodic snapshot alone when full said no slot was
// free, so only a race with another worker refuses one here.
func (s *SnapshotSlots) refused(key string, kind decide.ActionKind, js *flinkv1beta1.JobStatus) bool {
	if s == nil || !periodicTrigger(kind, js) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held[key] && len(s.held) >= s.limit {
		return true
	}
	s.held[key] = true
	return false
}

// full reports whether a periodic snapshot of the resource key would find no slot now (it
// holds none and every one is held). Decide then leaves it for later (decide.Input's
// NoSnapshotSlot), and the rest of the reconcile goes on.
func (s *SnapshotSlots) full(key string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.held[key] && len(s.held) >= s.limit
}

// note records whether the resource key has a snapshot in flight, as its status says after a
// reconcile (false: it is gone, or has none).
func (s *SnapshotSlots) note(key string, inFlight bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if inFlight {
		s.held[key] = true
	} else {
		delete(s.held, key)
	}
}

// InFlight is how many slots are held.
func (s *SnapshotSlots) InFlight() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held)
}

// snapshotInFlight reports whether js shows a savepoint or checkpoint in flight.
func snapshotInFlight(js *flinkv1beta1.JobStatus) bool {
	return (js.SavepointInfo != nil && js.SavepointInfo.TriggerID != "") || (js.CheckpointInfo != nil && js.CheckpointInfo.TriggerID != "")
}

// periodicTrigger reports whether a decided action starts a periodic snapshot: a trigger that
// the decided status js records as PERIODIC.
func periodicTrigger(kind decide.ActionKind, js *flinkv1beta1.JobStatus) bool {
	switch kind {
	case decide.ActTriggerSavepoint:
		return js.SavepointInfo != nil && js.SavepointInfo.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic
	case decide.ActTriggerCheckpoint:
		return js.CheckpointInfo != nil && js.CheckpointInfo.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic
	}
	return false
}

// deploymentSlot and sessionJobSlot are the slot keys of a FlinkDeployment and a
// FlinkSessionJob.
func deploymentSlot(req ctrl.Request) string { return "FlinkDeployment/" + req.String() }
func sessionJobSlot(req ctrl.Request) string { return "FlinkSessionJob/" + req.String() }
