// Package scenarios holds the property-based (pgregory.net/rapid) and scripted scenarios that
// drive the operator through the harness and check its invariants after every step. They arrive
// with the harness issue.
package scenarios
