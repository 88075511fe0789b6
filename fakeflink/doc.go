// Package fakeflink is a fake Flink JobManager with its TaskManagers: a deterministic core
// that the harness, the tests and the fakeflink binary share.
//
// A Cluster simulates one Flink cluster: a JobManager that can crash and restart, TaskManagers
// offering slots, and jobs whose state is an input offset. Jobs consume records at a rate;
// checkpoints and savepoints snapshot the offset into a durable Store (a fake file system shared
// by every cluster of a world, surviving JobManager restarts); HA metadata (an HAStore) points
// at the latest checkpoint, so a new JobManager of the same HA cluster id recovers the job.
// Faults (failing or hanging savepoints, failing checkpoints, job failures, lost TaskManagers,
// REST outages) are hooks the chaos package drives.
//
// The core has no goroutines, reads time only from an injected clock.PassiveClock and
// randomness only from an injected *rand.Rand: Tick processes everything that is due at the
// clock's current time, in a fixed order, so a run replays exactly from its seed. The REST
// adapter in fakeflink/rest speaks Flink's REST API on top of it.
package fakeflink
