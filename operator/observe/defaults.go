package observe

import flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"

// FlinkDefaults gives the operator's Flink defaults for a namespace and Flink version
// (config.Live.FlinkDefaults); a nil one gives none.
type FlinkDefaults func(namespace, flinkVersion string) map[string]string

// Apply sets d's Spec.Defaults, which its Spec.Conf reads: every FlinkDeployment the operator
// reads is given them before anything reads its configuration.
func (f FlinkDefaults) Apply(d *flinkv1beta1.FlinkDeployment) {
	if d != nil {
		f.ApplySpec(d.Namespace, &d.Spec)
	}
}

// ApplySpec sets the Defaults of spec, a FlinkDeployment spec in namespace (a blue/green
// template's, say).
func (f FlinkDefaults) ApplySpec(namespace string, spec *flinkv1beta1.FlinkDeploymentSpec) {
	if f != nil && spec != nil {
		spec.Defaults = f(namespace, string(spec.FlinkVersion))
	}
}
