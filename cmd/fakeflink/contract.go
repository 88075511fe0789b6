package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/flinkop/flinkop/fakeflink/image"
)

// checkContract applies the Flink image contract (fakeflink/image) to this container's
// arguments and configuration directory before anything starts, so a pod a real Flink image
// would refuse exits here too, printing what Flink prints. The image holds the official
// examples and a user job jar at /opt/flink/job.jar.
func checkContract(args []string, stderr io.Writer) error {
	dir := os.Getenv("FLINK_CONF_DIR")
	if dir == "" {
		dir = image.ConfDir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil //nolint:nilerr // no conf directory: a developer's run, not a pod
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), "..") {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			files[e.Name()] = string(data)
		}
	}
	version := image.Version{Major: 1, Minor: 20}
	if v, ok := image.ParseVersion(os.Getenv("FLINK_VERSION")); ok {
		version = v
	} else if _, conf, _, err := image.ReadConfig(image.Version{Major: 1, Minor: 20}, files); err == nil {
		if v, ok := image.ParseVersion(conf["$internal.flink.version"]); ok {
			version = v
		}
	}
	jars := image.ExampleJars()
	jars["/opt/flink/job.jar"] = image.Jar{MainClass: "org.example.Job"}
	proc, failure := image.Start(image.Pod{Version: version, Args: args, ConfFiles: files, Jars: jars})
	if failure != nil {
		for _, line := range failure.Log {
			_, _ = fmt.Fprintln(stderr, line)
		}
		return fmt.Errorf("the Flink image would not start this container (exit code %d): %w", failure.ExitCode, failure)
	}
	for _, line := range proc.Log {
		_, _ = fmt.Fprintln(stderr, line)
	}
	return nil
}
