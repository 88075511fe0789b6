// Package autoscaler is the Flink job autoscaler as pure functions, after the Apache
// operator's: its job.autoscaler.* options (Config), the metrics collected from a running job
// (Sample), their evaluation over the metrics window (Evaluate) and the scaling decision
// (Decide: per-vertex parallelism, each with its reason). It does no I/O: the operator collects
// the samples over Flink's REST API, keeps the State, and applies a decision as parallelism
// overrides; the harness drives the same functions against fakeflink's workload model.
package autoscaler
