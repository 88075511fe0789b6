// Package scenarios holds the property-based tests that drive the real operator through the
// harness (pgregory.net/rapid state machines): random spec changes, suspends, resumes,
// savepoints, deletions, faults from the chaos package and operator restarts, with the
// harness's invariants checked after every step of the simulated world. A failing run prints
// its seed, the shrunk action list and the trace; rapid keeps a failfile under
// testdata/rapid to replay it (-rapid.failfile, or -rapid.seed).
package scenarios
