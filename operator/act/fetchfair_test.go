package act

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"
)

// hostileJob is a session job of a hostile tenant: its fetch fails after lasts (an endless
// jar: at the fetch timeout; a broken one: at once), and it asks again as soon as it may.
type hostileJob struct {
	job   FetchJob
	lasts time.Duration
	fetch *Fetch
	ends  time.Time
}

// hostileTenants are k namespaces of hostile jobs sharing slots with a well-behaved tenant.
type hostileTenants struct {
	t      *rapid.T
	s      *FetchSlots
	clk    *clocktesting.FakeClock
	jobs   []*hostileJob
	woken  []types.NamespacedName // every wake-up, in order
	back   int                    // the wake-ups hostile jobs have come back from
	served map[string]bool        // the hostile namespaces that fetched
}

// ask is a reconcile of hostile job j that wants its jar.
func (h *hostileTenants) ask(j *hostileJob) {
	if j.fetch != nil {
		return // its reconcile holds the fetch
	}
	if f, err := h.s.take(h.t.Context(), j.job); err == nil {
		j.fetch, j.ends = f, h.clk.Now().Add(j.lasts)
		h.served[j.job.Key.Namespace] = true
	}
	h.s.Returned(j.job.Key)
}

// pass lets d pass: the fetches whose time came fail.
func (h *hostileTenants) pass(d time.Duration) {
	h.clk.Step(d)
	for _, j := range h.jobs {
		if j.fetch != nil && !h.clk.Now().Before(j.ends) {
			_ = j.fetch.Done(errJar)
			j.fetch = nil
		}
	}
}

// comeBack lets the hostile jobs woken so far come back (some wake-ups are lost: the slot
// kept for them expires).
func (h *hostileTenants) comeBack(lost bool) {
	for ; h.back < len(h.woken); h.back++ {
		for _, j := range h.jobs {
			if j.job.Key == h.woken[h.back] && !lost {
				h.ask(j)
			}
		}
	}
}

// step is one thing the hostile tenants do.
func (h *hostileTenants) step() {
	switch rapid.IntRange(0, 3).Draw(h.t, "step") {
	case 0:
		h.ask(rapid.SampledFrom(h.jobs).Draw(h.t, "asks"))
	case 1:
		h.pass(rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, time.Minute}).Draw(h.t, "passes"))
	case 2:
		h.comeBack(rapid.IntRange(0, 9).Draw(h.t, "lost") == 0)
	case 3:
		for _, j := range h.jobs {
			h.ask(j)
		}
	}
}

// With k hostile namespaces whose fetches never finish or fail again and again, and every
// one of them already served once, a well-behaved tenant that asks for a slot gets the next
// one freed (the next turnover), and keeps it though hostile jobs ask before it comes back.
func TestFetchSlotsHostileTenantsLetAWellBehavedOneIn(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		total := rapid.IntRange(1, 4).Draw(rt, "total")
		clk := clocktesting.NewFakeClock(time.Unix(0, 0))
		h := &hostileTenants{t: rt, clk: clk, served: map[string]bool{}}
		h.s = NewFetchSlots(total, rapid.IntRange(1, total).Draw(rt, "perNamespace"), clk)
		h.s.OnFree(func(owner types.NamespacedName) { h.woken = append(h.woken, owner) })
		k := rapid.IntRange(1, 6).Draw(rt, "k")
		for i := range k {
			for n := range rapid.IntRange(1, 4).Draw(rt, "jobs") {
				lasts := rapid.SampledFrom([]time.Duration{0, 2 * time.Minute}).Draw(rt, "lasts")
				h.jobs = append(h.jobs, &hostileJob{job: fetchJob(fmt.Sprintf("hostile-%d/job-%d", i, n)), lasts: lasts})
			}
		}
		for range rapid.IntRange(0, 60).Draw(rt, "steps") {
			h.step()
		}
		for round := 0; len(h.served) < k; round++ { // fairness: every namespace gets its turn
			if round > 10*k {
				rt.Fatalf("after %d rounds, only %d of %d hostile namespaces fetched", round, len(h.served), k)
			}
			h.comeBack(false)
			for _, j := range h.jobs {
				h.ask(j)
			}
			h.pass(time.Minute)
		}

		tenant := fetchJob("tenant/etl")
		_, err := h.s.take(rt.Context(), tenant)
		h.s.Returned(tenant.Key)
		if err == nil {
			return // a slot was free
		}
		asked := len(h.woken)
		for i := 0; len(h.woken) == asked; i++ {
			if i > 1000 {
				rt.Fatal("no slot was freed in 1,000 steps")
			}
			h.step()
		}
		if next := h.woken[asked]; next != tenant.Key {
			rt.Fatalf("the first slot freed after the tenant asked went to %s", next)
		}
		for range rapid.IntRange(0, 10).Draw(rt, "asksBefore") {
			h.ask(rapid.SampledFrom(h.jobs).Draw(rt, "asks"))
		}
		h.comeBack(false)
		if _, err := h.s.take(rt.Context(), tenant); err != nil {
			rt.Fatalf("the woken tenant: %v, want the slot kept for it", err)
		}
	})
}
