package controller_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/operator/controller"
)

// logged is what one step of a test writes: after passes, a reconcile error (or another line,
// when info) of the resource name.
type logged struct {
	passes time.Duration
	name   string
	info   bool
}

func TestBoundRepeatedErrorsWritesOneLinePerResourcePerInterval(t *testing.T) {
	tests := map[string]struct {
		steps []logged
		want  []string
	}{
		"a resource failing every second: one line a minute, counting the others": {
			steps: []logged{{0, "a", false}, {time.Second, "a", false}, {30 * time.Second, "a", false}, {29 * time.Second, "a", false}, {time.Second, "a", false}, {59 * time.Second, "a", false}},
			want:  []string{`error "name"="a"`, `error "name"="a" "suppressed"=2`, `error "name"="a" "suppressed"=1`},
		},
		"two resources are bounded apart": {
			steps: []logged{{0, "a", false}, {0, "b", false}, {time.Second, "a", false}, {time.Second, "b", false}},
			want:  []string{`error "name"="a"`, `error "name"="b"`},
		},
		"other lines are not bounded": {
			steps: []logged{{0, "a", true}, {0, "a", true}, {0, "a", false}, {0, "a", true}},
			want:  []string{`other "name"="a"`, `other "name"="a"`, `error "name"="a"`, `other "name"="a"`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			base := funcr.New(func(_, args string) { got = append(got, args) }, funcr.Options{})
			clk := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
			l := controller.BoundRepeatedErrors(base, clk, controller.RepeatedErrorLogInterval)
			for _, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.passes))
				// As controller-runtime makes a reconcile's logger, and names its values.
				r := l.WithValues("controller", "flinkdeployment").WithValues("namespace", "flink", "name", s.name).WithValues("reconcileID", fmt.Sprint(clk.Now().Unix()))
				logAs(r, s.info)
			}
			for i := range got {
				got[i] = fieldsOf(got[i])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines written (-want +got):\n%s", diff)
			}
		})
	}
}

func logAs(l logr.Logger, info bool) {
	if info {
		l.Info("jar fetch failed")
		return
	}
	l.Error(errors.New("the JobManager answered garbage"), "Reconciler error")
}

// fieldsOf is a line funcr wrote as its message and the values that name a resource and
// count the lines left out (its reconcile ID and error dropped).
func fieldsOf(line string) string {
	msg := "other"
	if strings.Contains(line, `"msg"="Reconciler error"`) {
		msg = "error"
	}
	keep := []string{msg}
	for _, f := range strings.Split(line, " ") {
		if strings.HasPrefix(f, `"name"=`) || strings.HasPrefix(f, `"suppressed"=`) {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}
