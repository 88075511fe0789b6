// Package sessionjob is the FlinkSessionJob state machine: a pure function from the resource,
// its status and what was observed of its session cluster to one action, the new status, the
// events and when to look again. The operator chooses the job id and records it in status
// before it submits, so a crash between the submission and the status write never runs the
// job twice.
package sessionjob
