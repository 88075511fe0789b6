// Package chaos describes faults as data. A Fault is one small value (a JobManager crash, a
// failed savepoint, vanished HA metadata, an operator restart, …) applied to a Target, the
// simulated world; the rapid machines and the scripts choose which faults to inject and when.
// Each fault class lives in its own small type.
package chaos
