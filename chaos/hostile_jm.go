package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// HostileJobManager makes the JobManager answer every REST call as hostile tenant code could
// for a while (Answer: one of fakeflink's hostile REST faults, see fakeflink.RESTFault.Hostile):
// 20 MiB, endless, malformed, or errors of an 85 KiB line of escape sequences. The operator must keep
// its memory, status, Events and logs bounded, and go on for everyone else.
type HostileJobManager struct {
	Answer fakeflink.RESTFault
	For    time.Duration
}

// HostileAnswers are the hostile answers, by name.
var HostileAnswers = map[string]fakeflink.RESTFault{
	"huge":      fakeflink.RESTHugeAnswers,
	"endless":   fakeflink.RESTEndlessAnswers,
	"malformed": fakeflink.RESTMalformedAnswers,
	"errors":    fakeflink.RESTHugeErrors,
}

// Name implements Fault.
func (f HostileJobManager) Name() string {
	for name, a := range HostileAnswers {
		if a == f.Answer {
			return "jm-hostile-" + name
		}
	}
	return "jm-hostile"
}

// Apply implements Fault.
func (f HostileJobManager) Apply(t Target, r string) error {
	until := t.Now().Add(f.For)
	t.Cluster(r, func(c *fakeflink.Cluster) { c.SetRESTFault(f.Answer, until) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f HostileJobManager) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
