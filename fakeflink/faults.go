package fakeflink

import "time"

// RESTFault is how the REST endpoint misbehaves during an outage.
type RESTFault int

// The REST faults.
const (
	// RESTHealthy answers normally.
	RESTHealthy RESTFault = iota
	// RESTUnavailable answers 503, as during a leader election.
	RESTUnavailable
	// RESTTimeout never answers; the client's timeout ends the request.
	RESTTimeout
	// RESTRefuse closes connections without answering.
	RESTRefuse
)

type faults struct {
	savepointFailures int
	savepointsHang    bool
	checkpointsFail   bool
	rest              RESTFault
	restUntil         time.Time
}

// FailNextSavepoints makes the next n savepoints (including stop-with-savepoint) fail.
func (c *Cluster) FailNextSavepoints(n int) { c.faults.savepointFailures = n }

// HangSavepoints makes savepoints stay IN_PROGRESS while on is true.
func (c *Cluster) HangSavepoints(on bool) { c.faults.savepointsHang = on }

// FailCheckpoints makes periodic and triggered checkpoints fail while on is true.
func (c *Cluster) FailCheckpoints(on bool) { c.faults.checkpointsFail = on }

// SetRESTFault makes the REST endpoint misbehave until the given time.
func (c *Cluster) SetRESTFault(f RESTFault, until time.Time) {
	c.faults.rest, c.faults.restUntil = f, until
}

// RESTState is how the REST endpoint behaves now: RESTRefuse while the JobManager is down, the
// injected fault while it lasts, RESTHealthy otherwise.
func (c *Cluster) RESTState() RESTFault {
	if !c.up {
		return RESTRefuse
	}
	if c.faults.rest != RESTHealthy && c.Now().Before(c.faults.restUntil) {
		return c.faults.rest
	}
	return RESTHealthy
}
