package controller_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

func TestSessionJobUploadsItsJarAndRunsUnderTheRecordedID(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless))
	j := s.untilJob("etl", 20, "running", jobRunning(1))

	id := j.Status.JobStatus.JobID
	if id == "" || s.flinkJob(id) == nil {
		t.Fatalf("status job id %q is not a job of the session cluster", id)
	}
	if got := s.flinkJob(id).Parallelism(); got != 2 {
		t.Errorf("job parallelism %d, want the spec's 2", got)
	}
	jars := s.cluster("sess").Jars()
	if len(jars) != 1 || jars[0].Name != sessionjob.JarName(string(j.UID), id, jarURL) {
		t.Errorf("jars on the cluster %+v, want one named %s", jars, sessionjob.JarName(string(j.UID), id, jarURL))
	}
	if n := s.jars.GetTotalCallCount(); n != 1 {
		t.Errorf("the jar was fetched %d times, want once", n)
	}
	if !s.hasEvent("Normal Submit") {
		t.Errorf("no Submit event: %v", s.events)
	}
	if c := s.get("sess"); c.Status.JobStatus.State != "" || c.Status.JobStatus.JobID != "" {
		t.Errorf("the session cluster reports the session job's job: %+v", c.Status.JobStatus)
	}
	if !controllerutilContains(j.Finalizers, "flinksessionjobs.flink.apache.org/finalizer") {
		t.Errorf("finalizers %v", j.Finalizers)
	}
}

func controllerutilContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSessionJobWaitsForItsSessionCluster(t *testing.T) {
	s := newSessionEnv(t)
	s.createJob(sessionJob("etl", "later", flinkv1beta1.UpgradeModeStateless))
	j := s.untilJob("etl", 5, "waiting", func(j *flinkv1beta1.FlinkSessionJob) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(j.Status.Error), "waiting for session cluster later")
	})
	if j.Status.JobStatus.JobID != "" && s.hasEvent("Normal Submit ") && len(s.sim.Store.List("")) > 0 {
		t.Errorf("something ran without a cluster")
	}
	if !s.hasEvent("Warning SessionClusterMissing") {
		t.Errorf("no SessionClusterMissing warning: %v", s.events)
	}
	s.startCluster(sessionCluster("later"))
	s.untilJob("etl", 20, "running once the cluster is ready", jobRunning(1))
}

func TestSessionJobOnAnApplicationClusterIsAnError(t *testing.T) {
	s := newSessionEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeStateless))
	s.createJob(sessionJob("etl", "app", flinkv1beta1.UpgradeModeStateless))
	s.untilJob("etl", 5, "refused", func(j *flinkv1beta1.FlinkSessionJob) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(j.Status.Error), "runs an application job")
	})
	if !s.hasEvent("Warning NotASessionCluster") {
		t.Errorf("no NotASessionCluster warning: %v", s.events)
	}
}

func TestSessionJobSavepointUpgradeResumesTheExactOffset(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeSavepoint))
	before := s.untilJob("etl", 20, "running", jobRunning(1))
	s.advanceJob("etl", 25*time.Second)

	s.updateJob("etl", func(j *flinkv1beta1.FlinkSessionJob) { p := int32(1); j.Spec.Job.Parallelism = &p })
	after := s.untilJob("etl", 40, "running generation 2", jobRunning(2))

	oldID, newID := before.Status.JobStatus.JobID, after.Status.JobStatus.JobID
	if oldID == newID {
		t.Fatalf("the upgrade kept job id %s", oldID)
	}
	if old := s.flinkJob(oldID); old == nil || old.Status != "FINISHED" {
		t.Errorf("the old job is %v, want FINISHED by stop-with-savepoint", old)
	}
	path := after.Status.JobStatus.UpgradeSavepointPath
	snap, ok := s.sim.Store.Get(path)
	if !ok {
		t.Fatalf("upgradeSavepointPath %q is not in the store", path)
	}
	starts := s.startsOf(newID)
	if len(starts) != 1 || starts[0].RestorePath != path || starts[0].Offset != snap.Offset || snap.Offset == 0 {
		t.Errorf("new job starts %+v; want one from %s at its offset %d (> 0)", starts, path, snap.Offset)
	}
	if got := s.flinkJob(newID).Parallelism(); got != 1 {
		t.Errorf("new parallelism %d, want 1", got)
	}
	s.advanceJob("etl", 5*time.Second)
	if jars := s.cluster("sess").Jars(); len(jars) != 1 || !strings.Contains(jars[0].Name, newID[:8]) {
		t.Errorf("jars after the upgrade %+v, want only the new job's", jars)
	}
}

func TestSessionJobCrashBetweenRunAndStatusWriteSubmitsOnce(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless))
	// The operator dies after the submission, before the status write that records it.
	failed := false
	flaky := interceptor.NewClient(s.client.(client.WithWatch), interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			j, ok := obj.(*flinkv1beta1.FlinkSessionJob)
			if ok && !failed && j.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed {
				failed = true
				return errors.New("connection reset (injected)")
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	good := s.sj
	s.sj = s.reconciler(flaky)
	for i := 0; i < 10 && !failed; i++ {
		_ = s.stepJob("etl")
	}
	if !failed {
		t.Fatal("the submission's status write never happened")
	}
	id := s.getJob("etl").Status.JobStatus.JobID
	if id == "" || s.flinkJob(id) == nil {
		t.Fatalf("the job id %q was not recorded before the submission, or the job did not run", id)
	}
	s.sj = good // a new operator
	j := s.untilJob("etl", 20, "running", jobRunning(1))
	if j.Status.JobStatus.JobID != id {
		t.Errorf("job id changed from %s to %s", id, j.Status.JobStatus.JobID)
	}
	if n := len(s.startsOf(id)); n != 1 || len(s.cluster("sess").Jobs()) != 1 {
		t.Errorf("%d starts of %s and %d jobs on the cluster, want the job once", n, id, len(s.cluster("sess").Jobs()))
	}
	if !s.hasEvent("already on the session cluster") {
		t.Errorf("no event about the job found after the crash: %v", s.events)
	}
}

func TestSessionJobStatelessAndLastStateUpgrades(t *testing.T) {
	for _, tc := range []struct {
		mode      flinkv1beta1.UpgradeMode
		wantState bool
	}{
		{flinkv1beta1.UpgradeModeStateless, false},
		{flinkv1beta1.UpgradeModeLastState, true},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			s := newSessionEnv(t)
			s.startCluster(sessionCluster("sess"))
			s.createJob(sessionJob("etl", "sess", tc.mode))
			before := s.untilJob("etl", 20, "running", jobRunning(1))
			s.advanceJob("etl", 35*time.Second)
			s.updateJob("etl", func(j *flinkv1beta1.FlinkSessionJob) { n := int64(1); j.Spec.RestartNonce = &n })
			after := s.untilJob("etl", 40, "running generation 2", jobRunning(2))

			old := s.flinkJob(before.Status.JobStatus.JobID)
			if old == nil || old.Status != "CANCELED" {
				t.Fatalf("old job %v, want CANCELED", old)
			}
			cps := old.Checkpoints()
			start := s.startsOf(after.Status.JobStatus.JobID)[0]
			switch {
			case tc.wantState && (len(cps) == 0 || start.RestorePath != cps[len(cps)-1].Path || start.Offset != cps[len(cps)-1].Offset):
				t.Errorf("last-state started from %q at %d, want the newest checkpoint of the cancelled job %+v", start.RestorePath, start.Offset, cps)
			case !tc.wantState && (start.RestorePath != "" || start.Offset != 0):
				t.Errorf("stateless started from %q at %d, want empty state", start.RestorePath, start.Offset)
			}
		})
	}
}

func TestSessionJobSuspendAndResumeKeepState(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeSavepoint))
	s.untilJob("etl", 20, "running", jobRunning(1))
	s.advanceJob("etl", 15*time.Second)

	s.updateJob("etl", func(j *flinkv1beta1.FlinkSessionJob) { j.Spec.Job.State = flinkv1beta1.JobStateSuspended })
	susp := s.untilJob("etl", 30, "suspended", func(j *flinkv1beta1.FlinkSessionJob) bool {
		return j.Status.LifecycleState == flinkv1beta1.LifecycleSuspended && j.Status.JobStatus.State == flinkv1beta1.JobStatusSuspended
	})
	path := susp.Status.JobStatus.UpgradeSavepointPath
	if path == "" {
		t.Fatal("suspended without a savepoint")
	}
	s.advanceJob("etl", 10*time.Second)
	s.updateJob("etl", func(j *flinkv1beta1.FlinkSessionJob) { j.Spec.Job.State = flinkv1beta1.JobStateRunning })
	after := s.untilJob("etl", 30, "resumed", jobRunning(3))
	snap, _ := s.sim.Store.Get(path)
	if st := s.startsOf(after.Status.JobStatus.JobID); len(st) != 1 || st[0].RestorePath != path || st[0].Offset != snap.Offset {
		t.Errorf("resumed %+v, want from the suspend savepoint %s at %d", st, path, snap.Offset)
	}
}

func TestSessionJobSavepointNonce(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeSavepoint))
	s.untilJob("etl", 20, "running", jobRunning(1))
	s.updateJob("etl", func(j *flinkv1beta1.FlinkSessionJob) { n := int64(7); j.Spec.Job.SavepointTriggerNonce = &n })
	j := s.untilJob("etl", 20, "savepoint recorded", func(j *flinkv1beta1.FlinkSessionJob) bool {
		sp := j.Status.JobStatus.SavepointInfo
		return sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.TriggerNonce != nil && *sp.LastSavepoint.TriggerNonce == 7
	})
	if _, ok := s.sim.Store.Get(j.Status.JobStatus.SavepointInfo.LastSavepoint.Location); !ok {
		t.Errorf("savepoint %s not in the store", j.Status.JobStatus.SavepointInfo.LastSavepoint.Location)
	}
	if j.Status.JobStatus.State != flinkv1beta1.JobStatusRunning || j.Status.LifecycleState != flinkv1beta1.LifecycleStable {
		t.Errorf("after a savepoint nonce: job %s, lifecycle %s; want it still running and stable", j.Status.JobStatus.State, j.Status.LifecycleState)
	}
}

func TestSessionJobLocalJarRunsFromTheImage(t *testing.T) {
	s := newSessionEnv(t)
	c := sessionCluster("sess")
	c.Spec.FlinkConfiguration.Set("fakeflink.session.jars", "StateMachineExample.jar")
	s.startCluster(c)
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) {
		j.Spec.Job.JarURI = "local:///opt/flink/examples/streaming/StateMachineExample.jar"
	}))
	s.untilJob("etl", 20, "running", jobRunning(1))
	if n := len(s.cluster("sess").Jars()); n != 1 {
		t.Errorf("%d jars on the cluster, want only the image's", n)
	}

	s.createJob(sessionJob("missing", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) {
		j.Spec.Job.JarURI = "local:///opt/flink/usrlib/nothere.jar"
	}))
	for range 5 {
		_ = s.stepJob("missing")
	}
	if !s.hasEvent("Warning ActionFailed") || !s.hasEvent("nothere.jar is not on the session cluster") {
		t.Errorf("no warning about the missing local jar: %v", s.events)
	}
	// The failure is permanent: status.error says it, and Ready names it.
	missing := s.getJob("missing")
	ready := meta.FindStatusCondition(missing.Status.Conditions, "Ready")
	if missing.Status.Error == "" || ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != "ActionFailed" || ready.Message != flinkv1beta1.ErrorMessage(missing.Status.Error) {
		t.Errorf("status.error %q, Ready %+v; want Ready false with reason ActionFailed and the error", flinkv1beta1.ErrorMessage(missing.Status.Error), ready)
	}
}

func TestSessionJobDeletionCancelsTheJobAndDeletesItsJar(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless))
	j := s.untilJob("etl", 20, "running", jobRunning(1))
	if err := s.client.Delete(s.ctx, j); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		_ = s.stepJob("etl")
	}
	if err := s.client.Get(s.ctx, client.ObjectKeyFromObject(j), j); err == nil {
		t.Fatalf("the session job is still there: %+v", j.Status)
	}
	if got := s.flinkJob(j.Status.JobStatus.JobID); got == nil || got.Status != "CANCELED" {
		t.Errorf("job after deletion %v, want CANCELED", got)
	}
	if jars := s.cluster("sess").Jars(); len(jars) != 0 {
		t.Errorf("jars left on the cluster: %+v", jars)
	}
}

func TestDeletingTheSessionClusterAndItsJobsTogetherFinishes(t *testing.T) {
	s := newSessionEnv(t)
	s.startCluster(sessionCluster("sess"))
	one := func(j *flinkv1beta1.FlinkSessionJob) { p := int32(1); j.Spec.Job.Parallelism = &p }
	s.createJob(sessionJob("a", "sess", flinkv1beta1.UpgradeModeStateless, one))
	s.createJob(sessionJob("b", "sess", flinkv1beta1.UpgradeModeStateless, one))
	s.untilJob("a", 20, "running", jobRunning(1))
	s.untilJob("b", 20, "running", jobRunning(1))

	if err := s.client.Delete(s.ctx, s.get("sess")); err != nil {
		t.Fatal(err)
	}
	s.step("sess")
	if !s.hasEvent("Warning SessionJobsExist") {
		t.Errorf("deleting the cluster first did not say it waits for a and b: %v", s.events)
	}
	for _, name := range []string{"a", "b"} {
		if err := s.client.Delete(s.ctx, s.getJob(name)); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		_ = s.stepJob("a")
		_ = s.stepJob("b")
	}
	var left flinkv1beta1.FlinkSessionJobList
	if err := s.client.List(s.ctx, &left); err != nil || len(left.Items) != 0 {
		t.Fatalf("session jobs left: %d (%v)", len(left.Items), err)
	}
	var d flinkv1beta1.FlinkDeployment
	if err := s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: "sess"}, &d); err == nil {
		t.Fatalf("the session cluster is still there: %+v", d.Status)
	}
}

// TestApacheSessionExamplesEndToEnd applies the Apache operator's session examples unchanged
// (their jar URLs answered by a mock) and checks that each session job is submitted to its
// session cluster with its spec.
func TestApacheSessionExamplesEndToEnd(t *testing.T) {
	for _, files := range [][]string{
		{"basic-session-deployment-and-job.yaml"},
		{"basic-session-deployment-only.yaml", "basic-session-job-only.yaml"},
		{"e2e-tests-data/sessionjob-cr.yaml"},
	} {
		t.Run(files[len(files)-1], func(t *testing.T) {
			s := newSessionEnv(t)
			s.jars.RegisterRegexpResponder(http.MethodGet, regexp.MustCompile(`^https://repo1\.maven\.org/.*\.jar$`),
				httpmock.NewBytesResponder(200, []byte("PK\x03\x04 examples")))
			var jobs []*flinkv1beta1.FlinkSessionJob
			for _, f := range files {
				jobs = append(jobs, s.applyExample(f)...)
			}
			if len(jobs) == 0 {
				t.Fatal("no session job in the example")
			}
			for _, want := range jobs {
				s.checkSubmitted(want)
			}
		})
	}
}

// applyExample creates the FlinkDeployments (waiting for them) and FlinkSessionJobs of an
// Apache example file and returns the session jobs.
func (s *sessionEnv) applyExample(file string) []*flinkv1beta1.FlinkSessionJob {
	s.t.Helper()
	docs, err := fixtures.FileDocuments(filepath.Join(fixtures.SharedDir(s.t), "reference", "apache-operator-examples", file))
	if err != nil {
		s.t.Fatal(err)
	}
	var jobs []*flinkv1beta1.FlinkSessionJob
	for _, doc := range docs {
		switch doc.Kind {
		case "FlinkDeployment":
			d := &flinkv1beta1.FlinkDeployment{}
			if err := fixtures.DecodeStrict(doc.YAML, d); err != nil {
				s.t.Fatal(err)
			}
			d.Namespace, d.UID, d.Generation = ns, types.UID("uid-"+d.Name), 1
			s.startCluster(d)
		case "FlinkSessionJob":
			j := &flinkv1beta1.FlinkSessionJob{}
			if err := fixtures.DecodeStrict(doc.YAML, j); err != nil {
				s.t.Fatal(err)
			}
			j.Namespace, j.UID, j.Generation = ns, types.UID("uid-"+j.Name), 1
			s.createJob(j)
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// checkSubmitted steps until want is submitted and checks the job on the cluster against its
// spec.
func (s *sessionEnv) checkSubmitted(want *flinkv1beta1.FlinkSessionJob) {
	s.t.Helper()
	got := s.untilJob(want.Name, 20, "submitted", func(j *flinkv1beta1.FlinkSessionJob) bool {
		return j.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed && j.Status.JobStatus.JobID != ""
	})
	fj := s.flinkJob(got.Status.JobStatus.JobID)
	if fj == nil || flinkv1beta1.ErrorMessage(got.Status.Error) != "" {
		s.t.Fatalf("%s: job %s not on the cluster (error %q)", want.Name, got.Status.JobStatus.JobID, flinkv1beta1.ErrorMessage(got.Status.Error))
	}
	if p := want.Spec.Job.Parallelism; p != nil && fj.Parallelism() != int(*p) {
		s.t.Errorf("%s: parallelism %d, want %d", want.Name, fj.Parallelism(), *p)
	}
	if fj.Program.EntryClass != want.Spec.Job.EntryClass {
		s.t.Errorf("%s: entry class %q, want %q", want.Name, fj.Program.EntryClass, want.Spec.Job.EntryClass)
	}
}

// TestSessionClusterDeletionBlocks: a deleted session cluster waits for the jobs it runs that
// no FlinkSessionJob manages (cancelled by hand, it goes), unless
// kubernetes.operator.session.deletion.block-on-unmanaged-jobs is false; with
// block-on-session-jobs false it goes while its session jobs still run, and they then release
// their finalizers without cancelling their jobs.
func TestSessionClusterDeletionBlocks(t *testing.T) {
	gone := func(s *sessionEnv, name string) bool {
		var d flinkv1beta1.FlinkDeployment
		return apierrors.IsNotFound(s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: name}, &d))
	}
	t.Run("an unmanaged job holds the deletion until it is cancelled", func(t *testing.T) {
		s := newSessionEnv(t)
		s.startCluster(sessionCluster("sess"))
		jobID := runUnmanagedJob(t, s)
		if err := s.client.Delete(s.ctx, s.get("sess")); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			s.step("sess")
		}
		if gone(s, "sess") || !s.hasEvent("Warning UnmanagedJobsExist") {
			t.Fatalf("deleted with job %s running, or not told: %v", jobID, s.events)
		}
		s.sim.Do(ns, "sess", func(c *fakeflink.Cluster) { _ = c.CancelJob(jobID) })
		s.advance("sess", 30*time.Second)
		if !gone(s, "sess") {
			t.Errorf("still there once its job was cancelled: %+v", flinkv1beta1.ErrorMessage(s.get("sess").Status.Error))
		}
	})
	t.Run("block-on-unmanaged-jobs false: deleted at once", func(t *testing.T) {
		s := newSessionEnv(t)
		d := sessionCluster("sess")
		d.Spec.FlinkConfiguration.Set(config.KeyBlockOnUnmanagedJobs, "false")
		s.startCluster(d)
		runUnmanagedJob(t, s)
		if err := s.client.Delete(s.ctx, s.get("sess")); err != nil {
			t.Fatal(err)
		}
		s.advance("sess", 30*time.Second)
		if !gone(s, "sess") {
			t.Errorf("still there: %q", flinkv1beta1.ErrorMessage(s.get("sess").Status.Error))
		}
	})
	t.Run("block-on-session-jobs false: the cluster goes first, its session job follows", func(t *testing.T) {
		s := newSessionEnv(t)
		d := sessionCluster("sess")
		d.Spec.FlinkConfiguration.Set(config.KeyBlockOnSessionJobs, "false")
		s.startCluster(d)
		s.createJob(sessionJob("a", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) {
			p := int32(1)
			j.Spec.Job.Parallelism = &p
			j.Spec.FlinkConfiguration = flinkv1beta1.FlinkConfiguration{}
			j.Spec.FlinkConfiguration.Set(config.KeyBlockOnSessionJobs, "false")
		}))
		s.untilJob("a", 20, "running", jobRunning(1))
		if err := s.client.Delete(s.ctx, s.getJob("a")); err != nil {
			t.Fatal(err)
		}
		if err := s.client.Delete(s.ctx, s.get("sess")); err != nil {
			t.Fatal(err)
		}
		_ = s.stepJob("a")
		var left flinkv1beta1.FlinkSessionJobList
		if err := s.client.List(s.ctx, &left); err != nil || len(left.Items) != 0 {
			t.Errorf("session job left: %d (%v); want it released without cancelling", len(left.Items), err)
		}
		s.advance("sess", 30*time.Second)
		if !gone(s, "sess") {
			t.Errorf("cluster still there: %q", flinkv1beta1.ErrorMessage(s.get("sess").Status.Error))
		}
	})
}

// runUnmanagedJob runs a job on session cluster "sess" that no FlinkSessionJob manages, as a
// user's flink run would, and returns its id.
func runUnmanagedJob(t *testing.T, s *sessionEnv) string {
	t.Helper()
	var jobID string
	s.sim.Do(ns, "sess", func(c *fakeflink.Cluster) {
		jar, err := c.UploadJar("mine.jar", []byte("PK\x03\x04 a jar"))
		if err == nil {
			jobID, err = c.RunJar(jar.ID, fakeflink.RunRequest{Parallelism: 1})
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	return jobID
}
