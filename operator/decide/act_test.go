package decide

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestActionIsSetOnlyThroughAct: outside act (and Decide's start), no code of any state machine
// writes the reconcile's action, so a second action in one reconcile always panics in act.
func TestActionIsSetOnlyThroughAct(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../sessionjob", "../bluegreen", "../cron", "../snapshot"} { // every state machine
		matched, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(matched) == 0 {
			t.Fatalf("%s: %v files, %v", dir, len(matched), err)
		}
		files = append(files, matched...)
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
			if write.MatchString(line) && !strings.Contains(line, "the one write outside act") && !slices.Contains([]string{"s.res.Action = a", "r.res.Action = a"}, strings.TrimSpace(line)) {
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
