package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// SessionJobDefaulter is the mutating webhook of FlinkSessionJobs, the Apache operator's
// default mutation: it labels a session job flinkv1beta1.LabelTargetSession=<its
// spec.deploymentName>. A name that is not a valid label value (names may be 253 characters,
// label values 63) is left unlabelled: the API server would refuse the whole request for the
// label, and the job is valid without it. It changes nothing else, so a mutation never makes
// a spec the operator would read differently.
type SessionJobDefaulter struct{}

// Default sets the target.session label.
func (SessionJobDefaulter) Default(_ context.Context, j *flinkv1beta1.FlinkSessionJob) error {
	name := j.Spec.DeploymentName
	if name == "" || j.Labels[flinkv1beta1.LabelTargetSession] == name || len(validation.IsValidLabelValue(name)) > 0 {
		return nil
	}
	if j.Labels == nil {
		j.Labels = map[string]string{}
	}
	j.Labels[flinkv1beta1.LabelTargetSession] = name
	return nil
}
