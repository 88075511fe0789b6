package fakeflink

import (
	"maps"
	"slices"
)

// HAJob is the HA metadata of one job: enough to recover it on a new JobManager (its "job
// graph") and the pointer to its latest completed checkpoint.
type HAJob struct {
	// JobID is the recovered job's id.
	JobID string
	// Program is what the job runs.
	Program Program
	// CheckpointID and CheckpointPath point at the latest completed checkpoint; empty before
	// the first one, in which case the job recovers from RestorePath.
	CheckpointID   int64
	CheckpointPath string
}

// HAStore keeps HA metadata by HA cluster id, like Flink's Kubernetes HA services keep it in
// ConfigMaps. The harness backs it with real ConfigMaps; MemoryHA keeps it in memory.
type HAStore interface {
	// Load returns the jobs recorded for a cluster.
	Load(clusterID string) (map[string]HAJob, error)
	// Save records (or replaces) a job's metadata.
	Save(clusterID string, job HAJob) error
	// Remove deletes a job's metadata (Flink does so when the job reaches a globally terminal
	// state).
	Remove(clusterID, jobID string) error
}

// MemoryHA is an in-memory HAStore.
type MemoryHA struct {
	clusters map[string]map[string]HAJob
}

// NewMemoryHA returns an empty MemoryHA.
func NewMemoryHA() *MemoryHA { return &MemoryHA{clusters: map[string]map[string]HAJob{}} }

// Load implements HAStore.
func (m *MemoryHA) Load(clusterID string) (map[string]HAJob, error) {
	return maps.Clone(m.clusters[clusterID]), nil
}

// Save implements HAStore.
func (m *MemoryHA) Save(clusterID string, job HAJob) error {
	if m.clusters[clusterID] == nil {
		m.clusters[clusterID] = map[string]HAJob{}
	}
	m.clusters[clusterID][job.JobID] = job
	return nil
}

// Remove implements HAStore.
func (m *MemoryHA) Remove(clusterID, jobID string) error {
	delete(m.clusters[clusterID], jobID)
	return nil
}

// DeleteCluster drops every job of a cluster: the "HA metadata deleted" fault.
func (m *MemoryHA) DeleteCluster(clusterID string) { delete(m.clusters, clusterID) }

// Clusters lists the cluster ids with HA metadata, sorted.
func (m *MemoryHA) Clusters() []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(m.clusters)) {
		if len(m.clusters[id]) > 0 {
			out = append(out, id)
		}
	}
	return out
}
