// Package observe builds one Observation per reconcile: the JobManager and TaskManager
// Deployments and pods, the HA ConfigMaps and the Flink REST facts (job, checkpoints, pending
// savepoint trigger). It reads and never writes; decide turns what it saw into one action.
package observe
