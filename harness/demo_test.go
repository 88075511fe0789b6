package harness

import (
	"bytes"
	"strings"
	"testing"
)

// TestDemo runs the README's demo end to end: every stage completes with the invariants
// holding, and the table shows the phases a person should see.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	w, err := RunDemo(&out, 1)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"SAVEPOINTING", "UPDATING", "RUNNING", "SUSPENDED", "DELETING", "deleted",
		"SavepointCompleted", "SpecChanged", "Deploy", "Cleanup",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if len(w.Trace.Entries) == 0 {
		t.Error("empty trace")
	}
}
