package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/rest"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
)

// hostileRoundTripper answers every call as a JobManager under fault f, its body watched.
type hostileRoundTripper struct {
	f     fakeflink.RESTFault
	watch *answerWatch
}

func (h hostileRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	status, body := rest.HostileAnswer(h.f)
	resp := &http.Response{StatusCode: status, Body: io.NopCloser(body), Header: http.Header{}, Request: req}
	h.watch.watch(req, resp)
	return resp, nil
}

// TestAnswerWatchFires (T1): the operator's client reads a huge or endless answer no further
// than its limit, and the watch stays quiet; a client that reads answers whole (the operator
// before its limits, with a 16 MiB cap for every endpoint) is caught.
func TestAnswerWatchFires(t *testing.T) {
	for _, f := range []fakeflink.RESTFault{fakeflink.RESTHugeAnswers, fakeflink.RESTEndlessAnswers, fakeflink.RESTMalformedAnswers, fakeflink.RESTHugeErrors} {
		watch := &answerWatch{}
		c := flink.NewClient("http://a-rest.ns:8081", flink.WithTransport(hostileRoundTripper{f: f, watch: watch}))
		if _, err := c.ListJobs(t.Context()); err == nil {
			t.Errorf("fault %d: ListJobs read a hostile answer without an error", f)
		}
		if v := watch.violations(); len(v) > 0 {
			t.Errorf("fault %d: the operator's client: %v", f, v)
		}
	}
	watch := &answerWatch{}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://a-rest.ns:8081/jobs/overview", nil)
	resp, _ := hostileRoundTripper{f: fakeflink.RESTHugeAnswers, watch: watch}.RoundTrip(req)
	_, _ = io.ReadAll(io.LimitReader(resp.Body, 16<<20)) // the broken variant
	if v := watch.violations(); len(v) != 1 || !strings.Contains(v[0], "invariant T1") {
		t.Errorf("a 16 MiB read of the jobs overview: violations %v, want one of T1", v)
	}
}

func TestStatusErrorProblem(t *testing.T) {
	got := map[string]bool{}
	for name, e := range map[string]string{
		"empty":            "",
		"short":            "the JobManager REST API does not answer",
		"multi-line":       "failed:\n\tat x",
		"too long":         strings.Repeat("e", 3000),
		"escape sequences": "\x1b[31mred",
		"invalid UTF-8":    "a\xffb",
	} {
		got[name] = statusErrorProblem(e) != ""
	}
	want := map[string]bool{"empty": false, "short": false, "multi-line": false, "too long": true, "escape sequences": true, "invalid UTF-8": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestConfigMapsCachedBoundedFires (T3): a ConfigMap a tenant's code wrote with Flink's labels
// passes with the operator's cache transforms, and is caught with a cache that keeps data and
// annotations (the operator before ConfigMaps were held as metadata).
func TestConfigMapsCachedBoundedFires(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "flood-1", Namespace: w.Namespace,
			Labels:      map[string]string{act.LabelType: act.TypeNative, act.LabelApp: "flood-1"},
			Annotations: map[string]string{"control-plane.alpha.kubernetes.io/leader": strings.Repeat("l", 10<<10)},
		},
		Data: map[string]string{"k": strings.Repeat("d", 100<<10)},
	}
	if err := w.Client.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	if v := configMapsCachedBounded(w, controller.SlimForCache); len(v) > 0 {
		t.Errorf("with the operator's cache: %v", v)
	}
	keepsAll := func(client.Object) {}
	if v := configMapsCachedBounded(w, keepsAll); len(v) != 1 || !strings.Contains(v[0], "invariant T3") {
		t.Errorf("with a cache that keeps everything: violations %v, want one of T3", v)
	}
}

// TestHostileJobManagerKeepsBounds: a running deployment whose JobManager answers every call
// as hostile code could for two minutes (20 MiB, endless, malformed, 85 KiB escape-sequence
// errors) keeps every invariant (T1: no answer read past its limit; T2: status.error bounded
// and clean), reports the JobManager unreachable in status.error, and runs without an error
// once the answers are Flink's again.
func TestHostileJobManagerKeepsBounds(t *testing.T) {
	for name, answer := range chaos.HostileAnswers {
		t.Run(name, func(t *testing.T) {
			w, c := checkedWorld(t, 7)
			if err := w.Apply(fixtures.StatefulDeployment("", "job", flinkv1beta1.UpgradeModeSavepoint)); err != nil {
				t.Fatal(err)
			}
			if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
				t.Fatalf("violations on a plain deploy: %v", v)
			}
			if err := w.apply(chaos.HostileJobManager{Answer: answer, For: 2 * time.Minute}, "job"); err != nil {
				t.Fatal(err)
			}
			reported := false
			if err := c.StepUntil(w.Now().Add(2*time.Minute), func() bool {
				d, err := w.Get("job")
				reported = reported || (err == nil && strings.Contains(d.Status.Error, "does not answer"))
				return false
			}, "job"); err != nil {
				t.Fatal(err)
			}
			if !reported {
				t.Error("the hostile JobManager was never reported in status.error")
			}
			if err := c.StepUntil(w.Now().Add(5*time.Minute), func() bool {
				d, err := w.Get("job")
				return err == nil && d.Status.Error == "" && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
			}, "job"); err != nil {
				t.Fatal(err)
			}
			if d, _ := w.Get("job"); d.Status.Error != "" {
				t.Errorf("after the fault: status.error %q", d.Status.Error)
			}
		})
	}
}

// TestNotCachedViolation (T4): a reconcile error that is a read the cache refused (a typed
// read of ConfigMaps, which the cache holds as metadata) is a violation; any other is not.
func TestNotCachedViolation(t *testing.T) {
	refused := fmt.Errorf("observe: get x: %w", metadataOnly(&corev1.ConfigMapList{}))
	if v := notCachedViolation("job", refused); !strings.Contains(v, "invariant T4") {
		t.Errorf("a read the cache refused: %q, want a T4 violation", v)
	}
	if v := notCachedViolation("job", errors.New("conflict")); v != "" {
		t.Errorf("another error: %q, want none", v)
	}
}
