package webhook

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// IngressPolicies gives the operator's Ingress policy of a namespace.
type IngressPolicies func(namespace string) config.IngressPolicy

// LiveIngressPolicies reads the policies from live at each request, so a change of the
// operator's options applies at once, as it does for the reconcilers.
func LiveIngressPolicies(live *config.Live) IngressPolicies {
	return func(namespace string) config.IngressPolicy {
		opts, _ := live.For(namespace) // errs only with the operator-wide options, which then hold
		return opts.Ingress
	}
}

// Option changes what the validators check.
type Option func(*options)

type options struct {
	ingress IngressPolicies // nil: the Ingress policy is left to the reconcilers
}

// WithIngressPolicies makes the validators refuse a FlinkDeployment or FlinkBlueGreenDeployment
// whose spec.ingress the Ingress policy of its namespace refuses (the reconcilers refuse it as
// well, in status.error, if the webhook did not run).
func WithIngressPolicies(p IngressPolicies) Option {
	return func(o *options) { o.ingress = p }
}

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// deploymentIngress checks a FlinkDeployment's spec.ingress. A blue/green deployment's child
// is not checked: the operator writes it, and a refusal here would fail the blue/green
// deployment's step instead of being reported on the child (its reconciler reports it).
func (p IngressPolicies) deploymentIngress(d *flinkv1beta1.FlinkDeployment) field.ErrorList {
	if ref := metav1.GetControllerOf(d); ref != nil && ref.Kind == "FlinkBlueGreenDeployment" {
		return nil
	}
	return p.check(field.NewPath("spec", "ingress"), d.Spec.Ingress, d.Name, d.Namespace)
}

// blueGreenIngress checks a FlinkBlueGreenDeployment's spec.ingress, and the Ingress each of
// its children would render from spec.template.spec.ingress.
func (p IngressPolicies) blueGreenIngress(bg *flinkv1beta1.FlinkBlueGreenDeployment) field.ErrorList {
	errs := p.check(field.NewPath("spec", "ingress"), bg.Spec.Ingress, bg.Name, bg.Namespace)
	if bg.Spec.Template.Spec == nil || bg.Spec.Template.Spec.Ingress == nil {
		return errs
	}
	path := field.NewPath("spec", "template", "spec", "ingress")
	for _, c := range []flinkv1beta1.BlueGreenColor{flinkv1beta1.Blue, flinkv1beta1.Green} {
		child := flinkv1beta1.BlueGreenChildSpec(*bg.Spec.Template.Spec, c)
		errs = append(errs, p.check(path, child.Ingress, c.ChildName(bg.Name), bg.Namespace)...)
	}
	return errs
}

// check is a Forbidden error for each rule spec breaks: on its template for a host, on each
// refused annotation.
func (p IngressPolicies) check(path *field.Path, spec *flinkv1beta1.IngressSpec, name, namespace string) field.ErrorList {
	if spec == nil {
		return nil
	}
	var errs field.ErrorList
	for _, r := range p(namespace).Refusals(spec, name, namespace) {
		if r.Option != config.KeyIngressAllowedAnnotations {
			errs = append(errs, field.Forbidden(path.Child("template"), r.Message))
			continue
		}
		for _, k := range r.Annotations {
			errs = append(errs, field.Forbidden(path.Child("annotations").Key(k), r.Message))
		}
	}
	return errs
}
