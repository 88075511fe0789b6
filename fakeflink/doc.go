// Package fakeflink is a fake Flink JobManager/TaskManager: a deterministic core (injected
// clock, explicit steps, no goroutines, no global randomness) that simulates jobs whose state is
// an input offset, checkpoints, savepoints, HA metadata and faults, behind a thin net/http
// adapter speaking Flink's REST API. It arrives with the fakeflink issue.
package fakeflink
