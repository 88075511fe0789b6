package scenarios

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// A sweep sets rapid's global flags for its runs (one check, its seeds) and puts them back:
// the properties that run after it in this package (in parallel, once every sequential test
// is done) check as many runs of the seed make test gives them.
func TestSweepLeavesTheRapidFlags(t *testing.T) {
	names := []string{"rapid.checks", "rapid.steps", "rapid.seed", "rapid.nofailfile"}
	before := map[string]string{}
	for _, n := range names {
		before[n] = flag.Lookup(n).Value.String()
	}
	if _, err := Sweep(SweepOptions{Seeds: 1, BaseSeed: 4, Steps: 2, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if got := flag.Lookup(n).Value.String(); got != before[n] {
			t.Errorf("-%s is %s after a sweep, was %s", n, got, before[n])
		}
	}
}

// BenchmarkSweep measures whole fault-injected runs (DefaultSteps actions on average, then the
// settle phase) on the fake backend, on every CPU; it reports runs per minute.
func BenchmarkSweep(b *testing.B) {
	sum, err := Sweep(SweepOptions{Seeds: b.N, BaseSeed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if len(sum.Violations) > 0 {
		b.Fatalf("%d violations:\n%s", len(sum.Violations), sum)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Minutes(), "runs/min")
	b.ReportMetric(float64(sum.Actions)/float64(b.N), "actions/run")
	b.ReportMetric(float64(sum.Reconciles)/float64(b.N), "reconciles/run")
}

// brokenBackend is the fake backend under an operator that writes a status error it never
// warns about (invariant 3): a deliberately broken operator.
type brokenBackend struct {
	harness.Backend
	c client.WithWatch
}

func (b brokenBackend) Client() client.WithWatch { return b.c }

func newBrokenBackend() (harness.Backend, error) {
	b, err := harness.FakeBackend()
	if err != nil {
		return nil, err
	}
	c := interceptor.NewClient(b.Client(), interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if d, ok := obj.(*flinkv1beta1.FlinkDeployment); ok && d.Status.Error == "" {
				d.Status.Error = "a broken operator's silent error"
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	return brokenBackend{Backend: b, c: c}, nil
}

// TestSweepViolationReplaysIntoTimeline: a sweep of a deliberately broken operator reports
// the violation of every kind of run (seeds 1–5: fleet, session job, hostile input,
// FlinkDeployment, blue/green) with the command that replays it, and the replay's timeline
// shows it.
func TestSweepViolationReplaysIntoTimeline(t *testing.T) {
	const steps = 5
	sum, err := Sweep(SweepOptions{Seeds: 5, BaseSeed: 1, Steps: steps, Workers: 1, NewBackend: newBrokenBackend})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Violations) != 5 {
		t.Fatalf("%d violations, want 5:\n%s", len(sum.Violations), sum)
	}
	for _, v := range sum.Violations {
		if want := fmt.Sprintf("flinksim replay --seed %d --steps %d", v.Seed, steps); !strings.Contains(v.Replay, want) || !strings.Contains(sum.String(), want) {
			t.Errorf("the sweep's replay command %q does not say %q", v.Replay, want)
		}
		st, again, err := replayOn(v.Seed, steps, false, newBrokenBackend)
		if err != nil {
			t.Fatal(err)
		}
		if again == nil || st.World == nil {
			t.Fatalf("seed %d: the replay did not violate the invariant again, or kept no world (%v)", v.Seed, again)
		}
		var page bytes.Buffer
		if err := st.World.Trace.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page.String(), `class="annotation" data-kind="violation"`) || !strings.Contains(page.String(), "has no Warning event (invariant 3)") {
			t.Errorf("seed %d: the replay's timeline does not show the violation", v.Seed)
		}
	}
}
