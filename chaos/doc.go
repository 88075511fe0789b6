// Package chaos describes faults as data: a Plan of (trigger, fault) pairs chosen from a seeded
// random source, and the injectors that apply them (HTTP round-tripper for Flink REST,
// controller-runtime client interceptors for the API server, fakeflink and pod-simulator hooks).
// It arrives with the harness issue.
package chaos
