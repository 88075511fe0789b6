// Package webhook is Flinkop's admission webhook. Validating: it refuses, at kubectl apply, a
// FlinkDeployment, FlinkSessionJob, FlinkStateSnapshot or FlinkBlueGreenDeployment whose spec
// the operator would refuse, with the same Validate() the reconcilers run and its field paths.
// Without the webhook the operator reports the same errors in status.error and a Warning Event.
// Given the operator's options (WithIngressPolicies), it refuses a spec.ingress the Ingress
// policy of the resource's namespace refuses, as the reconcilers do.
// Mutating (defaulting): it labels a FlinkSessionJob with its session cluster, as the Apache
// operator's webhook does (SessionJobDefaulter).
//
// An update that leaves the spec as it is (the operator adding or removing its finalizer,
// labels and annotations) and an update of a resource being deleted are always allowed: a
// resource created invalid before the webhook ran must still be deletable.
package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// validated is a resource the webhook validates.
type validated interface {
	client.Object
	Validate() field.ErrorList
}

// Validator validates one kind; spec returns the part of a resource an update must leave as
// it is to be allowed without validation.
type Validator[T validated] struct {
	kind string
	spec func(T) any
	// prepare (nil: none) readies a resource for Validate: it gives FlinkDeployment specs
	// the operator's Flink defaults, which the reconciler validates with too.
	prepare func(T)
	// policy (nil: none) checks a valid resource against the operator's options (the
	// Ingress policy).
	policy func(T) field.ErrorList
}

// ValidateCreate refuses an invalid resource.
func (v Validator[T]) ValidateCreate(_ context.Context, obj T) (admission.Warnings, error) {
	return nil, v.refuse(obj)
}

// ValidateUpdate refuses an update to an invalid spec.
func (v Validator[T]) ValidateUpdate(_ context.Context, oldObj, newObj T) (admission.Warnings, error) {
	if newObj.GetDeletionTimestamp() != nil || equality.Semantic.DeepEqual(v.spec(oldObj), v.spec(newObj)) {
		return nil, nil
	}
	return nil, v.refuse(newObj)
}

// ValidateDelete allows every deletion.
func (v Validator[T]) ValidateDelete(context.Context, T) (admission.Warnings, error) {
	return nil, nil
}

// refuse is an Invalid error naming each field, as the API server's own validation words it.
func (v Validator[T]) refuse(obj T) error {
	if v.prepare != nil {
		obj = obj.DeepCopyObject().(T) // the admission request's object stays as it came
		v.prepare(obj)
	}
	errs := obj.Validate()
	if len(errs) == 0 && v.policy != nil {
		errs = v.policy(obj)
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: flinkv1beta1.GroupVersion.Group, Kind: v.kind}, obj.GetName(), errs)
}

// NewDeploymentValidator validates FlinkDeployments with defaults, and opts (tests call it
// directly).
func NewDeploymentValidator(defaults flinkv1beta1.FlinkDefaults, opts ...Option) Validator[*flinkv1beta1.FlinkDeployment] {
	v := Validator[*flinkv1beta1.FlinkDeployment]{
		kind: "FlinkDeployment", spec: func(d *flinkv1beta1.FlinkDeployment) any { return d.Spec },
		prepare: defaults.Apply,
	}
	if p := collect(opts).ingress; p != nil {
		v.policy = p.deploymentIngress
	}
	return v
}

// NewBlueGreenValidator validates FlinkBlueGreenDeployments, their template with defaults, and
// opts (tests call it directly).
func NewBlueGreenValidator(defaults flinkv1beta1.FlinkDefaults, opts ...Option) Validator[*flinkv1beta1.FlinkBlueGreenDeployment] {
	v := Validator[*flinkv1beta1.FlinkBlueGreenDeployment]{
		kind: "FlinkBlueGreenDeployment", spec: func(b *flinkv1beta1.FlinkBlueGreenDeployment) any { return b.Spec },
		prepare: func(b *flinkv1beta1.FlinkBlueGreenDeployment) { defaults.ApplySpec(b.Namespace, b.Spec.Template.Spec) },
	}
	if p := collect(opts).ingress; p != nil {
		v.policy = p.blueGreenIngress
	}
	return v
}

// The webhook configurations (config/webhook/manifests.yaml, generated from these markers).
// failurePolicy Ignore (the mutating webhook's too: a job without its label runs the same): with Fail, an operator that is down, or whose certificate is not yet
// in the configuration, would block every apply of these kinds cluster-wide, and the updates
// that remove its finalizers, so deletions would hang too; with Ignore a spec applied while
// the webhook is down is refused by the reconciler instead (status.error and a Warning Event),
// and nothing runs unvalidated.
//
// +kubebuilder:webhook:path=/validate-flink-apache-org-v1beta1-flinkdeployment,mutating=false,failurePolicy=ignore,sideEffects=None,groups=flink.apache.org,resources=flinkdeployments,verbs=create;update,versions=v1beta1,name=vflinkdeployment.flinkop.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/validate-flink-apache-org-v1beta1-flinksessionjob,mutating=false,failurePolicy=ignore,sideEffects=None,groups=flink.apache.org,resources=flinksessionjobs,verbs=create;update,versions=v1beta1,name=vflinksessionjob.flinkop.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/validate-flink-apache-org-v1beta1-flinkstatesnapshot,mutating=false,failurePolicy=ignore,sideEffects=None,groups=flink.apache.org,resources=flinkstatesnapshots,verbs=create;update,versions=v1beta1,name=vflinkstatesnapshot.flinkop.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/mutate-flink-apache-org-v1beta1-flinksessionjob,mutating=true,failurePolicy=ignore,sideEffects=None,groups=flink.apache.org,resources=flinksessionjobs,verbs=create;update,versions=v1beta1,name=mflinksessionjob.flinkop.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/validate-flink-apache-org-v1beta1-flinkbluegreendeployment,mutating=false,failurePolicy=ignore,sideEffects=None,groups=flink.apache.org,resources=flinkbluegreendeployments,verbs=create;update,versions=v1beta1,name=vflinkbluegreendeployment.flinkop.io,admissionReviewVersions=v1,timeoutSeconds=5

// Paths are where the server answers for each kind (as controller-runtime names them, and the
// markers above).
var Paths = map[string]string{
	"FlinkDeployment":          "/validate-flink-apache-org-v1beta1-flinkdeployment",
	"FlinkSessionJob":          "/validate-flink-apache-org-v1beta1-flinksessionjob",
	"FlinkStateSnapshot":       "/validate-flink-apache-org-v1beta1-flinkstatesnapshot",
	"FlinkBlueGreenDeployment": "/validate-flink-apache-org-v1beta1-flinkbluegreendeployment",
}

// MutatePath is where the server answers the mutating webhook of FlinkSessionJobs.
const MutatePath = "/mutate-flink-apache-org-v1beta1-flinksessionjob"

// Register serves the validating webhooks of the four kinds, and the mutating webhook of
// FlinkSessionJobs, on srv; FlinkDeployment specs (blue/green templates too) are validated
// with defaults, as the reconcilers validate them, and with opts (WithIngressPolicies).
func Register(srv crwebhook.Server, scheme *runtime.Scheme, defaults flinkv1beta1.FlinkDefaults, opts ...Option) {
	srv.Register(MutatePath, admission.WithDefaulter(scheme, admission.Defaulter[*flinkv1beta1.FlinkSessionJob](SessionJobDefaulter{})))
	srv.Register(Paths["FlinkDeployment"], admission.WithValidator(scheme, NewDeploymentValidator(defaults, opts...)))
	srv.Register(Paths["FlinkSessionJob"], admission.WithValidator(scheme, Validator[*flinkv1beta1.FlinkSessionJob]{
		kind: "FlinkSessionJob", spec: func(j *flinkv1beta1.FlinkSessionJob) any { return j.Spec },
	}))
	srv.Register(Paths["FlinkStateSnapshot"], admission.WithValidator(scheme, Validator[*flinkv1beta1.FlinkStateSnapshot]{
		kind: "FlinkStateSnapshot", spec: func(s *flinkv1beta1.FlinkStateSnapshot) any { return s.Spec },
	}))
	srv.Register(Paths["FlinkBlueGreenDeployment"], admission.WithValidator(scheme, NewBlueGreenValidator(defaults, opts...)))
}
