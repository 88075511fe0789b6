package v1beta1

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// BlueGreenColor names a child of a blue/green deployment.
type BlueGreenColor string

// The two children.
const (
	Blue  BlueGreenColor = "BLUE"
	Green BlueGreenColor = "GREEN"
)

// Other is the other colour.
func (c BlueGreenColor) Other() BlueGreenColor {
	if c == Blue {
		return Green
	}
	return Blue
}

// ChildName is the name of the child of colour c: <name>-blue or <name>-green.
func (c BlueGreenColor) ChildName(name string) string {
	return name + "-" + strings.ToLower(string(c))
}

// BlueGreenTypeLabel marks a child FlinkDeployment with its colour, BLUE or GREEN (the Apache
// operator's label).
const BlueGreenTypeLabel = "flink/blue-green-deployment-type"

// The kubernetes.operator.bluegreen.* settings of spec.configuration (the Apache keys).
const (
	// BlueGreenAbortGracePeriod is how long a child being deployed may take to become ready
	// before the switch is given up (default 10 min).
	BlueGreenAbortGracePeriod = "kubernetes.operator.bluegreen.abort.grace-period"
	// BlueGreenRescheduleInterval is how often a switch in progress is looked at (default 15 s).
	BlueGreenRescheduleInterval = "kubernetes.operator.bluegreen.reconciliation.reschedule-interval"
	// BlueGreenDeletionDelay is how long the old child keeps running after the new one is
	// ready (default 0).
	BlueGreenDeletionDelay = "kubernetes.operator.bluegreen.deployment-deletion.delay"
)

// BlueGreenKeys are the keys spec.configuration accepts.
var BlueGreenKeys = []string{BlueGreenAbortGracePeriod, BlueGreenRescheduleInterval, BlueGreenDeletionDelay}

// MaxBlueGreenNameLength is the longest blue/green deployment name: its children's names
// (<name>-green) must be valid FlinkDeployment names.
const MaxBlueGreenNameLength = MaxNameLength - len("-green")

// Validate checks the rules the CRD schema cannot express: a name whose children's names are
// valid, known configuration keys, and a template that is a valid application deployment
// (its errors named below spec.template.spec). The durations are read by the controller.
func (b *FlinkBlueGreenDeployment) Validate() field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if len(b.Name) > MaxBlueGreenNameLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), b.Name, MaxBlueGreenNameLength))
	}
	for _, k := range slices.Sorted(maps.Keys(b.Spec.Configuration)) {
		if !slices.Contains(BlueGreenKeys, k) {
			errs = append(errs, field.NotSupported(spec.Child("configuration").Key(k), k, BlueGreenKeys))
		}
	}
	errs = append(errs, validateSize(spec, &b.Spec)...) // status keeps a copy (lastReconciledSpec)
	if in := b.Spec.Ingress; in != nil {
		errs = append(errs, validateIngressTemplate(spec.Child("ingress", "template"), in.Template, b.Name, b.Namespace)...)
	}
	t := b.Spec.Template.Spec
	switch {
	case t == nil:
		return append(errs, field.Required(spec.Child("template", "spec"), "the FlinkDeployment spec of the blue and green children"))
	case t.Job == nil:
		return append(errs, field.Required(spec.Child("template", "spec", "job"), "a blue/green deployment runs an application job"))
	}
	child := &FlinkDeployment{Spec: BlueGreenChildSpec(*t, Green)}
	child.Name, child.Namespace = Green.ChildName(b.Name), b.Namespace
	for _, e := range child.Validate() {
		rest, ok := strings.CutPrefix(e.Field, "spec")
		switch {
		case ok:
			e.Field = "spec.template.spec" + rest
		case e.Field == "metadata.name":
			e.Detail = fmt.Sprintf("the child %s: %s", child.Name, e.Detail)
		}
		errs = append(errs, e)
	}
	return errs
}

// BlueGreenChildSpec is the spec of the child of colour c, made from a copy of the template:
//   - its Ingress template is prefixed with the colour (blue-, green-), so the two children's
//     hosts and paths do not meet (the Apache operator's rule);
//   - last-state without high availability runs as savepoint. A switch takes a savepoint
//     whatever the mode (the Apache operator's rule), but the child's own suspend or restart
//     needs HA metadata for last-state in Flinkop, and without it a savepoint is what the
//     Apache operator's last-state takes too.
func BlueGreenChildSpec(t FlinkDeploymentSpec, c BlueGreenColor) FlinkDeploymentSpec {
	spec := *t.DeepCopy()
	if spec.Ingress != nil && spec.Ingress.Template != "" {
		spec.Ingress.Template = strings.ToLower(string(c)) + "-" + spec.Ingress.Template
	}
	if j := spec.Job; j != nil && j.UpgradeMode == UpgradeModeLastState {
		if conf, err := spec.FlinkConfiguration.Flatten(); err == nil && !HAEnabled(conf) {
			j.UpgradeMode = UpgradeModeSavepoint
		}
	}
	return spec
}
