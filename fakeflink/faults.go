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
	// The JobManager runs the tenant's code, which can answer anything: these answer every
	// call with what a hostile JobManager could send (rest.HostileAnswer).

	// RESTHugeAnswers answers 200 with a JSON object of 20 MiB.
	RESTHugeAnswers
	// RESTEndlessAnswers answers 200 with a JSON array that never ends.
	RESTEndlessAnswers
	// RESTMalformedAnswers answers 200 with a body that is not JSON.
	RESTMalformedAnswers
	// RESTHugeErrors answers 500 with Flink's error body whose message is one 85 KiB line of
	// control characters and escape sequences.
	RESTHugeErrors
)

// Hostile reports whether f is one of the answers of a hostile JobManager.
func (f RESTFault) Hostile() bool { return f >= RESTHugeAnswers && f <= RESTHugeErrors }

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
