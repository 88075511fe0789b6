package scenarios

import (
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/harness"
)

var crashStride = flag.Int("crash-stride", 8, "TestScriptsSurviveACrashAfterEveryWrite tries every stride-th write of each script (1: every write)")

// TestScriptsSurviveACrashAfterEveryWrite replays every scripted scenario with the operator
// crashing right after its k-th API write, for every k the clean run reaches (every
// crash-stride-th in make test, each script starting at another offset; 1 tries them all): the
// systematic intermediate states a crash can leave behind, cheap because runs are deterministic.
// The invariants hold after every step and every directive still does what it says (until=
// states are reached, expected errors happen); only the traces differ from the goldens.
func TestScriptsSurviveACrashAfterEveryWrite(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	stride := max(*crashStride, 1)
	tried := 0
	for i, path := range paths {
		clean := run(t, path, 0)
		if clean < 0 {
			continue
		}
		for k := 1 + i%stride; k <= clean; k += stride {
			tried++
			run(t, path, k)
		}
	}
	t.Logf("%d scripts, %d crash points tried", len(paths), tried)
}

// run runs the script at path, with the operator crashing after its k-th write (0: never),
// and returns how many writes it made (-1 when it failed).
func run(t *testing.T, path string, k int) int {
	t.Helper()
	b, err := harness.FakeBackend()
	if err != nil {
		t.Fatal(err)
	}
	s := NewScript(b, 1)
	if k > 0 {
		s.World().CrashOperatorAfterWrite(k)
	}
	if err := s.Run(path, io.Discard); err != nil {
		t.Errorf("%s, the operator crashing after write %d (0: no crash): %v\ntrace:\n%s", filepath.Base(path), k, err, s.World().Trace)
		return -1
	}
	if k > 0 && !crashed(s.World()) {
		t.Errorf("%s: the operator did not crash after write %d of a run that makes more", filepath.Base(path), k)
	}
	return s.World().APIWrites()
}

// crashed reports whether the world restarted a crashed operator.
func crashed(w *harness.World) bool {
	for _, e := range w.Trace.Entries {
		if e.Kind == "fault" && strings.HasPrefix(e.Text, "operator crashed after an API write") {
			return true
		}
	}
	return false
}
