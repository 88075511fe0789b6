package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Script runs a scripted scenario: directives, one at a time, on one world, each answering
// with what happened (the trace entries it caused, or the state it asked for). The invariants
// are checked after every step; a violation ends the script with an error.
//
// Directives (every name= defaults to "job"):
//
//	apply [name=] [mode=savepoint|last-state|stateless] [deployment-mode=native|standalone] [parallelism=N] [image=I]
//	      [state=running|suspended] [savepoint-nonce=N] [ha=false] [conf=k=v]…
//	run for=DURATION | until=stable|suspended|deleted|refused [limit=DURATION] [only=NAME]
//	step [count=N]            (N steps of the world: a reconcile, or one event of the world)
//	fault CLASS [name=] [for=DURATION] [trail=DURATION] [count=N] [k=N]   (a chaos class name)
//	delete [name=]            delete-jobmanager [name=]      restart-operator
//	status [name=]            restored [name=]
//	sessionjob [name=] [deployment=] [mode=] [parallelism=N] [state=] [savepoint-nonce=N] [restart-nonce=N] [conf=k=v]...
//	           [restart-nonce=N]                              (applies a FlinkSessionJob)
//	delete-sessionjob [name=] sessionjob-status [name=]
//
// Any directive takes expect-error=(TEXT): it must then fail with an error containing TEXT,
// which its output shows, and the script goes on (the parentheses keep TEXT's spaces).
type Script struct {
	w       *harness.World
	checker *harness.Checker
	specs   map[string]*flinkv1beta1.FlinkDeploymentSpec
	names   []string
	// jobs are the FlinkSessionJob specs applied so far, by name; jobNames keeps their order.
	jobs     map[string]*flinkv1beta1.FlinkSessionJobSpec
	jobNames []string
	mark     int // trace entries already shown
}

// NewScript returns a script runner on a world of backend b seeded with seed.
func NewScript(b harness.Backend, seed int64) *Script {
	w := harness.NewWorldOn(b, seed)
	return &Script{
		w: w, checker: harness.NewChecker(w), specs: map[string]*flinkv1beta1.FlinkDeploymentSpec{},
		jobs: map[string]*flinkv1beta1.FlinkSessionJobSpec{},
	}
}

// World is the script's world.
func (s *Script) World() *harness.World { return s.w }

// Exec runs one directive and returns its output.
func (s *Script) Exec(cmd string, raw []datadriven.CmdArg) (string, error) {
	var expect string
	raw = slices.DeleteFunc(slices.Clone(raw), func(r datadriven.CmdArg) bool {
		if r.Key == "expect-error" {
			expect = strings.Join(r.Vals, ",")
			return true
		}
		return false
	})
	out, err := s.exec(cmd, raw)
	if expect == "" {
		return out, err
	}
	switch {
	case err == nil:
		return out, fmt.Errorf("%s: no error, want one containing %q", cmd, expect)
	case !strings.Contains(err.Error(), expect):
		return out, fmt.Errorf("%s: error %w, want one containing %q", cmd, err, expect)
	}
	return out + "error: " + err.Error() + "\n", nil
}

// exec runs one directive.
func (s *Script) exec(cmd string, raw []datadriven.CmdArg) (string, error) {
	a := argMap(raw)
	name := a.str("name", resource)
	var err error
	switch cmd {
	case "apply":
		err = s.apply(name, a)
	case "run":
		err = s.run(a)
	case "step":
		err = s.step(a)
	case "fault":
		err = s.fault(name, raw)
		a = args{} // fault checks its own arguments
	case "delete":
		delete(s.specs, name)
		err = s.w.Delete(name)
	case "delete-jobmanager":
		err = s.deleteJobManager(name)
	case "sessionjob":
		err = s.applySessionJob(name, a)
	case "delete-sessionjob":
		err = s.deleteSessionJob(name)
	case "sessionjob-status":
		return s.sessionJobStatus(name), nil
	case "restart-operator":
		s.w.Trace.Add(s.w.Now(), "fault", "", "operator restarted")
		s.w.RestartOperator()
	case "status":
		return s.status(name), nil
	case "restored":
		return s.restored(name), nil
	default:
		err = fmt.Errorf("unknown directive %q", cmd)
	}
	if err == nil {
		err = a.unused()
	}
	return s.news(), err
}

// step steps the world count= times (default once: one reconcile, or one event of the world),
// checking the invariants after each.
func (s *Script) step(a args) error {
	n, err := strconv.Atoi(a.str("count", "1"))
	if err != nil || n < 1 {
		return fmt.Errorf("count=%q: want a positive number", a.str("count", "1"))
	}
	for range n {
		if _, err := s.w.Step(); err != nil {
			return fmt.Errorf("step: %w", err)
		}
		if v := s.checker.Check(s.names...); len(v) > 0 {
			return fmt.Errorf("invariant violated at %s:\n  %s", s.w.Now().Sub(harness.Start), strings.Join(v, "\n  "))
		}
	}
	return nil
}

// news renders the trace entries added since the last directive.
func (s *Script) news() string {
	var b strings.Builder
	for _, e := range s.w.Trace.Entries[s.mark:] {
		if e.Kind == "state" {
			continue
		}
		fmt.Fprintf(&b, "%8s %-6s %s\n", e.Time.Sub(harness.Start).Truncate(time.Second), e.Kind, e.Text)
	}
	s.mark = len(s.w.Trace.Entries)
	return b.String()
}

func (s *Script) apply(name string, a args) error {
	spec, ok := s.specs[name]
	if !ok {
		base := BaseSpec()
		spec = &base
		s.specs[name] = spec
		if !slices.Contains(s.names, name) {
			s.names = append(s.names, name)
		}
	}
	if v, ok := a.take("session"); ok && v == "true" {
		spec.Job = nil // a session cluster
		s.checker.WatchSessionCluster(name)
	}
	if v, ok := a.take("mode"); ok {
		if err := oneOf("mode", v, upgradeModes...); err != nil {
			return err
		}
		spec.Job.UpgradeMode = flinkv1beta1.UpgradeMode(v)
	}
	if v, ok := a.take("deployment-mode"); ok {
		if err := oneOf("deployment-mode", v, string(flinkv1beta1.DeploymentModeNative), string(flinkv1beta1.DeploymentModeStandalone)); err != nil {
			return err
		}
		spec.Mode = flinkv1beta1.KubernetesDeploymentMode(v)
	}
	if v, ok := a.take("parallelism"); ok {
		p, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("parallelism: %w", err)
		}
		p32 := int32(p)
		spec.Job.Parallelism = &p32
	}
	if v, ok := a.take("image"); ok {
		spec.Image = v
	}
	if v, ok := a.take("state"); ok {
		if err := oneOf("state", v, string(flinkv1beta1.JobStateRunning), string(flinkv1beta1.JobStateSuspended)); err != nil {
			return err
		}
		spec.Job.State = flinkv1beta1.JobState(v)
	}
	if v, ok := a.take("savepoint-nonce"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("savepoint-nonce: %w", err)
		}
		spec.Job.SavepointTriggerNonce = &n
	}
	if v, ok := a.take("ha"); ok && v == "false" {
		spec.FlinkConfiguration.Set("high-availability.type", "NONE")
	}
	for _, kv := range a.takeAll("conf") {
		k, v, _ := strings.Cut(kv, "=")
		spec.FlinkConfiguration.Set(k, v)
	}
	d := &flinkv1beta1.FlinkDeployment{Spec: *spec.DeepCopy()}
	d.Name = name
	return s.w.Apply(d)
}

// run steps the world, checking the invariants after every step.
func (s *Script) run(a args) error {
	if v, ok := a.take("for"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		return s.checker.StepUntil(s.w.Now().Add(d), nil, s.names...)
	}
	until := a.str("until", "stable")
	if err := oneOf("until", until, "stable", "suspended", "deleted", "refused"); err != nil {
		return err
	}
	limit, err := time.ParseDuration(a.str("limit", "10m"))
	if err != nil {
		return err
	}
	only, _ := a.take("only")
	done := func() bool {
		for _, n := range s.names {
			if (only == "" || only == n) && !s.reached(n, until) {
				return false
			}
		}
		for _, n := range s.jobNames {
			if (only == "" || only == n) && !s.reachedJob(n, until) {
				return false
			}
		}
		return true
	}
	if err := s.checker.StepUntil(s.w.Now().Add(limit), done, s.names...); err != nil {
		return err
	}
	if !done() {
		return fmt.Errorf("not %s after %s: %s", until, limit, s.status(s.names[len(s.names)-1]))
	}
	return nil
}

func (s *Script) reached(name, until string) bool {
	d, err := s.w.Get(name)
	switch until {
	case "deleted":
		return apierrors.IsNotFound(err)
	case "refused": // for the current generation: an error of an earlier one is stale
		return err == nil && d.Status.Error != "" && d.Status.ObservedGeneration == d.Generation
	case "suspended":
		return err == nil && d.Status.LifecycleState == flinkv1beta1.LifecycleSuspended
	}
	ok, _ := s.checker.Converged(name)
	return ok && err == nil && d.Status.Error == ""
}

func (s *Script) fault(name string, raw []datadriven.CmdArg) error {
	if len(raw) == 0 {
		return fmt.Errorf("fault needs a class")
	}
	class := raw[0].Key
	a := argMap(raw[1:])
	a.take("name")
	var f chaos.Fault
	for _, c := range chaos.Classes {
		if c.Name() == class {
			f = c
			break
		}
	}
	if f == nil {
		return fmt.Errorf("unknown fault class %q", class)
	}
	f, err := tune(f, a)
	if err != nil {
		return err
	}
	return s.checker.Inject(f, name)
}

// tune sets a fault's parameters from a fault directive's for=, trail=, count= and k= (see
// chaos.Tunable); a fault that takes none ignores them.
func tune(f chaos.Fault, a args) (chaos.Fault, error) {
	var p chaos.Params
	for key, dst := range map[string]*time.Duration{"for": &p.For, "trail": &p.Trail} {
		if v, ok := a.take(key); ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("%s=%q: %w", key, v, err)
			}
			*dst = d
		}
	}
	for key, dst := range map[string]*int{"count": &p.Count, "k": &p.K} {
		if v, ok := a.take(key); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s=%q: want a positive number", key, v)
			}
			*dst = n
		}
	}
	if t, ok := f.(chaos.Tunable); ok {
		return t.Tune(p), nil
	}
	return f, nil
}

func (s *Script) deleteJobManager(name string) error {
	dep := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: s.w.Namespace, Name: act.JobManagerName(name)}
	if err := s.w.Client.Get(context.Background(), key, dep); err != nil {
		return err
	}
	s.w.Trace.Add(s.w.Now(), "fault", name, "JobManager Deployment deleted (kubectl delete deployment)")
	s.checker.Injected(chaos.JobManagerDeploymentLoss{}, name)
	return s.w.DeleteJobManagerDeployment(name)
}

// savepointDir is where BaseSpec's savepoints go (state.savepoints.dir).
const savepointDir = "file:///data/sp/"

// status renders what a user reads in kubectl get flinkdep -o yaml.
func (s *Script) status(name string) string {
	d, err := s.w.Get(name)
	if err != nil {
		return fmt.Sprintf("%s: %v\n", name, err)
	}
	st := d.Status
	out := fmt.Sprintf("lifecycle=%s job=%s reconciliation=%s jobmanager=%s generation=%d observed=%d\n",
		st.LifecycleState, st.JobStatus.State, st.ReconciliationStatus.State, st.JobManagerDeploymentStatus, d.Generation, st.ObservedGeneration)
	if sp := st.JobStatus.SavepointInfo; sp != nil && sp.LastSavepoint != nil {
		out += "last savepoint: " + sp.LastSavepoint.Location + "\n"
	}
	if sp := st.JobStatus.SavepointInfo; sp != nil && len(sp.SavepointHistory) > 1 {
		stored := 0
		for _, h := range sp.SavepointHistory {
			if _, ok := s.w.Sim.Store.Get(h.Location); ok {
				stored++
			}
		}
		out += fmt.Sprintf("savepoint history: %d entries, %d of them stored; %d savepoints stored in all\n",
			len(sp.SavepointHistory), stored, len(s.w.Sim.Store.List(savepointDir)))
	}
	if st.Error != "" {
		out += "error: " + flinkv1beta1.ErrorMessage(st.Error) + "\n"
	}
	return out
}

// restored renders how the resource's running job started: from which snapshot, at which
// offset, against the newest snapshot of the job that ran before it.
func (s *Script) restored(name string) string {
	var out string
	s.w.Cluster(name, func(c *fakeflink.Cluster) {
		starts := c.Starts()
		if len(starts) == 0 {
			out = "no job started\n"
			return
		}
		st := starts[len(starts)-1]
		from := st.RestorePath
		if from == "" {
			from = "empty state"
		}
		out = fmt.Sprintf("job %s started from %s at offset %d\n", st.JobID, from, st.Offset)
	})
	if out == "" {
		return "no JobManager runs\n"
	}
	return out
}

// RunFile runs a scenario file, writing every directive and its output to out (the golden
// format, without comparing). It stops at the first failing directive.
func RunFile(path string, b harness.Backend, seed int64, out io.Writer) (*Script, error) {
	s := NewScript(b, seed)
	return s, s.Run(path, out)
}

// Run runs a scenario file's directives on s, writing each with its output to out in the
// file's layout; the golden outputs in the file are skipped. The first failing directive ends
// it with its error.
func (s *Script) Run(path string, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	inOutput := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inOutput:
			inOutput = strings.TrimSpace(line) != ""
			continue
		case line == "----":
			inOutput = true
			continue
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			_, _ = fmt.Fprintln(out, line)
			continue
		}
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			return err
		}
		res, err := s.Exec(cmd, args)
		_, _ = fmt.Fprintf(out, "%s\n----\n%s\n", line, res)
		if err != nil {
			return fmt.Errorf("%s: %w", line, err)
		}
	}
	return sc.Err()
}

// args are a directive's arguments; take marks one used, so unknown ones are reported.
type args map[string][]string

func argMap(raw []datadriven.CmdArg) args {
	a := args{}
	for _, r := range raw {
		a[r.Key] = append(a[r.Key], r.Vals...) // a repeated key (conf=…) adds values
	}
	return a
}

func (a args) take(k string) (string, bool) {
	v, ok := a[k]
	delete(a, k)
	if !ok || len(v) == 0 {
		return "", ok
	}
	return v[0], true
}

func (a args) takeAll(k string) []string {
	v := a[k]
	delete(a, k)
	return v
}

func (a args) str(k, def string) string {
	if v, ok := a.take(k); ok {
		return v
	}
	return def
}

func (a args) unused() error {
	if len(a) == 0 {
		return nil
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return fmt.Errorf("unknown arguments %v", keys)
}

// upgradeModes are the values a script's mode= takes.
var upgradeModes = []string{string(flinkv1beta1.UpgradeModeStateless), string(flinkv1beta1.UpgradeModeSavepoint), string(flinkv1beta1.UpgradeModeLastState)}

// oneOf refuses a directive's value that is none of allowed: a misspelt word must fail the
// script, not quietly mean something else.
func oneOf(key, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s=%q: want one of %s", key, v, strings.Join(allowed, ", "))
}
