package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `fakeflink — a fake Flink JobManager/TaskManager speaking Flink's REST API.

Usage:
  fakeflink jobmanager [flags]                       session-cluster JobManager
  fakeflink standalone-job [flags] [job options] [program args...]
                                                     application-cluster JobManager
  fakeflink taskmanager [flags]                      TaskManager (registers with the JobManager)
  fakeflink bash -c "kubernetes-jobmanager.sh (kubernetes-session|kubernetes-application)"
  fakeflink bash -c "kubernetes-taskmanager.sh -D taskmanager.resource-id=<pod>"
                                                     a native cluster's JobManager (its
                                                     resource manager creates the TaskManager
                                                     pods through the in-cluster API) and
                                                     TaskManager, as Flink's decorators start them

Flags (all modes):
  --conf-dir DIR   Flink configuration directory (default $FLINK_CONF_DIR or /opt/flink/conf);
                   config.yaml (Flink >= 1.19, nested YAML allowed) or flink-conf.yaml is read,
                   then every "key: value" line of $FLINK_PROPERTIES overrides it.
  -D key=value     set one configuration key (repeatable).
  --seed N         seed of the fake's random source (default: from the clock).

Job options (standalone-job), as Flink's StandaloneApplicationClusterEntryPoint takes them:
  --job-classname CLASS, --job-id ID, -s|--fromSavepoint PATH, -n|--allowNonRestoredState

Configuration the fake reads: rest.port (8081), rest.address / jobmanager.rpc.address,
kubernetes.cluster-id, taskmanager.numberOfTaskSlots, parallelism.default,
execution.checkpointing.interval, state.checkpoints.dir, state.savepoints.dir,
state.checkpoints.num-retained, high-availability.type, restart-strategy.*,
jobmanager.scheduler, execution.savepoint.path, execution.runtime-mode, heartbeat.timeout,
and two of its own: fakeflink.job.records-per-second (100) and fakeflink.job.records
(input length of a bounded job; 0 = unbounded, BATCH default 10000).

A TaskManager registers with http://<jobmanager.rpc.address>:<rest.port>/fakeflink/taskmanagers/<id>
and heartbeats there; the JobManager drops it after heartbeat.timeout (50s) without one.
Durable state, as the Flink image keeps it: checkpoints and savepoints under file:// directories
(state.checkpoints.dir, state.savepoints.dir) are files (<path>/_metadata) on whatever volume is
mounted there, and job results live under high-availability.storageDir/job-result-store. With
high-availability.type: kubernetes the HA metadata (job and latest checkpoint) is kept in
ConfigMaps labelled app=<cluster-id>,type=flink-native-kubernetes,configmap-type=high-availability
in kubernetes.namespace (read by name, as Flink reads them),
through the in-cluster API under the pod's ServiceAccount (it needs get/list/create/update/delete
on configmaps). Other directories keep snapshots in memory.

GET /fakeflink/jobs/<id> tells a job's offset and the snapshot its run restored (for tests).
`

// run dispatches a command line; it returns when ctx ends or the process fails.
func run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		_, _ = io.WriteString(os.Stdout, usage)
		if len(args) == 0 {
			return errors.New("no mode given (jobmanager, standalone-job or taskmanager)")
		}
		return nil
	}
	if err := checkContract(args, os.Stderr); err != nil {
		return err
	}
	mode, rest, native := nativeArgs(args)
	if native {
		args = append([]string{mode}, rest...)
	}
	opts, err := parseFlags(args[0], args[1:])
	if errors.Is(err, flag.ErrHelp) {
		_, _ = io.WriteString(os.Stdout, usage)
		return nil
	}
	if err != nil {
		return err
	}
	opts.native = native
	if args[0] == modeApplication {
		nativeJob(opts)
	}
	switch args[0] {
	case "jobmanager", "standalone-job", modeApplication:
		return runJobManager(ctx, opts, os.Stdout)
	case "taskmanager":
		return runTaskManager(ctx, opts, os.Stdout)
	}
	return fmt.Errorf("unknown mode %q (jobmanager, standalone-job or taskmanager)", args[0])
}
