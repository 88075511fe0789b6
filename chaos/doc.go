// Package chaos describes faults as data. A Fault is one small value (a JobManager crash, a
// failed savepoint, vanished HA metadata, an operator restart, …) applied to a Target, the
// simulated world; a Plan is a seeded list of (time, fault) pairs. Each fault class lives in
// its own small type, so adding one is a few lines.
package chaos
