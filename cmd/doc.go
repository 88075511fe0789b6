// Package cmd is the home of Flinkop's thin mains: cmd/flink-operator (the operator),
// cmd/fakeflink (the fake JobManager/TaskManager server and container image) and cmd/flinksim
// (demo, sandbox, scenario runs and sweeps). Each arrives with its issue; none is built yet.
package cmd
