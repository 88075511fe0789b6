package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "flink.apache.org", Version: "v1beta1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&FlinkDeployment{}, &FlinkDeploymentList{},
		&FlinkSessionJob{}, &FlinkSessionJobList{},
		&FlinkStateSnapshot{}, &FlinkStateSnapshotList{},
		&FlinkBlueGreenDeployment{}, &FlinkBlueGreenDeploymentList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
