// Package config holds the operator's options (kubernetes.operator.*) with the Apache
// operator's names and defaults. Options come from a file of flat "key: value" lines (the
// operator's default configuration), and a resource's flinkConfiguration may override the
// kubernetes.operator.* keys for that resource alone.
package config
