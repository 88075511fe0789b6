package chaos

import (
	"maps"
	"slices"

	"github.com/flinkop/flinkop/fakeflink"
)

// TaskManagerLoss takes one TaskManager away; running jobs fail over.
type TaskManagerLoss struct{}

// Name implements Fault.
func (TaskManagerLoss) Name() string { return "tm-loss" }

// Apply implements Fault.
func (TaskManagerLoss) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		if ids := slices.Sorted(maps.Keys(c.TaskManagers())); len(ids) > 0 {
			c.RemoveTaskManager(ids[0])
		}
	})
	return nil
}
