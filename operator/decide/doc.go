// Package decide is the operator's state machine as pure functions: (spec, status, observation,
// options, now) → one Action plus status changes. It does no I/O and imports neither client-go
// nor net/http (lint holds it to that), so the harness can drive it hardest.
package decide
