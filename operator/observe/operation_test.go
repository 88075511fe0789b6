package observe

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// operationAPI answers every trigger status with one result or error.
type operationAPI struct {
	sp  *flink.SavepointResult
	cp  *flink.CheckpointResult
	err error
}

func (a operationAPI) SavepointStatus(context.Context, string, string) (*flink.SavepointResult, error) {
	return a.sp, a.err
}

func (a operationAPI) CheckpointStatus(context.Context, string, string) (*flink.CheckpointResult, error) {
	return a.cp, a.err
}

// TestOperationObservations: a REST timeout, a 5xx and a real 404 of a pending trigger are three
// different things, and only the 404 says the trigger is gone (the JobManager that knew it
// restarted): the others are "nothing known this time", never a lost or failed savepoint.
func TestOperationObservations(t *testing.T) {
	call := func(code int, err error) error {
		return &flink.Error{Method: "GET", Path: "/jobs/j/savepoints/t", StatusCode: code, Err: err}
	}
	for name, tc := range map[string]struct {
		api    operationAPI
		sp, cp *decide.OperationObservation
	}{
		"a 404: the trigger is gone": {api: operationAPI{err: call(404, nil)}, sp: &decide.OperationObservation{Lost: true}, cp: &decide.OperationObservation{Lost: true}},
		"a 503: nothing known":       {api: operationAPI{err: call(503, nil)}},
		"a 500: nothing known":       {api: operationAPI{err: call(500, nil)}},
		"a timeout: nothing known":   {api: operationAPI{err: call(0, context.DeadlineExceeded)}},
		"in progress":                {api: operationAPI{sp: &flink.SavepointResult{}, cp: &flink.CheckpointResult{}}, sp: &decide.OperationObservation{}, cp: &decide.OperationObservation{}},
		"done": {
			api: operationAPI{sp: &flink.SavepointResult{Done: true, Location: "file:///sp/1"}, cp: &flink.CheckpointResult{Done: true, CheckpointID: 4}},
			sp:  &decide.OperationObservation{Done: true, Location: "file:///sp/1"}, cp: &decide.OperationObservation{Done: true, CheckpointID: 4},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.sp, savepointObservation(context.Background(), tc.api, "j", "t")); diff != "" {
				t.Errorf("savepoint (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.cp, checkpointObservation(context.Background(), tc.api, "j", "t")); diff != "" {
				t.Errorf("checkpoint (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLostButTaken: a trigger Flink forgot whose savepoint Flink's statistics show, taken no
// earlier than the trigger, is that savepoint done; an older savepoint, none, or a trigger
// still known are left as they are.
func TestLostButTaken(t *testing.T) {
	lost := &decide.OperationObservation{Lost: true}
	triggered := int64(5000)
	for name, tc := range map[string]struct {
		sp     *decide.OperationObservation
		latest *decide.SnapshotRef
		want   *decide.OperationObservation
	}{
		"taken since the trigger": {sp: lost, latest: &decide.SnapshotRef{Path: "file:///sp/2", Timestamp: 5200}, want: &decide.OperationObservation{Done: true, Location: "file:///sp/2"}},
		"older than the trigger":  {sp: lost, latest: &decide.SnapshotRef{Path: "file:///sp/1", Timestamp: 4000}, want: lost},
		"no savepoint":            {sp: lost, want: lost},
		"still known, pending":    {sp: &decide.OperationObservation{}, latest: &decide.SnapshotRef{Path: "file:///sp/2", Timestamp: 5200}, want: &decide.OperationObservation{}},
		"not known this time":     {latest: &decide.SnapshotRef{Path: "file:///sp/2", Timestamp: 5200}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lostButTaken(tc.sp, tc.latest, &triggered)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
