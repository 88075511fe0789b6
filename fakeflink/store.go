package fakeflink

import (
	"maps"
	"slices"
	"strings"
	"sync"
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
	Path string `json:"path"`
	// Kind is checkpoint or savepoint.
	Kind SnapshotKind `json:"kind"`
	// JobID is the job the snapshot belongs to.
	JobID string `json:"jobId"`
	// ID is the checkpoint id.
	ID int64 `json:"id"`
	// Offset is the job state: the input offset when the snapshot was taken.
	Offset int64 `json:"offset"`
	// Time is when the snapshot completed.
	Time time.Time `json:"time"`
	// Format is CANONICAL or NATIVE for savepoints, FULL or INCREMENTAL for checkpoints.
	Format string `json:"format"`
	// TriggerID is the trigger a savepoint was taken under (the harness's record: Flink's
	// savepoint metadata does not keep it).
	TriggerID string `json:"triggerId,omitempty"`
	// StoppedJob says the savepoint ended its job (stop-with-savepoint, or a savepoint with
	// cancelJob): the harness's record, to tell those from savepoints the job ran on after.
	StoppedJob bool `json:"stoppedJob,omitempty"`
	// InputBegan is when the input of a job with a workload began: a job that restores the
	// snapshot reads the same input on.
	InputBegan time.Time `json:"inputBegan,omitzero"`
	// MaxParallelism are the vertices' max parallelism (their key groups) when the snapshot
	// was taken, by vertex id: a job restoring it keeps them.
	MaxParallelism map[string]int `json:"maxParallelism,omitempty"`
}

// Store is the durable fake file system where checkpoints and savepoints live. One Store is
// shared by every cluster of a world and outlives JobManager crashes, like a real bucket. It is
// safe for concurrent use: clusters serve REST calls of concurrent reconciles.
type Store struct {
	mu      sync.Mutex
	files   map[string]Snapshot
	results map[string]JobStatus // job result store: "<ha cluster id>/<job id>" → final state
	disk    *disk                // nil: memory only
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{files: map[string]Snapshot{}, results: map[string]JobStatus{}} }

// RecordResult notes that a job of an HA cluster ended for good (Flink's JobResultStore, kept
// in the HA storage directory): a restarted JobManager does not run it again.
func (s *Store) RecordResult(haClusterID, jobID string, final JobStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[haClusterID+"/"+jobID] = final
	s.disk.putResult(haClusterID, jobID, final)
}

// Result returns the recorded final state of a job, if any.
func (s *Store) Result(haClusterID, jobID string) (JobStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.results[haClusterID+"/"+jobID]; ok {
		return st, true
	}
	return s.disk.result(haClusterID, jobID)
}

// Put writes a snapshot at its path.
func (s *Store) Put(snap Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[snap.Path] = snap
	s.disk.put(snap)
}

// Get reads the snapshot at path.
func (s *Store) Get(path string) (Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path = normalizePath(path)
	if snap, ok := s.files[path]; ok {
		return snap, true
	}
	return s.disk.get(path)
}

// Delete removes the snapshot at path and reports whether it existed.
func (s *Store) Delete(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	path = normalizePath(path)
	_, ok := s.files[path]
	delete(s.files, path)
	return s.disk.remove(path) || ok
}

// List returns every snapshot whose path starts with prefix, in path order.
func (s *Store) List(prefix string) []Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.disk.list(prefix)
	maps.Copy(all, s.files)
	var out []Snapshot
	for _, p := range slices.Sorted(maps.Keys(all)) {
		if strings.HasPrefix(p, prefix) {
			out = append(out, all[p])
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
