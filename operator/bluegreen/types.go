package bluegreen

import (
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// Observation is what the operator saw of a resource's children and its savepoint.
type Observation struct {
	// Blue and Green are the children as read (nil: none). A child another object controls
	// is reported in Foreign instead, and never touched.
	Blue, Green *flinkv1beta1.FlinkDeployment
	// Foreign names a child-named FlinkDeployment the resource does not control ("": none).
	Foreign string
	// Savepoint is what Flink says of status.savepointTriggerId (nil: not asked, or its
	// JobManager did not answer).
	Savepoint *decide.OperationObservation
	// Ingress is the resource's Ingress (nil: none).
	Ingress *IngressSeen
}

// Input is everything Decide reads.
type Input struct {
	// Resource is the blue/green deployment as read, with its current status.
	Resource *flinkv1beta1.FlinkBlueGreenDeployment
	// Blue, Green, Foreign and Savepoint are the Observation.
	Blue, Green *flinkv1beta1.FlinkDeployment
	Foreign     string
	Savepoint   *decide.OperationObservation
	Ingress     *IngressSeen
	// Now is the current time (from the injected clock).
	Now time.Time
	// ReconcileInterval is how often a resource with nothing in progress looks again.
	ReconcileInterval time.Duration
	// IngressPolicy bounds the resource's Ingress (the options of its namespace).
	IngressPolicy config.IngressPolicy
}

// ActionKind names what the executor does.
type ActionKind string

// The blue/green actions.
const (
	// ActNone does nothing.
	ActNone ActionKind = ""
	// ActDeploy creates the child, or replaces its spec (and the colour label).
	ActDeploy ActionKind = "DeployChild"
	// ActDelete deletes the child.
	ActDelete ActionKind = "DeleteChild"
	// ActTriggerSavepoint triggers a savepoint of the child's job, which keeps running.
	ActTriggerSavepoint ActionKind = "TriggerSavepoint"
	// ActApplyIngress creates or updates the resource's Ingress to route to the child.
	ActApplyIngress ActionKind = "ApplyIngress"
	// ActDeleteIngress deletes the resource's Ingress.
	ActDeleteIngress ActionKind = "DeleteIngress"
)

// Action is one thing to do.
type Action struct {
	// Kind is what to do; Color the child it is done to (or routed to, for the Ingress).
	Kind  ActionKind
	Color flinkv1beta1.BlueGreenColor
	// Spec is the child's spec (ActDeploy).
	Spec *flinkv1beta1.FlinkDeploymentSpec
	// JobID, TargetDirectory and TriggerID of a savepoint.
	JobID, TargetDirectory, TriggerID string
}

// Result is what Decide chose.
type Result struct {
	// Action is the one action; Status the status to write after it; Events the Events to
	// record.
	Action Action
	Status flinkv1beta1.FlinkBlueGreenDeploymentStatus
	Events []decide.Event
	// RequeueAfter is when to look again (always set).
	RequeueAfter time.Duration
}

// Event reasons of a blue/green deployment's Events.
const (
	ReasonDeploying = "BlueGreenDeploying"
	ReasonSavepoint = "BlueGreenSavepoint"
	ReasonActive    = "BlueGreenActive"
	ReasonAborted   = "BlueGreenAborted"
	ReasonFailed    = "BlueGreenFailed"
	ReasonSuspended = "BlueGreenSuspended"
	ReasonInvalid   = "SpecInvalid"
	ReasonIngress   = "BlueGreenIngress"
)
