package chaos

import (
	"github.com/flinkop/flinkop/fakeflink"
)

// JobManagerCrash kills the running JobManager process: jobs and in-flight operations are lost;
// a new JobManager starts (the container restarts) and recovers from HA metadata when it has
// some. A JobManager whose pod has not started yet is left alone.
type JobManagerCrash struct{}

// Name implements Fault.
func (JobManagerCrash) Name() string { return "jm-crash" }

// Apply implements Fault.
func (JobManagerCrash) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		if !c.Up() {
			return // no JobManager process runs (its pod has not started): nothing to crash
		}
		c.CrashJobManager()
		_ = c.StartJobManager()
	})
	return nil
}

// Effects says that the JobManager restarts and the job recovers from HA.
func (JobManagerCrash) Effects() Effect { return RestartsJobManager }
