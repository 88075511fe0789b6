package scenarios

import (
	"flag"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/flinkop/flinkop/harness"
)

var update = flag.Bool("update", false, "rewrite the golden outputs of the scripted scenarios (testdata/scripts)")

// TestScripts runs every scripted scenario in testdata/scripts on the fake backend and compares
// each directive's output with the golden one in the file (-update rewrites them).
func TestScripts(t *testing.T) {
	if *update {
		if err := flag.Set("rewrite", "true"); err != nil {
			t.Fatal(err)
		}
	}
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		t.Helper()
		runScript(t, path, harness.FakeBackend)
	})
}

// runScript runs one scenario file on a fresh world; a failing directive fails the test.
func runScript(t *testing.T, path string, newBackend func() (harness.Backend, error)) {
	t.Helper()
	b, err := newBackend()
	if err != nil {
		t.Fatal(err)
	}
	s := NewScript(b, 1)
	datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
		t.Helper()
		out, err := s.Exec(td.Cmd, td.CmdArgs)
		if err != nil {
			t.Fatalf("%s: %v\noutput so far:\n%s\ntrace:\n%s", td.Pos, err, out, s.World().Trace)
		}
		return out
	})
}

// TestScriptRefusesMisspeltValues: a directive's value that is none of its words fails the
// script instead of running something else (until=stabel would wait for nothing it names).
func TestScriptRefusesMisspeltValues(t *testing.T) {
	b, err := harness.FakeBackend()
	if err != nil {
		t.Fatal(err)
	}
	s := NewScript(b, 1)
	arg := func(k, v string) datadriven.CmdArg { return datadriven.CmdArg{Key: k, Vals: []string{v}} }
	for _, tc := range []struct {
		cmd  string
		args []datadriven.CmdArg
	}{
		{"apply", []datadriven.CmdArg{arg("mode", "savepiont")}},
		{"apply", []datadriven.CmdArg{arg("state", "paused")}},
		{"sessionjob", []datadriven.CmdArg{arg("mode", "last_state")}},
		{"run", []datadriven.CmdArg{arg("until", "stabel")}},
	} {
		if _, err := s.Exec(tc.cmd, tc.args); err == nil || !strings.Contains(err.Error(), "want one of") {
			t.Errorf("%s %v: %v, want a refusal", tc.cmd, tc.args, err)
		}
	}
}
