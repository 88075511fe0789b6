package chaos

import (
	"github.com/flinkop/flinkop/fakeflink"
)

// JobFailure makes the job throw; it restarts per its restart strategy.
type JobFailure struct{}

// Name implements Fault.
func (JobFailure) Name() string { return "job-failure" }

// Apply implements Fault.
func (JobFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		for _, j := range c.Jobs() {
			if !j.Status.IsTerminal() {
				_ = c.FailJob(j.ID, "injected failure")
			}
		}
	})
	return nil
}
