package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestWriteFence: after a reconcile wrote its resource, the versions its writes replaced are
// stale until the cache shows another one (which lifts the fence), or FenceTimeout passed; a
// reconcile that wrote nothing fences nothing.
func TestWriteFence(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "ns", Name: "a"}
	for name, tc := range map[string]struct {
		writes []string // the versions after each write of one reconcile that read "1"
		reads  []string // the cache's versions at the next reconciles, in order
		after  time.Duration
		want   []bool // stale, per read
	}{
		"no write":                        {reads: []string{"1"}, want: []bool{false}},
		"cache behind one write":          {writes: []string{"2"}, reads: []string{"1", "1", "2", "1"}, want: []bool{true, true, false, false}},
		"cache at an intermediate write":  {writes: []string{"2", "3"}, reads: []string{"2", "1", "3"}, want: []bool{true, true, false}},
		"a later write by someone else":   {writes: []string{"2"}, reads: []string{"7", "1"}, want: []bool{false, false}},
		"a fence older than its timeout":  {writes: []string{"2"}, reads: []string{"1"}, after: FenceTimeout, want: []bool{false}},
		"a fence just short of its limit": {writes: []string{"2"}, reads: []string{"1"}, after: FenceTimeout - time.Second, want: []bool{true}},
	} {
		t.Run(name, func(t *testing.T) {
			var f writeFence
			d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}}
			w := f.track(d)
			for _, rv := range tc.writes {
				d.ResourceVersion = rv
				w.note()
			}
			w.done(t0)
			var got []bool
			for _, rv := range tc.reads {
				got = append(got, f.stale(key, rv, t0.Add(tc.after)))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("stale per read (-want +got):\n%s", diff)
			}
		})
	}
	var f writeFence
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}}
	w := f.track(d)
	d.ResourceVersion = "2"
	w.done(t0)
	f.forget(key)
	if f.stale(key, "1", t0) || len(f.entries) != 0 {
		t.Errorf("a forgotten resource is still fenced: %v", f.entries)
	}
}
