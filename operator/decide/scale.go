package decide

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// KeyParallelismOverrides sets per-vertex parallelism ("vertexId:parallelism,…").
const KeyParallelismOverrides = flinkv1beta1.KeyParallelismOverrides

// scaleFields are the fields a SCALE change may touch to be applied in place.
var scaleFields = []string{"taskManager.replicas", "job.parallelism", "flinkConfiguration." + KeyParallelismOverrides}

// scaleInPlace applies a SCALE change without a redeploy, when it can: the TaskManager
// Deployment is resized, and a new parallelism goes to the running job through Flink's
// resource requirements API (it needs the adaptive scheduler, Flink ≥ 1.18). The new spec is
// recorded as deployed with the action: scaling is idempotent, so a crash before the status
// write only repeats it. Anything else falls back to a full upgrade.
func (s *step) scaleInPlace(diff DiffType, fields []string) bool {
	if diff != DiffScale || s.st.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed {
		return false
	}
	for _, f := range fields {
		if !slices.Contains(scaleFields, f) {
			return false
		}
	}
	old, spec := s.last.Spec, s.d.Spec
	conf, _ := spec.Conf()
	oldConf, _ := old.Conf()
	parallelismChanged := slices.Contains(fields, "job.parallelism") || conf[KeyParallelismOverrides] != oldConf[KeyParallelismOverrides]
	o := s.in.Observed
	if spec.Job != nil {
		if spec.Job.EffectiveState() != flinkv1beta1.JobStateRunning || o.Job == nil || o.Job.State != "RUNNING" || !o.RESTReachable {
			return false
		}
		if !spec.Native() && int(flinkv1beta1.TaskManagerReplicas(spec, conf))*flinkv1beta1.TaskSlots(conf) < int(parallelism(spec, conf)) {
			return false // not enough slots: the upgrade path says so
		}
	}
	if parallelismChanged && (spec.Job == nil || !s.in.Options.InPlaceScaling || !flinkv1beta1.AdaptiveScheduler(conf) || !rescaleAPI(spec.FlinkVersion)) {
		return false
	}
	// The same cluster and job keep running: only the spec and its generation change.
	next := &ReconciledSpec{Spec: *spec.DeepCopy(), Metadata: s.last.Metadata}
	next.Metadata.Metadata.Generation = s.d.Generation
	s.last = next
	rs := &s.st.ReconciliationStatus
	rs.LastReconciledSpec = next.Encode()
	rs.ReconciliationTimestamp = s.in.Now.UnixMilli()
	s.observed()
	a := Action{Kind: ActScale, Deploy: &Deploy{Spec: spec, Generation: s.d.Generation, Run: next.Metadata.JobRun}}
	if parallelismChanged {
		a.JobID = o.Job.ID
		a.Parallelism = parallelism(spec, conf)
		a.Overrides = parseOverrides(conf[KeyParallelismOverrides])
	}
	s.act(a)
	msg := fmt.Sprintf("Scaling in place (%s): %d TaskManager(s), parallelism %d",
		strings.Join(fields, ", "), flinkv1beta1.TaskManagerReplicas(spec, conf), parallelism(spec, conf))
	if o := conf[KeyParallelismOverrides]; o != "" {
		msg += ", vertex overrides " + o
	}
	s.event(Normal, "Scaling", msg)
	s.requeue(s.in.Options.ProgressCheckInterval)
	return true
}

// parallelism is the job's parallelism (flinkv1beta1.JobParallelism), as the rendered
// configuration gives it to Flink.
func parallelism(spec flinkv1beta1.FlinkDeploymentSpec, conf map[string]string) int32 {
	return flinkv1beta1.JobParallelism(&spec, conf)
}

// rescaleAPI reports whether a Flink version has PUT /jobs/:id/resource-requirements (1.18+).
func rescaleAPI(v flinkv1beta1.FlinkVersion) bool { return v.AtLeast(1, 18) }

// parseOverrides reads pipeline.jobvertex-parallelism-overrides; malformed entries are skipped.
func parseOverrides(v string) map[string]int32 {
	out, _ := flinkv1beta1.ParseParallelismOverrides(v)
	return out
}

// reapplyParallelism rescales a running job on the adaptive scheduler whose parallelism is not
// the deployed spec's: after an in-place rescale, a JobManager failover brings the job back
// with the parallelism of its rendered configuration. With vertex overrides (the autoscaler's,
// say) each vertex they name is compared with its override.
func (s *step) reapplyParallelism() bool {
	o := s.in.Observed
	dep := s.deployedSpec()
	if s.st.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed || dep.Spec.Job == nil || o.Job == nil ||
		o.Job.State != "RUNNING" || o.Job.Parallelism == 0 || !o.RESTReachable {
		return false
	}
	conf, _ := dep.Spec.Conf()
	want := parallelism(dep.Spec, conf)
	if !flinkv1beta1.AdaptiveScheduler(conf) || !rescaleAPI(dep.Spec.FlinkVersion) {
		return false
	}
	overrides := parseOverrides(conf[KeyParallelismOverrides])
	drift := ""
	if len(overrides) == 0 && o.Job.Parallelism != want {
		drift = fmt.Sprintf("The job runs with parallelism %d, the spec asks for %d", o.Job.Parallelism, want)
	}
	// With overrides, only the vertices they name are compared: another's parallelism may be
	// the job's code's own.
	for _, id := range slices.Sorted(maps.Keys(o.Job.VertexParallelism)) {
		p := o.Job.VertexParallelism[id]
		if w, ok := overrides[id]; ok && p != w && drift == "" {
			drift = fmt.Sprintf("Vertex %s runs with parallelism %d, the deployed spec asks for %d", id, p, w)
		}
	}
	if drift == "" {
		return false
	}
	s.act(Action{
		Kind: ActScale, Deploy: &Deploy{Spec: dep.Spec, Generation: dep.Generation(), Run: dep.Metadata.JobRun},
		JobID: o.Job.ID, Parallelism: want, Overrides: overrides,
	})
	s.event(Normal, "Scaling", drift+": rescaling in place")
	s.requeue(s.in.Options.ProgressCheckInterval)
	return true
}
