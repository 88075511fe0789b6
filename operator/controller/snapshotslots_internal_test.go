package controller

import (
	"testing"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// periodicJS is a decided job status with a periodic savepoint trigger.
var periodicJS = &flinkv1beta1.JobStatus{SavepointInfo: &flinkv1beta1.SavepointInfo{TriggerID: "t", TriggerType: flinkv1beta1.SnapshotTriggerPeriodic}}

// admit is whether a periodic savepoint of key gets a slot.
func (s *SnapshotSlots) admit(key string) bool {
	return !s.refused(key, decide.ActTriggerSavepoint, periodicJS)
}

// TestSnapshotSlots: a resource holding a slot keeps it, others wait while every slot is held,
// and a resource whose snapshot ended (or that is gone) frees its slot; no limit admits all.
func TestSnapshotSlots(t *testing.T) {
	s := NewSnapshotSlots(2)
	steps := []struct {
		admit, note string
		inFlight    bool
		want        bool
	}{
		{admit: "a", want: true},
		{admit: "b", want: true},
		{admit: "c", want: false}, // both slots held
		{admit: "a", want: true},  // a holds one already
		{note: "a", inFlight: false},
		{admit: "c", want: true},
		{note: "d", inFlight: true}, // an upgrade savepoint: held, not asked
		{admit: "e", want: false},
	}
	for i, st := range steps {
		if st.note != "" {
			s.note(st.note, st.inFlight)
			continue
		}
		if got := s.admit(st.admit); got != st.want {
			t.Fatalf("step %d: admit(%s) = %v, want %v (held %d)", i, st.admit, got, st.want, s.InFlight())
		}
	}
	if s.refused("f", decide.ActTriggerSavepoint, &flinkv1beta1.JobStatus{}) || s.refused("f", decide.ActStopWithSavepoint, periodicJS) {
		t.Fatal("a snapshot that is not periodic waited for a slot")
	}
	unbounded := NewSnapshotSlots(0)
	for _, k := range []string{"a", "b", "c"} {
		if !unbounded.admit(k) {
			t.Fatalf("no limit refused %s", k)
		}
	}
}
