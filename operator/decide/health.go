package decide

import (
	"encoding/json"
	"fmt"
)

// ClusterHealthInfoKey is the status.clusterInfo entry that keeps the health check's restart
// baseline, under the Apache operator's name (ClusterHealthEvaluator) and with its field names.
const ClusterHealthInfoKey = "ClusterHealthInfo"

// maxHealthInfo bounds the entry read back (it is the operator's own, but status is data).
const maxHealthInfo = 1024

// healthInfo is the restart baseline: the job's restart count when it was taken, and when.
type healthInfo struct {
	TimeStamp                      int64 `json:"timeStamp"`
	NumRestarts                    int64 `json:"numRestarts"`
	NumRestartsEvaluationTimeStamp int64 `json:"numRestartsEvaluationTimeStamp"`
}

// restartsInWindow is how many times the job restarted within the health check's window, from
// its restart count (Flink's numRestarts) against the baseline kept in status.clusterInfo, as
// Apache's ClusterHealthEvaluator counts them: the increase since the baseline, scaled down to
// the window when the baseline is older. A first count, or one lower than the baseline (a new
// job), takes a baseline and counts nothing. A baseline older than the window is taken again
// when the count moved; while it did not, the old one is kept, so that a job restarting
// nowhere writes no status (Apache takes it again every window): the first count after a quiet
// spell is scaled down by its age, the next ones are not.
func (s *step) restartsInWindow(observed int64) int64 {
	now, window := s.in.Now.UnixMilli(), s.in.Options.HealthRestartsWindow.Milliseconds()
	base, ok := s.healthBaseline()
	if !ok || observed < base.NumRestarts || base.NumRestartsEvaluationTimeStamp > now {
		s.setHealthBaseline(healthInfo{TimeStamp: now, NumRestarts: observed, NumRestartsEvaluationTimeStamp: now})
		return 0
	}
	mult := 1.0
	if age := now - base.NumRestartsEvaluationTimeStamp; age > window && window > 0 {
		mult = float64(window) / float64(age)
	}
	n := int64(float64(observed-base.NumRestarts) * mult)
	if base.NumRestartsEvaluationTimeStamp < now-window && observed != base.NumRestarts {
		s.setHealthBaseline(healthInfo{TimeStamp: now, NumRestarts: observed, NumRestartsEvaluationTimeStamp: now})
	}
	return n
}

func (s *step) healthBaseline() (healthInfo, bool) {
	raw := s.st.ClusterInfo[ClusterHealthInfoKey]
	var h healthInfo
	if raw == "" || len(raw) > maxHealthInfo || json.Unmarshal([]byte(raw), &h) != nil || h.NumRestarts < 0 {
		return healthInfo{}, false
	}
	return h, true
}

func (s *step) setHealthBaseline(h healthInfo) {
	data, err := json.Marshal(h)
	if err != nil {
		panic(fmt.Sprintf("health info: %v", err)) // three integers always marshal
	}
	if s.st.ClusterInfo == nil {
		s.st.ClusterInfo = map[string]string{}
	}
	s.st.ClusterInfo[ClusterHealthInfoKey] = string(data)
}
