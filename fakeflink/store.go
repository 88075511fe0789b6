package fakeflink

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// SnapshotKind says whether a snapshot is a checkpoint or a savepoint.
type SnapshotKind string

// The snapshot kinds.
const (
	KindCheckpoint SnapshotKind = "checkpoint"
	KindSavepoint  SnapshotKind = "savepoint"
)

// Snapshot is a completed checkpoint or savepoint in the durable store: the job's offset at
// the moment it was taken.
type Snapshot struct {
	// Path is the external path (the key in the store).
	Path string
	// Kind is checkpoint or savepoint.
	Kind SnapshotKind
	// JobID is the job the snapshot belongs to.
	JobID string
	// ID is the checkpoint id.
	ID int64
	// Offset is the job state: the input offset when the snapshot was taken.
	Offset int64
	// Time is when the snapshot completed.
	Time time.Time
	// Format is CANONICAL or NATIVE for savepoints, FULL or INCREMENTAL for checkpoints.
	Format string
}

// Store is the durable fake file system where checkpoints and savepoints live. One Store is
// shared by every cluster of a world and outlives JobManager crashes, like a real bucket.
type Store struct {
	files   map[string]Snapshot
	results map[string]JobStatus // job result store: "<ha cluster id>/<job id>" → final state
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{files: map[string]Snapshot{}, results: map[string]JobStatus{}} }

// RecordResult notes that a job of an HA cluster ended for good (Flink's JobResultStore, kept
// in the HA storage directory): a restarted JobManager does not run it again.
func (s *Store) RecordResult(haClusterID, jobID string, final JobStatus) {
	s.results[haClusterID+"/"+jobID] = final
}

// Result returns the recorded final state of a job, if any.
func (s *Store) Result(haClusterID, jobID string) (JobStatus, bool) {
	st, ok := s.results[haClusterID+"/"+jobID]
	return st, ok
}

// Put writes a snapshot at its path.
func (s *Store) Put(snap Snapshot) { s.files[snap.Path] = snap }

// Get reads the snapshot at path.
func (s *Store) Get(path string) (Snapshot, bool) {
	snap, ok := s.files[normalizePath(path)]
	return snap, ok
}

// Delete removes the snapshot at path and reports whether it existed.
func (s *Store) Delete(path string) bool {
	path = normalizePath(path)
	_, ok := s.files[path]
	delete(s.files, path)
	return ok
}

// List returns every snapshot whose path starts with prefix, in path order.
func (s *Store) List(prefix string) []Snapshot {
	var out []Snapshot
	for _, p := range slices.Sorted(maps.Keys(s.files)) {
		if strings.HasPrefix(p, prefix) {
			out = append(out, s.files[p])
		}
	}
	return out
}

// normalizePath drops a trailing "/_metadata" or "/", so a path given either way finds the
// snapshot.
func normalizePath(p string) string {
	p = strings.TrimSuffix(p, "/_metadata")
	return strings.TrimSuffix(p, "/")
}
