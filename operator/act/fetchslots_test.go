package act

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/operator/flink"
)

// errJar is a jar fetch that failed.
var errJar = fmt.Errorf("%w: fetch jar https://jars.example.com/x.jar: HTTP 500 Internal Server Error", flink.ErrJarFetch)

// fetchJob is job ns/name of generation 1, named "ns/name".
func fetchJob(name string) FetchJob {
	ns, n, _ := strings.Cut(name, "/")
	return FetchJob{Key: types.NamespacedName{Namespace: ns, Name: n}, Generation: 1}
}

// wokenSlots are slots whose wake-ups are recorded.
func wokenSlots(total, perNamespace int) (*FetchSlots, *clocktesting.FakeClock, *[]string) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	s := NewFetchSlots(total, perNamespace, clk)
	woken := &[]string{}
	s.OnFree(func(owner types.NamespacedName) { *woken = append(*woken, owner.String()) })
	return s, clk, woken
}

// Jobs refused a slot are woken in turns between namespaces, not in the order they asked: a
// namespace with many jobs waiting gets no more turns than one with a single job, and a
// namespace at its limit lets the others take the free slots. Jobs that find a slot free
// take it at once.
func TestFetchSlotsTakeTurnsBetweenNamespaces(t *testing.T) {
	cases := map[string]struct {
		total, perNamespace int
		// asks are the jobs that ask for a slot, in order, each once.
		asks []string
		// wantStarts is the order the fetches start in when the oldest fetch under way ends,
		// one after another, and each woken job comes back for its slot.
		wantStarts []string
	}{
		"one namespace's many jobs and another's one alternate": {
			total: 1, perNamespace: 1,
			asks:       []string{"hold/x", "big/1", "big/2", "big/3", "small/1"},
			wantStarts: []string{"hold/x", "big/1", "small/1", "big/2", "big/3"},
		},
		"a namespace at its limit waits while another takes the free slot": {
			total: 2, perNamespace: 1,
			asks:       []string{"a/1", "a/2", "a/3", "b/1"},
			wantStarts: []string{"a/1", "b/1", "a/2", "a/3"},
		},
		"the namespace served least recently goes first": {
			total: 3, perNamespace: 2,
			asks:       []string{"a/1", "a/2", "b/1", "a/3", "a/4", "b/2", "c/1"},
			wantStarts: []string{"a/1", "a/2", "b/1", "c/1", "a/3", "b/2", "a/4"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, _, woken := wokenSlots(tc.total, tc.perNamespace)
			var starts []string
			var running []*Fetch
			start := func(name string) bool {
				f, err := s.take(t.Context(), fetchJob(name))
				s.Returned(fetchJob(name).Key)
				if err != nil {
					return false
				}
				starts, running = append(starts, name), append(running, f)
				return true
			}
			for _, name := range tc.asks {
				start(name)
			}
			for len(running) > 0 {
				f := running[0]
				running = running[1:]
				done := len(*woken)
				if err := f.Done(nil); err != nil {
					t.Fatal(err)
				}
				for _, next := range (*woken)[done:] {
					if !start(next) {
						t.Fatalf("%s was woken for a slot and refused it", next)
					}
				}
			}
			if diff := cmp.Diff(tc.wantStarts, starts); diff != "" {
				t.Errorf("fetches started (-want +got):\n%s", diff)
			}
			if s.Busy() != 0 {
				t.Errorf("%d slots still taken", s.Busy())
			}
		})
	}
}

// A fetch under way is stopped when its job is deleted, is being deleted or its spec changes:
// its context is cancelled and its slot goes at once to the job waiting for one; the fetch
// then ends as cancelled, with no back-off. A status write (same generation) stops nothing.
func TestFetchSlotsCancel(t *testing.T) {
	a := fetchJob("team-a/slow")
	cases := map[string]struct {
		// stop is what the job's watch saw.
		stop          func(s *FetchSlots)
		wantCancelled bool
	}{
		"the job is deleted":           {stop: func(s *FetchSlots) { s.Forget(a.Key) }, wantCancelled: true},
		"the job's deletion is asked":  {stop: func(s *FetchSlots) { s.Cancel(a.Key) }, wantCancelled: true},
		"the job's spec changed":       {stop: func(s *FetchSlots) { s.CancelOutdated(a.Key, 2) }, wantCancelled: true},
		"the job's status was written": {stop: func(s *FetchSlots) { s.CancelOutdated(a.Key, 1) }},
		"another job is deleted":       {stop: func(s *FetchSlots) { s.Forget(fetchJob("team-a/other").Key) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, _, woken := wokenSlots(1, 1)
			f, err := s.take(t.Context(), a)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.take(t.Context(), fetchJob("team-b/etl")); !errors.As(err, new(*RetryLaterError)) {
				t.Fatalf("a second job with one slot: %v, want *RetryLaterError", err)
			}
			s.Returned(fetchJob("team-b/etl").Key)
			tc.stop(s)
			wantWoken := []string{}
			if tc.wantCancelled {
				wantWoken = []string{"team-b/etl"}
			}
			if diff := cmp.Diff(wantWoken, append([]string{}, *woken...)); diff != "" {
				t.Errorf("woken as soon as the fetch was stopped (-want +got):\n%s", diff)
			}
			if cancelled := f.Context().Err() != nil; cancelled != tc.wantCancelled {
				t.Fatalf("fetch context cancelled = %v, want %v", cancelled, tc.wantCancelled)
			}
			if !tc.wantCancelled {
				return
			}
			if cause := context.Cause(f.Context()); !errors.Is(cause, ErrFetchCancelled) {
				t.Errorf("cancelled because %v, want ErrFetchCancelled", cause)
			}
			err = f.Done(fmt.Errorf("%w: %w", flink.ErrJarFetch, f.Context().Err()))
			if !errors.Is(err, ErrFetchCancelled) || errors.As(err, new(*FetchBackoffError)) {
				t.Errorf("Done = %v, want ErrFetchCancelled and no back-off", err)
			}
			if _, err := s.take(t.Context(), fetchJob("team-b/etl")); err != nil {
				t.Errorf("the woken job: %v, want the slot kept for it", err)
			}
		})
	}
}

// A slot kept for a woken job goes to the next in line when the job's reconcile ends without
// taking it, or when the job does not come back in time; not when it was woken while the
// reconcile it was refused in still ran.
func TestFetchSlotsPassTurnsOn(t *testing.T) {
	s, clk, woken := wokenSlots(1, 1)
	hold, _ := s.take(t.Context(), fetchJob("a/hold"))
	for _, name := range []string{"b/1", "c/1", "d/1"} {
		if _, err := s.take(t.Context(), fetchJob(name)); err == nil {
			t.Fatalf("%s took a slot", name)
		}
		if name != "d/1" {
			s.Returned(fetchJob(name).Key)
		}
	}
	if err := hold.Done(nil); err != nil { // b/1 is woken
		t.Fatal(err)
	}
	s.Returned(fetchJob("b/1").Key) // b/1 came back needing no fetch: c/1 is next
	clk.Step(promiseTimeout + time.Second)
	if _, err := s.take(t.Context(), fetchJob("e/1")); err == nil { // expires c/1's turn: d/1 is next
		t.Fatal("e/1 took a slot kept for another")
	}
	s.Returned(fetchJob("e/1").Key)
	s.Returned(fetchJob("d/1").Key) // the end of the reconcile d/1 was refused in: its turn stays
	if _, err := s.take(t.Context(), fetchJob("d/1")); err != nil {
		t.Errorf("d/1, woken while its refused reconcile ran: %v, want its slot", err)
	}
	if diff := cmp.Diff([]string{"b/1", "c/1", "d/1"}, *woken); diff != "" {
		t.Errorf("woken (-want +got):\n%s", diff)
	}
}

// A job whose jar cannot be fetched waits 10s, then twice as long after each failure in a
// row, at most 5 minutes; a fetch that succeeds, or a new spec, starts again. While it waits
// it takes no slot and gets the same error each time.
func TestFetchBackoff(t *testing.T) {
	type try struct {
		generation int64
		err        error
	}
	cases := map[string]struct {
		tries []try
		// wantDelays are the back-offs after each try (0: none).
		wantDelays []time.Duration
	}{
		"failures in a row double up to 5 minutes": {
			tries: []try{{1, errJar}, {1, errJar}, {1, errJar}, {1, errJar}, {1, errJar}, {1, errJar}, {1, errJar}},
			wantDelays: []time.Duration{
				10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
				160 * time.Second, 5 * time.Minute, 5 * time.Minute,
			},
		},
		"a fetch that succeeds starts again": {
			tries:      []try{{1, errJar}, {1, errJar}, {1, nil}, {1, errJar}},
			wantDelays: []time.Duration{10 * time.Second, 20 * time.Second, 0, 10 * time.Second},
		},
		"a new spec starts again": {
			tries:      []try{{1, errJar}, {1, errJar}, {2, errJar}},
			wantDelays: []time.Duration{10 * time.Second, 20 * time.Second, 10 * time.Second},
		},
		"the session cluster's upload failure is not the jar's": {
			tries:      []try{{1, errJar}, {1, errors.New("upload jar: HTTP 503")}, {1, errJar}},
			wantDelays: []time.Duration{10 * time.Second, 0, 20 * time.Second},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, clk, _ := wokenSlots(1, 1)
			var delays []time.Duration
			var last *FetchBackoffError
			for i, try := range tc.tries {
				job := FetchJob{Key: fetchJob("team-a/etl").Key, Generation: try.generation}
				if last != nil && try.generation == 1 {
					waitsOutBackoff(t, s, clk, job, last, i)
				}
				var delay time.Duration
				delay, last = tryFetch(t, s, clk, job, try.err, i)
				delays = append(delays, delay)
			}
			if diff := cmp.Diff(tc.wantDelays, delays); diff != "" {
				t.Errorf("back-offs (-want +got):\n%s", diff)
			}
		})
	}
}

// waitsOutBackoff checks that job, tried a second before last's back-off ends, gets last's
// error again and takes no slot, then lets the back-off end.
func waitsOutBackoff(t *testing.T, s *FetchSlots, clk *clocktesting.FakeClock, job FetchJob, last *FetchBackoffError, i int) {
	t.Helper()
	clk.Step(last.Delay - time.Second)
	_, err := s.take(t.Context(), job)
	var waiting *FetchBackoffError
	if !errors.As(err, &waiting) || !waiting.Waiting || waiting.Error() != last.Error() || s.Busy() != 0 {
		t.Fatalf("try %d a second early: %v (%d slots taken), want %q waiting", i, err, s.Busy(), last.Error())
	}
	clk.Step(time.Second)
}

// tryFetch takes a slot for job and ends the fetch with err; it returns the back-off that
// follows (0: none) and its error.
func tryFetch(t *testing.T, s *FetchSlots, clk *clocktesting.FakeClock, job FetchJob, err error, i int) (time.Duration, *FetchBackoffError) {
	t.Helper()
	f, terr := s.take(t.Context(), job)
	if terr != nil {
		t.Fatalf("try %d: %v", i, terr)
	}
	var last *FetchBackoffError
	if derr := f.Done(err); errors.As(derr, &last) {
		if !errors.Is(derr, flink.ErrJarFetch) || !strings.Contains(derr.Error(), "next try is at "+clk.Now().Add(last.Delay).UTC().Format(time.RFC3339)) {
			t.Errorf("try %d: %q, want the jar's error and the next try", i, derr)
		}
		return last.Delay, last
	}
	return 0, nil
}
