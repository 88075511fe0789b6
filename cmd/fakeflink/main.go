// Command fakeflink is a fake Flink JobManager/TaskManager speaking Flink's REST API, built
// on the deterministic fakeflink core and run on the real clock. It honours the Flink image's
// contract, so it can stand in for the Flink image in a cluster:
//
//	fakeflink jobmanager                      a session cluster's JobManager
//	fakeflink standalone-job [options] [args] an application cluster's JobManager
//	fakeflink taskmanager                     a TaskManager that registers with the JobManager
//
// Run `fakeflink --help` for the options.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(mainExit()) }

func mainExit() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakeflink:", err)
		return 1
	}
	return 0
}
