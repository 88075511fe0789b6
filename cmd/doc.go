// Package cmd is the home of Flinkop's thin mains: cmd/flink-operator (the operator),
// cmd/fakeflink (the fake JobManager/TaskManager server and container image) and cmd/flinksim
// (demo, sandbox, scenario runs, sweeps, the fleet benchmark). This package holds no code.
package cmd
