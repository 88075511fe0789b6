package chaos

import (
	"github.com/flinkop/flinkop/fakeflink"
)

// JobManagerCrash kills the JobManager process: jobs and in-flight operations are lost; a new
// JobManager starts (the pod restarts) and recovers from HA metadata when it has some.
type JobManagerCrash struct{}

// Name implements Fault.
func (JobManagerCrash) Name() string { return "jm-crash" }

// Apply implements Fault.
func (JobManagerCrash) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		c.CrashJobManager()
		_ = c.StartJobManager()
	})
	return nil
}
