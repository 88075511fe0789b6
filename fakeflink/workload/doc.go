// Package workload is fakeflink's model of what a streaming job does with its input: a
// chain of vertices (the source first, the sink last), each able to process a number of
// records per second per subtask, fed by an input whose rate follows a schedule (constant,
// steps, a sine, bursts). The job's position in its input advances at the rate of its slowest
// vertex while a backlog waits, and at the input's rate otherwise; the backlog is the input
// that arrived and was not yet consumed (a Kafka consumer's lag). From the last second the
// model derives the metrics Flink reports per vertex (busy, backpressured and idle time per
// second, records in and out per second, the source's pending records), so that a client such
// as an autoscaler sees the workload only through them, as on a real cluster.
//
// The model is deterministic: the input is a closed-form function of the time since the input
// began, and the position is advanced in steps of at most one second of virtual time.
package workload
