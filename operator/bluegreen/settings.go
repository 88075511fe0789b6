package bluegreen

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// Defaults of the kubernetes.operator.bluegreen.* settings (the Apache operator's).
const (
	DefaultAbortGracePeriod   = 10 * time.Minute
	DefaultRescheduleInterval = 15 * time.Second
	DefaultDeploymentDeletion = time.Duration(0)
	minRescheduleInterval     = time.Second
	minAbortGracePeriod       = 10 * time.Second
	maxSetting                = 24 * time.Hour
)

// Settings are a resource's kubernetes.operator.bluegreen.* settings.
type Settings struct {
	// AbortGracePeriod is how long a new child may take to become ready.
	AbortGracePeriod time.Duration
	// RescheduleInterval is how often a switch in progress is looked at.
	RescheduleInterval time.Duration
	// DeletionDelay is how long the old child keeps running once the new one is ready.
	DeletionDelay time.Duration
}

// ParseSettings reads spec.configuration (Flink durations; a bare number is milliseconds).
// Every value is bounded: 0 to 24 h, the interval at least 1 s (a smaller one would poll
// the API server and Flink in a loop), the grace period at least 10 s (a smaller one would
// give up every switch at its first look).
func ParseSettings(conf map[string]string) (Settings, error) {
	s := Settings{AbortGracePeriod: DefaultAbortGracePeriod, RescheduleInterval: DefaultRescheduleInterval, DeletionDelay: DefaultDeploymentDeletion}
	for _, set := range []struct {
		key string
		dst *time.Duration
	}{
		{flinkv1beta1.BlueGreenAbortGracePeriod, &s.AbortGracePeriod},
		{flinkv1beta1.BlueGreenRescheduleInterval, &s.RescheduleInterval},
		{flinkv1beta1.BlueGreenDeletionDelay, &s.DeletionDelay},
	} {
		key, dst := set.key, set.dst
		v, ok := conf[key]
		if !ok {
			continue
		}
		d, err := config.ParseDuration(v)
		if err != nil {
			return s, fmt.Errorf("spec.configuration %s: %w", key, err)
		}
		if d > maxSetting {
			return s, fmt.Errorf("spec.configuration %s: %q is longer than %s", key, v, maxSetting)
		}
		*dst = d
	}
	s.RescheduleInterval = max(s.RescheduleInterval, minRescheduleInterval)
	s.AbortGracePeriod = max(s.AbortGracePeriod, minAbortGracePeriod)
	return s, nil
}
