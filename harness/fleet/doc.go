// Package fleet measures the operator on a fleet of FlinkDeployments: the real manager, wired
// as cmd/flink-operator wires it, on a real kube-apiserver (envtest), with the pod simulator
// playing kubelet and running a fakeflink cluster behind each JobManager, in real time. It
// creates N deployments, waits for them to converge, holds them at steady state, upgrades them
// in a wave, then makes a share of the JobManagers stop answering and measures how long spec
// changes of the healthy ones wait for the operator's first action. A plain client doing the
// same number of API writes gives the floor the convergence is compared with.
package fleet
