package fakeflink

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDiskStoreOutlivesTheProcess(t *testing.T) {
	root := t.TempDir()
	uri := "file://" + root
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	chk := Snapshot{Path: uri + "/checkpoints/j1/chk-3", Kind: KindCheckpoint, JobID: "j1", ID: 3, Offset: 300, Time: at, Format: "FULL"}
	sp := Snapshot{Path: uri + "/savepoints/savepoint-j1-1", Kind: KindSavepoint, JobID: "j1", ID: 4, Offset: 400, Time: at, Format: "CANONICAL"}
	mem := Snapshot{Path: "s3://bucket/chk-1", Kind: KindCheckpoint, JobID: "j1", ID: 1}

	first := NewDiskStore(filepath.Join(root, "ha", "job-result-store"), nil)
	first.Put(chk)
	first.Put(sp)
	first.Put(mem)
	first.RecordResult("cluster", "j1", StatusFinished)

	second := NewDiskStore(filepath.Join(root, "ha", "job-result-store"), nil) // a new JobManager
	got, ok := second.Get(sp.Path + "/_metadata")
	if !ok {
		t.Fatalf("a new store does not find %s", sp.Path)
	}
	if diff := cmp.Diff(sp, got); diff != "" {
		t.Errorf("savepoint read back (-want +got):\n%s", diff)
	}
	if _, ok := second.Get(mem.Path); ok {
		t.Error("a snapshot outside file:// survived the process")
	}
	if st, ok := second.Result("cluster", "j1"); !ok || st != StatusFinished {
		t.Errorf("job result = %q, %v; want FINISHED", st, ok)
	}
	if diff := cmp.Diff([]Snapshot{chk}, second.List(uri+"/checkpoints/")); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	if !second.Delete(chk.Path) {
		t.Error("Delete of a snapshot on disk reported nothing deleted")
	}
	if _, err := os.Stat(strings.TrimPrefix(chk.Path, "file://")); !os.IsNotExist(err) {
		t.Errorf("the checkpoint directory is still there: %v", err)
	}
	if second.Delete(chk.Path) {
		t.Error("a second Delete reported the snapshot deleted again")
	}
}

func TestDiskStoreReportsWriteFailures(t *testing.T) {
	root := t.TempDir()
	blocker := filepath.Join(root, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var failed error
	s := NewDiskStore("", func(err error) { failed = err })
	snap := Snapshot{Path: "file://" + blocker + "/chk-1", Kind: KindCheckpoint, ID: 1}
	s.Put(snap) // a regular file where the directory should be
	if failed == nil {
		t.Fatal("a failed write was not reported")
	}
	if _, ok := s.Get(snap.Path); !ok {
		t.Error("the snapshot is not kept in memory after a failed write")
	}
	var pathErr *os.PathError
	if !errors.As(failed, &pathErr) {
		t.Errorf("error %v is not a path error", failed)
	}
}

func TestLocalPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///flink-data/chk": "/flink-data/chk",
		"file:/flink-data/chk/":  "/flink-data/chk",
		"s3://bucket/chk":        "",
		"file:relative":          "",
	} {
		got, ok := LocalPath(uri)
		if got != want || ok != (want != "") {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", uri, got, ok, want)
		}
	}
}

// A JobManager process that crashes and starts again on the same volume recovers the job at
// its latest checkpoint's offset: the checkpoints are files, HA metadata points at them.
func TestHARecoveryFromDiskInANewProcess(t *testing.T) {
	w := newWorld(t)
	root := t.TempDir()
	results := filepath.Join(root, "ha", "job-result-store")
	w.store = NewDiskStore(results, func(err error) { t.Error(err) })
	conf := statefulConf(haKeys...)
	conf["state.checkpoints.dir"] = "file://" + root + "/checkpoints"
	c := w.app("ha", conf)
	w.advance(25*time.Second, c)
	j := onlyJob(t, c)
	latest := j.Checkpoints()[len(j.Checkpoints())-1]
	c.CrashJobManager()

	w.store = NewDiskStore(results, func(err error) { t.Error(err) }) // nothing in memory
	c2 := w.app("ha", conf)
	w.advance(2*time.Second, c2)
	j2 := onlyJob(t, c2)
	wantStatus(t, j2, StatusRunning)
	if j2.ID != j.ID || j2.Restored() == nil || j2.Restored().Path != latest.Path {
		t.Fatalf("job %s restored %v, want job %s from %s", j2.ID, j2.Restored(), j.ID, latest.Path)
	}
	if got := j2.Offset(w.clock.Now()); got != latest.Offset {
		t.Errorf("recovered at offset %d, want %d", got, latest.Offset)
	}
}
