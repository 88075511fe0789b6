package controller_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
)

// sessionEnv is env with the session job reconciler, whose http(s) jars come from a mock.
type sessionEnv struct {
	*env
	sj   *controller.FlinkSessionJobReconciler
	jars *httpmock.MockTransport
	// cluster is the session FlinkDeployment reconciled alongside the jobs.
	clusterName string
}

// jarURL is the http jar the mock serves.
const jarURL = "https://jars.example.com/flink-examples-streaming.jar"

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	e := newEnv(t)
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, jarURL, httpmock.NewBytesResponder(200, []byte("PK\x03\x04 a jar")))
	s := &sessionEnv{env: e, jars: mt}
	s.sj = s.reconciler(e.client)
	return s
}

// reconciler builds a session job reconciler on c (tests wrap the client to inject faults).
func (s *sessionEnv) reconciler(c client.Client) *controller.FlinkSessionJobReconciler {
	opts := s.r.Options
	return controller.Setup{
		Live: opts, Transport: s.sim, Clock: s.clock,
		Jars: &flink.JarFetcher{Transport: s.jars, Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
	}.SessionJobReconciler(c, s.rec)
}

// sessionCluster is a session FlinkDeployment with checkpoints and savepoints configured.
func sessionCluster(name string) *flinkv1beta1.FlinkDeployment {
	d := deployment(name, flinkv1beta1.UpgradeModeStateless)
	d.Spec.Job = nil
	return d
}

// sessionJob is a session job of an http jar on cluster, changed by mods.
func sessionJob(name, cluster string, mode flinkv1beta1.UpgradeMode, mods ...func(*flinkv1beta1.FlinkSessionJob)) *flinkv1beta1.FlinkSessionJob {
	j := fixtures.SessionJob(ns, name, cluster)
	j.UID, j.Generation = types.UID("uid-"+name), 1
	p := int32(2)
	j.Spec.Job.JarURI, j.Spec.Job.Parallelism, j.Spec.Job.UpgradeMode, j.Spec.Job.EntryClass = jarURL, &p, mode, "org.example.Job"
	for _, m := range mods {
		m(j)
	}
	return j
}

// startCluster creates a session cluster and steps until it is READY.
func (s *sessionEnv) startCluster(d *flinkv1beta1.FlinkDeployment) {
	s.t.Helper()
	s.clusterName = d.Name
	s.create(d)
	s.until(d.Name, 20, "a ready session cluster", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady && d.Status.LifecycleState == flinkv1beta1.LifecycleStable
	})
}

func (s *sessionEnv) createJob(j *flinkv1beta1.FlinkSessionJob) {
	s.t.Helper()
	if err := s.client.Create(s.ctx, j); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sessionEnv) getJob(name string) *flinkv1beta1.FlinkSessionJob {
	s.t.Helper()
	var j flinkv1beta1.FlinkSessionJob
	if err := s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: name}, &j); err != nil {
		s.t.Fatal(err)
	}
	return &j
}

// updateJob changes a session job's spec as kubectl would: the generation goes up.
func (s *sessionEnv) updateJob(name string, mod func(*flinkv1beta1.FlinkSessionJob)) {
	s.t.Helper()
	j := s.getJob(name)
	mod(j)
	j.Generation++
	if err := s.client.Update(s.ctx, j); err != nil {
		s.t.Fatal(err)
	}
}

// stepJob reconciles the session cluster and the job once, then lets a second pass.
func (s *sessionEnv) stepJob(name string) error {
	s.t.Helper()
	if s.clusterName != "" {
		_, _ = s.r.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: s.clusterName}})
	}
	_, err := s.sj.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	s.drainEvents()
	if serr := s.sim.Sync(s.ctx); serr != nil {
		s.t.Fatalf("pod simulator: %v", serr)
	}
	s.clock.Step(time.Second)
	s.sim.Tick()
	return err
}

// untilJob steps until cond holds for the session job, failing after max steps.
func (s *sessionEnv) untilJob(name string, max int, what string, cond func(j *flinkv1beta1.FlinkSessionJob) bool) *flinkv1beta1.FlinkSessionJob {
	s.t.Helper()
	for range max {
		if err := s.stepJob(name); err != nil {
			s.t.Logf("reconcile %s: %v", name, err)
		}
		var j flinkv1beta1.FlinkSessionJob
		err := s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: name}, &j)
		if err == nil && cond(&j) {
			return &j
		}
	}
	var j flinkv1beta1.FlinkSessionJob
	_ = s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: name}, &j)
	s.t.Fatalf("after %d steps: not %s\nstatus: %+v\nevents:\n  %s", max, what, j.Status, strings.Join(s.events, "\n  "))
	return nil
}

// advanceJob lets virtual time pass while reconciling the job and its cluster.
func (s *sessionEnv) advanceJob(name string, d time.Duration) {
	s.t.Helper()
	for end := s.clock.Now().Add(d); s.clock.Now().Before(end); {
		_ = s.stepJob(name)
	}
}

// jobRunning holds once the session job of generation gen runs and is stable.
func jobRunning(gen int64) func(j *flinkv1beta1.FlinkSessionJob) bool {
	return func(j *flinkv1beta1.FlinkSessionJob) bool {
		return j.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && j.Status.LifecycleState == flinkv1beta1.LifecycleStable &&
			j.Status.ObservedGeneration == gen && j.Status.Error == ""
	}
}

// flinkJob is the job of the given id on the session cluster (nil when none).
func (s *sessionEnv) flinkJob(id string) *fakeflink.Job {
	s.t.Helper()
	j, err := s.cluster(s.clusterName).Job(id)
	if err != nil {
		return nil
	}
	return j
}

// startsOf counts the starts of job id on the session cluster.
func (s *sessionEnv) startsOf(id string) []fakeflink.JobStart {
	var out []fakeflink.JobStart
	for _, st := range s.cluster(s.clusterName).Starts() {
		if st.JobID == id {
			out = append(out, st)
		}
	}
	return out
}
