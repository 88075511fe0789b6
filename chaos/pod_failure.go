package chaos

import (
	"cmp"
	"time"
)

// JobManagerPodFailure makes the JobManager's pod fail with Reason (CrashLoopBackOff,
// ImagePullBackOff) for a while: the JobManager process is gone, the Deployment unavailable;
// when the window ends a new JobManager starts and recovers from HA metadata.
type JobManagerPodFailure struct {
	Reason string
	For    time.Duration
}

// Name implements Fault.
func (f JobManagerPodFailure) Name() string { return "jm-pod-" + f.Reason }

// Apply implements Fault.
func (f JobManagerPodFailure) Apply(t Target, r string) error {
	t.BreakJobManagerPod(r, f.Reason, f.For)
	return nil
}

// Tune sets how long the pod fails from a script's for= (Params.For; zero keeps the default).
func (f JobManagerPodFailure) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}

// Effects says that the JobManager restarts and the job recovers from HA.
func (JobManagerPodFailure) Effects() Effect { return RestartsJobManager }
