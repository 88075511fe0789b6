package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/observe"
)

// NewFlinkSessionJobReconciler builds the session job reconciler for a manager.
func (s Setup) NewFlinkSessionJobReconciler(mgr ctrl.Manager) *FlinkSessionJobReconciler {
	if s.SecretReader == nil {
		s.SecretReader = mgr.GetAPIReader()
	}
	if s.APIReader == nil {
		s.APIReader = mgr.GetAPIReader()
	}
	s.indexed = true // the FlinkDeployment reconciler's SetupWithManager registers the indexes
	return s.SessionJobReconciler(mgr.GetClient(), s.events(mgr))
}

// SessionJobReconciler builds the session job reconciler from a client and an event
// recorder; the harness and tests call it directly, without a manager.
func (s Setup) SessionJobReconciler(c client.Client, rec EventRecorder) *FlinkSessionJobReconciler {
	s = s.withDefaults()
	clients := s.clients(c)
	rec = boundedEvents{rec}
	exec := &act.SessionJobExecutor{
		Flink: func(d *flinkv1beta1.FlinkDeployment) act.SessionFlinkAPI { return clients(d) }, Jars: s.Jars,
		FetchSlots: act.NewFetchSlots(s.JarFetchSlots, s.JarFetchSlotsPerNamespace, s.Clock),
	}
	if s.JarCredentials {
		reader := s.SecretReader
		if reader == nil {
			reader = c
		}
		exec.Credentials = SecretCredentials(reader)
	}
	return &FlinkSessionJobReconciler{
		Client:   c,
		Recorder: rec,
		Clock:    s.Clock,
		Options:  s.Live,
		Metrics:  s.Metrics,
		Workers:  s.Parallelism,
		Observer: &observe.SessionJobObserver{
			Client: c, RESTBudget: s.restBudget(), Reader: s.APIReader, Defaults: s.Live.FlinkDefaults,
			Snapshots: act.SnapshotLister{Enabled: s.Options.SnapshotResources, Indexed: s.indexed},
			Flink:     func(d *flinkv1beta1.FlinkDeployment) observe.SessionFlinkAPI { return clients(d) },
		},
		Executor:      exec,
		SnapshotSlots: s.SnapshotSlots,
		Canaries:      s.Canaries,
		scope:         s.Scope,
		fence:         writeFence{off: s.NoWriteFence},
		fetchSlots:    exec.FetchSlots,
	}
}

// NewFlinkStateSnapshotReconciler builds the snapshot reconciler for a manager.
func (s Setup) NewFlinkStateSnapshotReconciler(mgr ctrl.Manager) *FlinkStateSnapshotReconciler {
	s.indexed = true // its SetupWithManager registers act.IndexRestorePath
	return s.SnapshotReconciler(mgr.GetClient(), s.events(mgr))
}

// SnapshotReconciler builds the snapshot reconciler from a client and an event recorder; the
// harness and tests call it directly, without a manager.
func (s Setup) SnapshotReconciler(c client.Client, rec EventRecorder) *FlinkStateSnapshotReconciler {
	s = s.withDefaults()
	clients := s.clients(c)
	return &FlinkStateSnapshotReconciler{
		Client:   c,
		Recorder: boundedEvents{rec},
		Clock:    s.Clock,
		Options:  s.Live,
		Metrics:  s.Metrics,
		Workers:  s.Parallelism,
		Observer: &observe.SnapshotObserver{
			Client: c, RESTBudget: s.restBudget(), Defaults: s.Live.FlinkDefaults,
			Restorers: act.RestoreLister{Indexed: s.indexed},
			Flink:     func(d *flinkv1beta1.FlinkDeployment) observe.SnapshotFlinkAPI { return clients(d) },
		},
		Executor: &act.SnapshotExecutor{
			Flink: func(d *flinkv1beta1.FlinkDeployment) act.SnapshotFlinkAPI { return clients(d) },
		},
		scope:          s.Scope,
		fence:          writeFence{off: s.NoWriteFence},
		indexRestorers: s.indexed,
	}
}

// NewFlinkBlueGreenDeploymentReconciler builds the blue/green reconciler for a manager.
func (s Setup) NewFlinkBlueGreenDeploymentReconciler(mgr ctrl.Manager) *FlinkBlueGreenDeploymentReconciler {
	if s.APIReader == nil {
		s.APIReader = mgr.GetAPIReader()
	}
	return s.BlueGreenReconciler(mgr.GetClient(), s.events(mgr))
}

// BlueGreenReconciler builds the blue/green reconciler from a client and an event recorder;
// the harness and tests call it directly, without a manager.
func (s Setup) BlueGreenReconciler(c client.Client, rec EventRecorder) *FlinkBlueGreenDeploymentReconciler {
	s = s.withDefaults()
	clients := s.clients(c)
	return &FlinkBlueGreenDeploymentReconciler{
		Client:   c,
		Recorder: boundedEvents{rec},
		Clock:    s.Clock,
		Options:  s.Live,
		Metrics:  s.Metrics,
		Workers:  s.Parallelism,
		Observer: &observe.BlueGreenObserver{
			Client: c, Reader: s.APIReader, RESTBudget: s.restBudget(), Defaults: s.Live.FlinkDefaults,
			Flink: func(d *flinkv1beta1.FlinkDeployment) observe.OperationAPI { return clients(d) },
		},
		Executor: &act.BlueGreenExecutor{
			Client: c, Reader: s.APIReader,
			Flink: func(d *flinkv1beta1.FlinkDeployment) act.BlueGreenFlinkAPI { return clients(d) },
		},
		scope: s.Scope,
		fence: writeFence{off: s.NoWriteFence},
	}
}
