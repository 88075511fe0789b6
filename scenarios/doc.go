// Package scenarios drives the real operator through the harness. Property is a
// pgregory.net/rapid state machine: random spec changes, suspends, resumes, savepoints,
// deletions, faults from the chaos package and operator restarts, with the harness's
// invariants checked after every step of the simulated world; TestOperatorStateMachine runs it
// under `go test` (failfiles under testdata/rapid replay first) and Sweep runs many seeds in
// parallel, each replayable alone with -rapid.seed. Script runs scripted scenarios
// (testdata/scripts) whose outputs are golden traces.
package scenarios
