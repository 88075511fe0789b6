package harness

import (
	"fmt"
	"maps"
	"slices"

	"github.com/flinkop/flinkop/fakeflink"
)

// oneJobManager: never two live JobManagers for one HA cluster id (invariant 2). It looks at
// the whole world, so Check runs it once, not once per resource.
func (c *Checker) oneJobManager() []string {
	live := c.w.Sim.LiveJobManagers()
	var out []string
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if n := live[id]; n > 1 {
			out = append(out, fmt.Sprintf("%d JobManagers run for HA cluster id %s (invariant 2)", n, id))
		}
	}
	return out
}

// oneLiveJob: never two live jobs on the cluster of resource name (invariant 2).
func oneLiveJob(name string, cl *fakeflink.Cluster) []string {
	live := 0
	for _, j := range cl.Jobs() {
		if !j.Status.IsTerminal() {
			live++
		}
	}
	if live > 1 {
		return []string{fmt.Sprintf("%s: %d jobs run at once (invariant 2)", name, live)}
	}
	return nil
}
