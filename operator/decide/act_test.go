package decide

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestActionIsSetOnlyThroughAct: outside act (and Decide's start), no code of the state machine
// writes the reconcile's action, so a second action in one reconcile always panics in act.
func TestActionIsSetOnlyThroughAct(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	write := regexp.MustCompile(`res\.Action\s*=[^=]`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			if write.MatchString(line) && !strings.Contains(line, "the one write outside act") && strings.TrimSpace(line) != "s.res.Action = a" {
				t.Errorf("%s:%d writes the action outside act: %s", f, n+1, strings.TrimSpace(line))
			}
		}
	}
}

func TestSecondActionPanics(t *testing.T) {
	s := &step{}
	s.act(Action{Kind: ActDeleteIngress})
	defer func() {
		if recover() == nil {
			t.Error("a second action in one reconcile did not panic")
		}
	}()
	s.act(Action{Kind: ActDeleteAll})
}
