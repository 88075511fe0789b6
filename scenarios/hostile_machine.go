package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// hostileFaults are the API-level faults a hostile run adds: the operator must report bad
// input even while its API server misbehaves.
var hostileFaults = []chaos.Fault{
	chaos.APIUnavailable{For: time.Minute},
	chaos.APIErrors{Code: 409, Count: 2},
	chaos.APIErrors{Code: 500, Count: 2},
	chaos.StaleReads{For: 20 * time.Second},
	chaos.MissedWatchEvents{Count: 1},
	chaos.OperatorRestart{},
	chaos.OperatorCrashAfterWrite{K: 1},
}

// hostileCode are the faults of a tenant's code: its JobManager's REST answers are as hostile
// as its YAML.
var hostileCode = []chaos.Fault{
	chaos.HostileJobManager{Answer: fakeflink.RESTHugeAnswers, For: time.Minute},
	chaos.HostileJobManager{Answer: fakeflink.RESTEndlessAnswers, For: time.Minute},
	chaos.HostileJobManager{Answer: fakeflink.RESTMalformedAnswers, For: time.Minute},
	chaos.HostileJobManager{Answer: fakeflink.RESTHugeErrors, For: time.Minute},
	chaos.RESTTimeout{For: time.Minute}, // accepts calls, answers none
}

// hostileMachine drives one FlinkDeployment whose every field a tenant may set to anything,
// next to objects another tenant owns, plus a FlinkSessionJob with hostile jars on a session
// cluster. After every step the world's invariants hold (errors reported with Warnings,
// Events within the API limit, no foreign object written, no fetch or upload beyond the
// tenant boundary); once changes stop each resource converges or reports why within Settle,
// an invalid spec is reported, and a running spec is what was rendered.
type hostileMachine struct {
	checked
	name string
	spec flinkv1beta1.FlinkDeploymentSpec
	ann  map[string]string
	job  flinkv1beta1.FlinkSessionJobSpec
	// snapshots counts the FlinkStateSnapshots created (snap-1, snap-2, …).
	snapshots int
	// floods counts the ConfigMaps the tenant's code wrote (flood-1, flood-2, …).
	floods int
	stats  *Stats
}

// HostileProperty is the hostile-input property on worlds from newBackend (nil: the fake
// backend).
func HostileProperty(newBackend func() (harness.Backend, error), stats *Stats) func(*rapid.T) {
	return func(t *rapid.T) {
		w := newWorld(t, newBackend)
		stats.keep(w)
		m := &hostileMachine{name: hostileName(t), spec: BaseSpec(), job: BaseSessionJob(sessionCluster), stats: runStats(stats)}
		m.checked = newChecked(w, m.name, sessionCluster) // the session cluster too: it is a FlinkDeployment of the tenant
		m.checker.WatchSessionCluster(sessionCluster)
		m.foreign(t)
		m.startSessionCluster(t)
		if !m.apply(t) {
			return // the API server refused the name itself: nothing reached the operator
		}
		m.run(t, 20*time.Second)
		t.Repeat(map[string]func(*rapid.T){
			"mutate":         m.mutate,
			"jar":            m.jar,
			"fault":          m.fault,
			"snapshot":       m.hostileSnapshot,
			"deleteSnapshot": func(t *rapid.T) { m.deleteOneSnapshot(t, m.snapshots) },
			"flood":          m.flood,
			"code":           m.code,
			"advance": func(t *rapid.T) {
				m.run(t, time.Duration(rapid.IntRange(1, 120).Draw(t, "seconds"))*time.Second)
			},
			"": m.Check,
		})
		m.settle(t)
	}
}

// code makes the JobManager of the resource or of the session cluster (which runs whatever the
// resource's spec is) answer as hostile code could for a minute.
func (m *hostileMachine) code(t *rapid.T) {
	m.inject(t, hostileCode, rapid.SampledFrom([]string{m.name, sessionCluster}).Draw(t, "whose"), m.stats)
	m.run(t, time.Duration(rapid.IntRange(5, 90).Draw(t, "seconds"))*time.Second)
}

// flood creates ConfigMaps as the tenant's code may under Flink's ServiceAccount: with Flink's
// labels (HA labels of other cluster ids), 100 KiB of data and a 10 KiB annotation each. They
// are no resource's: the operator must neither cache their content (invariant T3) nor touch
// them.
func (m *hostileMachine) flood(t *rapid.T) {
	for range rapid.IntRange(1, 3).Draw(t, "configmaps") {
		m.floods++
		name := fmt.Sprintf("flood-%d", m.floods)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name: name,
				Labels: map[string]string{
					act.LabelType: act.TypeNative, act.LabelApp: name, act.LabelConfigMapType: act.ConfigMapTypeHA,
				},
				Annotations: map[string]string{"control-plane.alpha.kubernetes.io/leader": strings.Repeat("l", 10<<10)},
			},
			Data: map[string]string{"checkpointID-1": strings.Repeat("d", 100<<10)},
		}
		if rapid.Bool().Draw(t, "forged content hash") {
			cm.Annotations[act.AnnotationContentHash] = "forged" // as if the operator rendered it
		}
		if err := m.checker.Foreign(cm); err != nil {
			t.Fatal(err)
		}
	}
	m.run(t, 5*time.Second)
}

// foreign creates, with some probability each, another tenant's objects under the names the
// resource renders, and another Flink cluster's HA metadata under its cluster id.
func (m *hostileMachine) foreign(t *rapid.T) {
	labels := map[string]string{"team": "other"}
	one := int32(1)
	objs := map[string]client.Object{
		"deployment": &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: act.JobManagerName(m.name), Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
				},
			},
		},
		"service":   &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: act.RESTServiceName(m.name), Labels: labels}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		"configmap": &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: act.ConfigMapName(m.name), Labels: labels}, Data: map[string]string{"k": "v"}},
		// Another Flink cluster's HA metadata under the resource's cluster id.
		"ha": &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name:   m.name + "-cluster-config-map",
			Labels: map[string]string{act.LabelApp: m.name, "configmap-type": "high-availability"},
		}, Data: map[string]string{"checkpointID-1": "theirs"}},
	}
	for _, kind := range []string{"deployment", "service", "configmap", "ha"} {
		if rapid.Float64Range(0, 1).Draw(t, "foreign "+kind) < 0.25 {
			// A real API server refuses some drawn names (then nobody can own such an object).
			if err := m.checker.Foreign(objs[kind]); err != nil && !apierrors.IsInvalid(err) {
				t.Fatal(err)
			}
		}
	}
}

func (m *hostileMachine) startSessionCluster(t *rapid.T) {
	cluster := BaseSpec()
	cluster.Job = nil
	cluster.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: ptr(int32(2))}
	cluster.FlinkConfiguration.Set("fakeflink.session.jars", "job.jar")
	d := &flinkv1beta1.FlinkDeployment{Spec: cluster}
	d.Name = sessionCluster
	if err := m.w.Apply(d); err != nil {
		t.Fatalf("apply session cluster: %v", err)
	}
}

// apply applies the spec; false when the API server refused it (a real one checks the
// CRD's schema and the name; the fake backend does not).
func (m *hostileMachine) apply(t *rapid.T) bool {
	d := &flinkv1beta1.FlinkDeployment{Spec: *m.spec.DeepCopy()}
	d.Name, d.Annotations = m.name, m.ann
	err := m.w.Apply(d)
	if apierrors.IsInvalid(err) {
		m.w.Trace.Add(m.w.Now(), "spec", m.name, "refused by the API server")
		return false
	}
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return true
}

func (m *hostileMachine) mutate(t *rapid.T) {
	prevSpec, prevAnn := *m.spec.DeepCopy(), m.ann
	if rapid.Float64Range(0, 1).Draw(t, "reset") < 0.15 {
		m.spec, m.ann = BaseSpec(), nil // back to a valid spec
	} else {
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range deploymentMutations {
				if !yield(k) {
					return
				}
			}
		})
		field := rapid.SampledFrom(names).Draw(t, "field")
		d := &flinkv1beta1.FlinkDeployment{Spec: m.spec, ObjectMeta: metav1.ObjectMeta{Annotations: m.ann}}
		deploymentMutations[field](t, d)
		m.spec, m.ann = d.Spec, d.Annotations
	}
	if !m.apply(t) {
		m.spec, m.ann = prevSpec, prevAnn // the resource keeps its stored spec
	}
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, time.Minute}).Draw(t, "wait"))
}

// jar applies the session job with a hostile (or good) jar.
func (m *hostileMachine) jar(t *rapid.T) {
	m.job.Job.JarURI = hostileJarURI(t)
	m.w.Trace.Add(m.w.Now(), "spec", harness.SessionJobKey(sessionJobName), "jarURI "+describeValue(m.job.Job.JarURI))
	j := &flinkv1beta1.FlinkSessionJob{Spec: *m.job.DeepCopy()}
	j.Name = sessionJobName
	if err := m.w.ApplySessionJob(j); err != nil && !apierrors.IsInvalid(err) {
		t.Fatalf("apply session job: %v", err)
	}
	m.run(t, rapid.SampledFrom([]time.Duration{10 * time.Second, time.Minute}).Draw(t, "wait"))
}

func (m *hostileMachine) fault(t *rapid.T) {
	m.inject(t, hostileFaults, m.name, m.stats)
	m.run(t, 5*time.Second)
}

// settle lets the world run for Settle and checks what hostile input must end in.
func (m *hostileMachine) settle(t *rapid.T) {
	m.run(t, Settle)
	var problems []string
	if ok, why := m.checker.Converged(m.name); !ok {
		problems = append(problems, fmt.Sprintf("%s neither converged nor reported an error within %s: %s", m.name, Settle, why))
	}
	d, err := m.w.Get(m.name)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if errs := d.Validate(); len(errs) > 0 && !strings.Contains(d.Status.Error, "invalid spec") {
		problems = append(problems, fmt.Sprintf("%s: the spec is invalid (%.200s) but status.error is %.200q", m.name, errs.ToAggregate(), d.Status.Error))
	}
	if d.Status.Error == "" && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning {
		problems = append(problems, m.checker.SpecRendered(d)...)
	}
	if _, err := m.w.GetSessionJob(sessionJobName); err == nil {
		if ok, why := m.checker.SessionJobConverged(sessionJobName); !ok {
			problems = append(problems, fmt.Sprintf("session job %s neither converged nor reported an error within %s: %s", sessionJobName, Settle, why))
		}
	}
	problems = append(problems, m.snapshotsSettled()...)
	if len(problems) > 0 {
		t.Fatalf("%s\ntrace:\n%s", strings.Join(problems, "\n"), m.w.Trace)
	}
	// Deleting the resource removes what is its own and nothing else (invariant 4 and the
	// foreign objects are checked after every step).
	if err := m.w.Delete(m.name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	m.run(t, 2*time.Minute)
	if _, err := m.w.Get(m.name); !apierrors.IsNotFound(err) {
		t.Fatalf("%s not deleted within 2 minutes: %v\ntrace:\n%s", m.name, err, m.w.Trace)
	}
}
