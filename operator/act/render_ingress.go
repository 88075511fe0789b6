package act

import (
	"maps"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
	"github.com/flinkop/flinkop/operator/decide"
)

// AnnotationIngressHash on the rendered Ingress is decide.IngressHash of the spec it was
// rendered from, so the operator can tell an outdated Ingress without comparing objects.
const AnnotationIngressHash = "flinkop.io/ingress-hash"

// IngressName is the web UI Ingress's name.
func IngressName(name string) string { return name }

// RenderIngress renders the Ingress to the JobManager's REST Service (the web UI) from
// spec.ingress. The template, after {{name}} and {{namespace}} are replaced, is a host, a path
// (starting with /), or a host followed by a path: "{{name}}.{{namespace}}.flink.example.com",
// "/{{namespace}}/{{name}}(/|$)(.*)", "flink.example.com/{{name}}". Nothing here checks the
// spec: the decision asks for an Ingress only when the operator's Ingress policy allows the
// host and the annotations rendered here (config.IngressPolicy.Refusals).
func RenderIngress(d *flinkv1beta1.FlinkDeployment, spec *flinkv1beta1.IngressSpec) *networkingv1.Ingress {
	return renderIngress(objectMeta(d, IngressName(d.Name), ""), spec, RESTServiceName(d.Name), decide.IngressHash(spec))
}

// RenderBlueGreenIngress renders a blue/green deployment's Ingress, named like it and
// controlled by it, to the REST Service of its child of colour c; {{name}} and {{namespace}}
// in the template are the resource's (Apache's rule).
func RenderBlueGreenIngress(bg *flinkv1beta1.FlinkBlueGreenDeployment, c flinkv1beta1.BlueGreenColor) *networkingv1.Ingress {
	meta := metav1.ObjectMeta{
		Name: IngressName(bg.Name), Namespace: bg.Namespace,
		Labels:          map[string]string{LabelApp: bg.Name, LabelManagedBy: ManagedBy},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(bg, flinkv1beta1.GroupVersion.WithKind("FlinkBlueGreenDeployment"))},
	}
	child := c.ChildName(bg.Name)
	return renderIngress(meta, bg.Spec.Ingress, RESTServiceName(child), bluegreen.IngressHash(bg.Spec.Ingress, child))
}

// renderIngress renders an Ingress with meta to service from spec, carrying hash.
func renderIngress(meta metav1.ObjectMeta, spec *flinkv1beta1.IngressSpec, service, hash string) *networkingv1.Ingress {
	host, path := flinkv1beta1.IngressHostPath(spec.Template, meta.Labels[LabelApp], meta.Namespace)
	pathType := networkingv1.PathTypeImplementationSpecific
	ing := &networkingv1.Ingress{
		ObjectMeta: meta,
		Spec: networkingv1.IngressSpec{
			IngressClassName: spec.ClassName,
			TLS:              spec.TLS,
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: path, PathType: &pathType,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: service, Port: networkingv1.ServiceBackendPort{Number: RESTPort},
						}},
					}},
				}},
			}},
		},
	}
	labels := maps.Clone(spec.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, ing.Labels) // the operator's own labels win
	ing.Labels = labels
	ing.Annotations = maps.Clone(spec.Annotations)
	if ing.Annotations == nil {
		ing.Annotations = map[string]string{}
	}
	ing.Annotations[AnnotationIngressHash] = hash
	return ing
}
