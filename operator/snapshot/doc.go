// Package snapshot is the FlinkStateSnapshot state machine: a pure function from the snapshot
// resource, its status and what was observed of the job it references to one action (trigger
// a savepoint or checkpoint, or dispose of a savepoint), the new status, the labels, the
// events and when to look again.
//
// A trigger's id derives from the snapshot's UID and its failure count, and Flink takes a
// trigger id it already knows as the same operation: a trigger whose status write was lost is
// found again on the next reconcile rather than taken twice (while the JobManager that took it
// keeps it: rest.async.store-duration).
package snapshot
