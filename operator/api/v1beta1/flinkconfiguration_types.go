package v1beta1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// FlinkConfiguration is Flink's configuration as the user wrote it: flat dotted keys
// ("state.savepoints.dir": "s3://…"), nested YAML objects (state: {savepoints.dir: …}), or a
// mix, with string, number or boolean values. Flatten turns it into the dotted key/value form
// Flink reads. Values are stored verbatim, so nothing the user wrote is lost.
//
// +kubebuilder:validation:Type=object
// +kubebuilder:validation:Schemaless
// +kubebuilder:pruning:PreserveUnknownFields
type FlinkConfiguration map[string]apiextensionsv1.JSON
