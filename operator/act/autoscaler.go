package act

import (
	corev1 "k8s.io/api/core/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// ComponentAutoscaler is the component label of the autoscaler's state ConfigMap, as the Apache
// operator labels its own.
const ComponentAutoscaler = "autoscaler"

// RenderAutoscalerState is the autoscaler's state ConfigMap of d (autoscaler-<name>), controlled
// by d, labelled as the Apache operator labels it and with Flink's type label, which the
// manager's cache selects ConfigMaps by.
func RenderAutoscalerState(d *flinkv1beta1.FlinkDeployment, data map[string]string) *corev1.ConfigMap {
	meta := objectMeta(d, AutoscalerConfigMapName(d.Name), ComponentAutoscaler)
	meta.Labels[LabelType] = TypeNative
	return &corev1.ConfigMap{ObjectMeta: meta, Data: data}
}
