// Package config holds the operator's options (kubernetes.operator.*) with the Apache operator's
// names and defaults, read from a file and overridden per resource through flinkConfiguration. It
// arrives with the operator-core issue.
package config
