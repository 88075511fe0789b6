package fakeflink

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// NewDiskStore returns a Store that also keeps every snapshot with a file:// path as a real
// file (<path>/_metadata, the snapshot as JSON), and every job result under resultsDir (when
// not empty), so a JobManager process started later, on the same volume, finds what an earlier
// one wrote. Snapshots with other paths stay in memory. A failed write is passed to fail and
// the snapshot stays in memory.
func NewDiskStore(resultsDir string, fail func(error)) *Store {
	s := NewStore()
	if fail == nil {
		fail = func(error) {}
	}
	s.disk = &disk{results: resultsDir, fail: fail}
	return s
}

// disk is the file-system half of a Store. A nil *disk does nothing, so a memory Store needs
// no checks.
type disk struct {
	results string
	fail    func(error)
}

const metadataFile = "_metadata"

// LocalPath returns the file-system path of a file:// (or file:/) URI.
func LocalPath(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "file:")
	if !ok || !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return filepath.Clean(rest), true
}

func (d *disk) put(snap Snapshot) {
	dir, ok := d.local(snap.Path)
	if !ok {
		return
	}
	data, err := json.Marshal(snap)
	if err == nil {
		err = writeFileAtomic(filepath.Join(dir, metadataFile), data)
	}
	if err != nil {
		d.fail(err)
	}
}

func (d *disk) get(path string) (Snapshot, bool) {
	dir, ok := d.local(path)
	if !ok {
		return Snapshot{}, false
	}
	return readSnapshot(filepath.Join(dir, metadataFile))
}

func (d *disk) remove(path string) bool {
	dir, ok := d.local(path)
	if !ok {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, metadataFile)); err != nil {
		return false
	}
	if err := os.RemoveAll(dir); err != nil {
		d.fail(err)
	}
	return true
}

// list reads every snapshot on disk below prefix's directory (or its parent, when prefix ends
// inside a name).
func (d *disk) list(prefix string) map[string]Snapshot {
	out := map[string]Snapshot{}
	root, ok := d.local(prefix)
	if !ok {
		return out
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		root = filepath.Dir(root)
	}
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() != metadataFile {
			return nil //nolint:nilerr // an unreadable entry is not a snapshot
		}
		if snap, ok := readSnapshot(p); ok {
			out[snap.Path] = snap
		}
		return nil
	})
	return out
}

func (d *disk) putResult(haClusterID, jobID string, final JobStatus) {
	if d == nil || d.results == "" {
		return
	}
	if err := writeFileAtomic(filepath.Join(d.results, haClusterID, jobID), []byte(final)); err != nil {
		d.fail(err)
	}
}

func (d *disk) result(haClusterID, jobID string) (JobStatus, bool) {
	if d == nil || d.results == "" {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(d.results, haClusterID, jobID))
	if err != nil {
		return "", false
	}
	return JobStatus(strings.TrimSpace(string(data))), true
}

func (d *disk) local(path string) (string, bool) {
	if d == nil {
		return "", false
	}
	return LocalPath(path)
}

func readSnapshot(file string) (Snapshot, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Snapshot{}, false
	}
	var snap Snapshot
	if json.Unmarshal(data, &snap) != nil {
		return Snapshot{}, false
	}
	return snap, true
}

// writeFileAtomic writes data next to name and renames it into place, so a crash mid-write
// never leaves a torn file behind.
func writeFileAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}
