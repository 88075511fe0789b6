package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The schema walk finds the spec's scalar fields with their enums and minimums, from any
// working directory (flinksim replays a hostile seed outside the repository).
func TestSpecLeavesFromTheCRD(t *testing.T) {
	t.Chdir(t.TempDir())
	all, err := loadSpecLeaves()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schemaLeaf{}
	for _, l := range all {
		got[strings.Join(l.path, ".")] = l
	}
	if l := got["job.upgradeMode"]; !cmp.Equal(l.enum, []string{"last-state", "savepoint", "stateless"}) {
		t.Errorf("job.upgradeMode enum %v", l.enum)
	}
	if l := got["job.parallelism"]; l.typ != "integer" || l.min == nil || *l.min != 1 {
		t.Errorf("job.parallelism: %+v", l)
	}
	for _, want := range []string{"flinkVersion", "mode", "jobManager.resource.memory", "taskManager.replicas", "restartNonce"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no field %s among %d", want, len(all))
		}
	}
	for path := range got {
		if strings.Contains(path, "podTemplate") || strings.Contains(path, "flinkConfiguration") {
			t.Errorf("a skipped subtree was walked: %s", path)
		}
	}
}
