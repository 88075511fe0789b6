package decide

import flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"

// RestoreMode says where a deployment's job restores its state from.
type RestoreMode string

// The restore modes.
const (
	// RestoreNone starts from empty state (stateless), or from the initial savepoint on a
	// first deployment.
	RestoreNone RestoreMode = "none"
	// RestoreSavepoint restores status.jobStatus.upgradeSavepointPath (a savepoint or, after a
	// failed savepoint, the newest externalized checkpoint).
	RestoreSavepoint RestoreMode = "savepoint"
	// RestoreHA lets the new JobManager recover from the HA metadata (last-state).
	RestoreHA RestoreMode = "last-state"
)

// ReconciledSpec is the JSON stored in reconciliationStatus.lastReconciledSpec and
// lastStableSpec: the spec, and metadata about its deployment, as the Apache operator stores it.
type ReconciledSpec struct {
	Spec     flinkv1beta1.FlinkDeploymentSpec `json:"spec"`
	Metadata SpecMetadata                     `json:"resource_metadata"`
}

// SpecMetadata is the metadata part of a ReconciledSpec.
type SpecMetadata struct {
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Generation int64 `json:"generation"`
	} `json:"metadata"`
	// FirstDeployment is true until the resource was deployed once.
	FirstDeployment bool `json:"firstDeployment"`
	// Restore is how the job of this deployment restores (decided when the upgrade began, and
	// changed by fallbacks).
	Restore RestoreMode `json:"restoreMode,omitempty"`
	// Redeploy is set for a savepointRedeployNonce change: the old job is cancelled and its
	// HA metadata dropped, and the job restores from initialSavepointPath.
	Redeploy bool `json:"redeploy,omitempty"`
	// SavepointFailed is set when this upgrade's savepoint failed and no newer checkpoint
	// could stand in: the upgrade waits for a new spec instead of retrying on its own.
	SavepointFailed bool `json:"savepointFailed,omitempty"`
	// CheckpointFallback is set when this upgrade restores from the newest externalized
	// checkpoint after its savepoint failed: the job is cancelled first.
	CheckpointFallback bool `json:"checkpointFallback,omitempty"`
	// FallbackCheckpoint and FallbackCheckpointTime are the checkpoint the fallback was
	// decided on and its trigger time (epoch ms): the floor of what the upgrade restores.
	// When the JobManager fails over before the job is cancelled, Flink's checkpoint
	// statistics start empty and no longer name it.
	FallbackCheckpoint     string `json:"fallbackCheckpoint,omitempty"`
	FallbackCheckpointTime int64  `json:"fallbackCheckpointTime,omitempty"`
	// JobRun tells apart the job runs of one generation: "" for its first run, then
	// "restart-N" for a restart of a failed or unhealthy job and "rollback-G" for a rollback
	// from generation G. Job ids derive from (uid, generation, run), so every run gets a new
	// id (Flink's job result store refuses to run a finished id again) and a retry after a
	// crash reuses the same one.
	JobRun string `json:"jobRun,omitempty"`
	// Restarts counts the restarts of this generation's job.
	Restarts int64 `json:"restarts,omitempty"`
	// JobManagerStarted is set once the JobManager of this deployment was seen READY: a later
	// pod that cannot start (a lost node, an image gone from the registry) does not make it a
	// JobManager that never started.
	JobManagerStarted bool `json:"jobManagerStarted,omitempty"`
}

// Generation is the resource generation the spec belongs to.
func (r *ReconciledSpec) Generation() int64 { return r.Metadata.Metadata.Generation }

// Encode renders the JSON stored in status.
func (r *ReconciledSpec) Encode() string { return EncodeStored(r) }

// ParseReconciledSpec reads a stored spec; "" gives nil.
func ParseReconciledSpec(s string) (*ReconciledSpec, error) { return ParseStored[ReconciledSpec](s) }

// RecordIgnorable writes a reconciled spec whose change runs nothing (encoded) into status; a
// stable spec stays stable.
func RecordIgnorable(rs *flinkv1beta1.ReconciliationStatus, encoded string) {
	wasStable := rs.LastStableSpec == rs.LastReconciledSpec
	rs.LastReconciledSpec = encoded
	if wasStable {
		rs.LastStableSpec = encoded
	}
}

func newReconciledSpec(spec flinkv1beta1.FlinkDeploymentSpec, generation int64, first bool, restore RestoreMode) *ReconciledSpec {
	r := &ReconciledSpec{Spec: *spec.DeepCopy()}
	r.Metadata.APIVersion = flinkv1beta1.GroupVersion.String()
	r.Metadata.Metadata.Generation = generation
	r.Metadata.FirstDeployment = first
	r.Metadata.Restore = restore
	return r
}

// stored reads a spec the status stored (see ParseReconciledSpec) with the operator's Flink
// defaults now, for its own Flink version (a rollback to an older version gets that
// version's): a deploy renders with them as they are when it runs, as the Apache operator
// builds its deploy configuration.
func (s *step) stored(encoded string) (*ReconciledSpec, error) {
	r, err := ParseReconciledSpec(encoded)
	switch {
	case r == nil:
	case s.in.FlinkDefaults != nil:
		s.in.FlinkDefaults.ApplySpec(s.d.Namespace, &r.Spec)
	default:
		r.Spec.Defaults = s.d.Spec.Defaults
	}
	return r, err
}
