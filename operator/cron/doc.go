// Package cron schedules cron batch runs of FlinkDeployments annotated job.execute.cron, from the
// injected clock and the last fire time kept in status (no in-memory scheduler). It is pure:
// the FlinkDeployment controller runs its decisions (operator/controller/cron.go).
package cron
