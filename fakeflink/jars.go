package fakeflink

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Jar is an uploaded jar on a session cluster.
type Jar struct {
	ID       string
	Name     string
	Uploaded time.Time
	Size     int
	// Digest is the SHA-256 of the jar's bytes (hex): tests check what reached the cluster.
	Digest string
}

// RunRequest is POST /jars/:jarid/run.
type RunRequest struct {
	EntryClass            string
	Args                  []string
	Parallelism           int
	JobID                 string
	AllowNonRestoredState bool
	SavepointPath         string
	Config                map[string]string
}

// UploadJar stores a jar and returns its id ("<uuid>_<name>").
func (c *Cluster) UploadJar(name string, data []byte) (Jar, error) {
	if !strings.HasSuffix(name, ".jar") {
		return Jar{}, errorf(KindBadRequest, "Only Jar files are allowed.")
	}
	u := c.newID()
	id := fmt.Sprintf("%s-%s-%s-%s-%s_%s", u[0:8], u[8:12], u[12:16], u[16:20], u[20:32], name)
	sum := sha256.Sum256(data)
	jar := Jar{ID: id, Name: name, Uploaded: c.Now(), Size: len(data), Digest: hex.EncodeToString(sum[:])}
	c.jars[id] = &jar
	return jar, nil
}

// Jars lists the uploaded jars, by id.
func (c *Cluster) Jars() []Jar {
	out := make([]Jar, 0, len(c.jars))
	for _, id := range slices.Sorted(maps.Keys(c.jars)) {
		out = append(out, *c.jars[id])
	}
	return out
}

// DeleteJar removes an uploaded jar.
func (c *Cluster) DeleteJar(id string) error {
	if _, ok := c.jars[id]; !ok {
		return errorf(KindBadRequest, "File %s does not exist in /tmp/flink-web-upload.", id)
	}
	delete(c.jars, id)
	return nil
}

// RunJar submits a job from an uploaded jar on a session cluster and returns its job id.
// A job id that is already running is a conflict ("already submitted").
func (c *Cluster) RunJar(jarID string, req RunRequest) (string, error) {
	prog, err := c.jarProgram(jarID, req)
	if err != nil {
		return "", err
	}
	id := req.JobID
	if id == "" {
		id = c.newID()
	} else if existing, ok := c.jobs[id]; ok && !existing.Status.IsGloballyTerminal() {
		return "", errorf(KindConflict, "Job has already been submitted. (JobID %s)", id)
	}
	if old, ok := c.jobs[id]; ok && old.Status.IsGloballyTerminal() {
		delete(c.jobs, id)
		c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == id })
	}
	c.submit(prog, id, prog.RestorePath)
	return id, nil
}

// ResourceRequirements returns the per-vertex parallelism bounds of a job, by vertex id.
func (c *Cluster) ResourceRequirements(jobID string) (map[string][2]int, error) {
	j, err := c.Job(jobID)
	if err != nil {
		return nil, err
	}
	out := map[string][2]int{}
	desired := j.desired()
	for i, v := range j.Vertices() {
		out[v.ID] = [2]int{1, desired[i]} // the upper bound, whatever the job runs with
	}
	return out, nil
}

// SetResourceRequirements rescales a job in place (adaptive scheduler only): every vertex
// takes its upper bound as its parallelism, and a running job whose parallelism changed
// restarts from its latest checkpoint.
func (c *Cluster) SetResourceRequirements(jobID string, req map[string][2]int) error {
	j, err := c.Job(jobID)
	if err != nil {
		return err
	}
	if len(req) == 0 {
		return errorf(KindBadRequest, "Request body does not specify resource requirements.")
	}
	next, errs := validateRequirements(j.Vertices(), req)
	if len(errs) > 0 {
		return errorf(KindBadRequest, "%s", strings.Join(errs, "\n"))
	}
	if !c.settings.Adaptive {
		return errorf(KindInternal, "java.lang.UnsupportedOperationException: The DefaultScheduler does not support changing the parallelism without a job restart. This feature is currently only expected to work with the AdaptiveScheduler.")
	}
	changed := !slices.Equal(next, j.desired())
	j.vertexPar, j.parallelism = next, slices.Max(next)
	if changed && j.Status == StatusRunning {
		now := c.Now()
		_ = j.setStatus(StatusRestarting, now)
		j.nextAction = now
	}
	return nil
}

// validateRequirements checks requested parallelism bounds as Flink's
// JobResourceRequirements.validate does (a bound of -1 is 1 below, the max parallelism
// above), and returns each vertex's new parallelism (its upper bound) or every error.
func validateRequirements(vertices []Vertex, req map[string][2]int) ([]int, []string) {
	var errs []string
	next := make([]int, len(vertices))
	for i, v := range vertices {
		b, ok := req[v.ID]
		if !ok {
			errs = append(errs, fmt.Sprintf("The request is incomplete, missing job vertex [%s] resource requirements.", v.ID))
			continue
		}
		lo, hi := b[0], b[1]
		if lo == -1 {
			lo = 1
		}
		if hi == -1 {
			hi = v.MaxParallelism
		}
		switch {
		case lo < 1 || hi < 1:
			errs = append(errs, fmt.Sprintf("Both, the requested lower bound [%d] and upper bound [%d] for job vertex [%s] must be greater than zero.", lo, hi, v.ID))
		case lo > hi:
			errs = append(errs, fmt.Sprintf("The requested lower bound [%d] for job vertex [%s] is higher than the upper bound [%d].", lo, v.ID, hi))
		case hi > v.MaxParallelism:
			errs = append(errs, fmt.Sprintf("The newly requested parallelism %d for the job vertex %s exceeds its maximum parallelism %d.", hi, v.ID, v.MaxParallelism))
		}
		next[i] = hi
	}
	for _, id := range slices.Sorted(maps.Keys(req)) {
		if !slices.ContainsFunc(vertices, func(v Vertex) bool { return v.ID == id }) {
			errs = append(errs, fmt.Sprintf("Job vertex [%s] was not found in the JobGraph.", id))
		}
	}
	return next, errs
}

// Config returns the cluster's effective configuration, sorted by key.
func (c *Cluster) Config() [][2]string {
	out := make([][2]string, 0, len(c.spec.Config))
	for _, k := range slices.Sorted(maps.Keys(c.spec.Config)) {
		out = append(out, [2]string{k, c.spec.Config[k]})
	}
	return out
}

// JobMetrics returns a job's job-scope metrics.
func (c *Cluster) JobMetrics(jobID string) (map[string]string, error) {
	j, err := c.Job(jobID)
	if err != nil {
		return nil, err
	}
	now := c.Now()
	uptime := int64(0)
	if j.Status == StatusRunning {
		uptime = now.Sub(j.runningSince).Milliseconds()
	}
	completed := 0
	for _, s := range j.checkpoints {
		if s.Kind == KindCheckpoint {
			completed++
		}
	}
	return map[string]string{
		"uptime":                       strconv.FormatInt(uptime, 10),
		"numRestarts":                  strconv.Itoa(j.restarts),
		"numberOfCompletedCheckpoints": strconv.Itoa(completed),
		"numberOfFailedCheckpoints":    strconv.FormatInt(j.failures, 10),
		"lastCheckpointDuration":       "0",
	}, nil
}

// jarProgram builds the program a run of an uploaded jar executes.
func (c *Cluster) jarProgram(jarID string, req RunRequest) (Program, error) {
	if c.spec.Application != nil {
		return Program{}, errorf(KindBadRequest, "Jar submission is not supported by an application cluster.")
	}
	jar, ok := c.jars[jarID]
	if !ok {
		return Program{}, errorf(KindBadRequest, "Jar file /tmp/flink-web-upload/%s does not exist", jarID)
	}
	merged := maps.Clone(c.spec.Config)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, req.Config)
	prog, err := ProgramFromConfig(merged, "jar://"+jar.ID, req.EntryClass, req.Args)
	if err != nil {
		return Program{}, errorf(KindBadRequest, "Could not execute application. %v", err)
	}
	if req.Parallelism > 0 {
		prog.Parallelism = req.Parallelism
	}
	prog.Name = jar.Name
	if req.SavepointPath != "" {
		prog.RestorePath = req.SavepointPath
	}
	prog.AllowNonRestoredState = req.AllowNonRestoredState
	// The run's configuration is the job's own, over the cluster's (Flink's JarRunHandler
	// executes the program with both): a restart strategy in it is the job's.
	if slices.ContainsFunc([]string{keyRestartStrategy, keyRestartAttempts, keyRestartDelay, keyCheckpointInterval}, func(k string) bool {
		_, ok := req.Config[k]
		return ok
	}) {
		s, err := ParseSettings(merged)
		if err != nil {
			return Program{}, errorf(KindBadRequest, "Could not execute application. %v", err)
		}
		prog.Restart = &RestartPolicy{Attempts: s.RestartAttempts, Delay: s.RestartDelay}
	}
	return prog, nil
}

// PlanJar is the job a run of an uploaded jar would submit, without submitting it (its plan).
func (c *Cluster) PlanJar(jarID string, req RunRequest) (*Job, error) {
	prog, err := c.jarProgram(jarID, req)
	if err != nil {
		return nil, err
	}
	id := req.JobID
	if id == "" {
		id = c.newID()
	}
	return &Job{ID: id, Program: prog, parallelism: max(1, prog.Parallelism)}, nil
}
