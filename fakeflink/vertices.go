package fakeflink

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/flinkop/flinkop/fakeflink/workload"
)

// Keys of a job's vertex parallelism.
const (
	// KeyParallelismOverrides sets vertices' parallelism by vertex id ("vid:p,vid:p"), as the
	// job autoscaler writes it; ids the job does not have are ignored.
	KeyParallelismOverrides = "pipeline.jobvertex-parallelism-overrides"
	// KeyMaxParallelism is the job's max parallelism: its number of key groups.
	KeyMaxParallelism = "pipeline.max-parallelism"
	// DefaultLowerMaxParallelism and UpperMaxParallelism bound the default max parallelism.
	DefaultLowerMaxParallelism = 128
	UpperMaxParallelism        = 1 << 15
)

// Vertex is one vertex of a running job, as GET /jobs/:jobid lists it.
type Vertex struct {
	ID             string
	Name           string
	Parallelism    int
	MaxParallelism int
}

// DefaultMaxParallelism is Flink's max parallelism for an operator of parallelism p whose
// job sets none: 1.5 p rounded up to a power of two, within [128, 32768].
func DefaultMaxParallelism(p int) int {
	n := 1
	for n < p+p/2 {
		n <<= 1
	}
	return min(max(n, DefaultLowerMaxParallelism), UpperMaxParallelism)
}

// vertexNames are the names of the job's vertices: its workload's chain, or a source and a
// sink.
func (j *Job) vertexNames() []string {
	n := 2
	if j.work != nil {
		n = len(j.work.Vertices)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = workload.VertexName(i, n)
	}
	return out
}

// VertexID is the id of vertex i of a chain of the given names. Flink hashes a vertex's place
// in the stream graph, so the same program has the same vertex ids in every job that runs it
// (which lets parallelism overrides outlive a redeploy); the fake hashes the chain's names.
func VertexID(names []string, i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("fakeflink-vertex/%d/%s", i, strings.Join(names, "\x00"))))
	return hex.EncodeToString(sum[:16])
}

// Vertices are the job's vertices, the source first.
func (j *Job) Vertices() []Vertex {
	names := j.vertexNames()
	out := make([]Vertex, len(names))
	for i, name := range names {
		p := j.vertexParallelism(i)
		out[i] = Vertex{ID: VertexID(names, i), Name: name, Parallelism: j.running(p), MaxParallelism: j.maxParallelism(i, p)}
	}
	return out
}

// vertexParallelism is vertex i's parallelism: its override, else the job's.
func (j *Job) vertexParallelism(i int) int {
	if i < len(j.vertexPar) && j.vertexPar[i] > 0 {
		return j.vertexPar[i]
	}
	return j.parallelism
}

// maxParallelism is vertex i's max parallelism at parallelism p: the job's
// pipeline.max-parallelism, else what the state it restored was taken with, else Flink's
// default for p.
func (j *Job) maxParallelism(i, p int) int {
	if j.Program.MaxParallelism > 0 {
		return j.Program.MaxParallelism
	}
	if i < len(j.adoptedMax) && j.adoptedMax[i] > 0 {
		return j.adoptedMax[i]
	}
	return DefaultMaxParallelism(p)
}

// slots is the number of slots the job holds: its largest vertex parallelism (all vertices
// share one slot sharing group).
func (j *Job) slots() int {
	n := j.running(j.parallelism)
	for i := range j.vertexPar {
		n = max(n, j.running(j.vertexParallelism(i)))
	}
	return n
}

// parallelisms are the vertices' parallelism, in chain order.
func (j *Job) parallelisms() []int {
	vs := j.Vertices()
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = v.Parallelism
	}
	return out
}

// applyOverrides sets the vertices' parallelism from the program's overrides, read as Flink's
// Dispatcher reads them: only for the vertices the job has, each with Integer.parseInt, at
// least one or -1 (the job's default), at most 32768.
func (j *Job) applyOverrides() error {
	names := j.vertexNames()
	j.vertexPar = make([]int, len(names))
	for i := range names {
		v, ok := j.Program.ParallelismOverrides[VertexID(names, i)]
		if !ok {
			continue
		}
		p, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case err != nil:
			return errorf(KindBadRequest, "java.lang.NumberFormatException: For input string: \"%s\"", strings.TrimSpace(v))
		case p == -1:
		case p < 1:
			return errorf(KindBadRequest, "java.lang.IllegalArgumentException: The parallelism must be at least one, or -1 (unset).")
		case p > UpperMaxParallelism:
			return errorf(KindBadRequest, "Setting parallelism is not in valid bounds (1..%d), found: %d", UpperMaxParallelism, p)
		default:
			j.vertexPar[i] = p
		}
	}
	return nil
}

// checkParallelism refuses a vertex whose parallelism exceeds its max parallelism, as Flink's
// scheduler does when it builds the execution graph.
func (j *Job) checkParallelism() error {
	for _, v := range j.Vertices() {
		if v.Parallelism > v.MaxParallelism {
			return errorf(KindBadRequest, "Vertex %s's parallelism (%d) is higher than the max parallelism (%d). Please lower the parallelism or increase the max parallelism.", v.Name, v.Parallelism, v.MaxParallelism)
		}
	}
	return nil
}

// parseOverrides reads pipeline.jobvertex-parallelism-overrides as Flink reads a map option:
// comma-separated "key:value" (values are read for the job's vertices only, see
// applyOverrides).
func parseOverrides(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), ":")
		if !ok {
			return nil, errorf(KindBadRequest, "Could not parse value '%s' for key '%s'.", s, KeyParallelismOverrides)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// buildVertices reads the job's workload and sets its vertices' parallelism, refusing one
// above its max parallelism.
func (c *Cluster) buildVertices(j *Job) error {
	work, err := readWorkload(j.Program.WorkloadConfig)
	if err != nil {
		return err
	}
	j.work = work
	if err := j.applyOverrides(); err != nil {
		return err
	}
	return j.checkParallelism()
}

// keyGroups are the vertices' max parallelism, by vertex id.
func (j *Job) keyGroups() map[string]int {
	out := map[string]int{}
	for _, v := range j.Vertices() {
		out[v.ID] = v.MaxParallelism
	}
	return out
}

// restoreKeyGroups checks the job's vertices against the max parallelism their state was
// taken with, as Flink does on restore: a max parallelism Flink computed takes the state's, a
// configured one must equal it, and no vertex may then run more subtasks than key groups.
func (j *Job) restoreKeyGroups(snap Snapshot) error {
	j.adoptedMax = make([]int, len(j.vertexNames()))
	for i, v := range j.Vertices() {
		stateMax, ok := snap.MaxParallelism[v.ID]
		if !ok {
			continue
		}
		if stateMax != v.MaxParallelism {
			if j.Program.MaxParallelism > 0 {
				return errorf(KindBadRequest, "Failed to rollback to checkpoint/savepoint %s. Max parallelism mismatch between checkpoint/savepoint state and new program. Cannot map operator %s with max parallelism %d to new program with max parallelism %d. This indicates that the program has been changed in a non-compatible way after the checkpoint/savepoint.", snap.Path, v.ID, stateMax, v.MaxParallelism)
			}
			j.adoptedMax[i] = stateMax
		}
		if stateMax < v.Parallelism {
			return errorf(KindBadRequest, "The state for task %s can not be restored. The maximum parallelism (%d) of the restored state is lower than the configured parallelism (%d). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism.", v.ID, stateMax, v.Parallelism)
		}
	}
	return nil
}

// workloadKeys are the program's fakeflink.workload.* keys.
func workloadKeys(c map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range c {
		if strings.HasPrefix(k, "fakeflink.workload.") {
			out[k] = v
		}
	}
	return out
}

// readWorkload parses a program's workload keys (nil when it sets no input).
func readWorkload(keys map[string]string) (*workload.Spec, error) {
	spec, ok, err := workload.FromConfig(keys, ParseDuration)
	if err != nil || !ok {
		return nil, err
	}
	return &spec, nil
}

// startModel starts the job's workload model at now, from its offset, when it runs one.
func (j *Job) startModel(now time.Time) {
	if j.work == nil {
		return
	}
	if j.inputBegan.IsZero() {
		j.inputBegan = now
	}
	j.model = workload.New(*j.work, j.inputBegan, now, float64(j.offset))
}

// VertexMetrics are the job's per-vertex metrics now (nil for a job without a workload or
// not running).
func (j *Job) VertexMetrics(now time.Time) []workload.VertexMetrics {
	if j.model == nil || j.Status != StatusRunning {
		return nil
	}
	p := j.parallelisms()
	if err := j.model.Advance(now, p); err != nil {
		return nil
	}
	m, err := j.model.Metrics(p)
	if err != nil {
		return nil
	}
	return m
}

// InputBegan is when the job's input began (zero for a job without a workload): a job
// restored from a snapshot keeps its input's start.
func (j *Job) InputBegan() time.Time { return j.inputBegan }

// HasWorkload reports whether the job runs a workload model.
func (j *Job) HasWorkload() bool { return j.work != nil }

// Tasks is the number of the job's subtasks: its vertices' parallelism summed.
func (j *Job) Tasks() int {
	n := 0
	for _, v := range j.Vertices() {
		n += v.Parallelism
	}
	return n
}

// AccumulatedBusyMs is the busy time vertex i's subtasks have spent in the job's current run,
// summed over them, in ms (0 for a job without a workload or not running).
func (j *Job) AccumulatedBusyMs(i int, now time.Time) float64 {
	if j.model == nil || j.Status != StatusRunning {
		return 0
	}
	if err := j.model.Advance(now, j.parallelisms()); err != nil {
		return 0
	}
	return j.model.AccumulatedBusyMs(i)
}
