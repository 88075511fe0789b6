// Package image holds what the official Flink image and Flink's own startup do with a pod an
// operator renders: which entrypoint commands exist, which configuration file each Flink
// version reads and how, the memory model that makes a JobManager or TaskManager refuse to
// start, how the application entrypoint finds the job class, and what a missing logging
// configuration does. Start applies these rules to a pod and returns the process Flink would
// run, or the failure Flink would print (exception class and message, exit code), so the
// harness and the fakeflink image fail where a real Flink image fails. Each rule and its
// source in Flink is listed in docs/flink-contract.md.
package image
