package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/config"
)

// TestSnapshotAllowedPathPrefixes: the option's entries, trimmed, from the operator's options
// and a namespace's; a prefix with a pattern in it is a malformed option.
func TestSnapshotAllowedPathPrefixes(t *testing.T) {
	for name, tc := range map[string]struct {
		// file is the operator's options file.
		file string
		// namespace is the namespace read.
		namespace string
		// want are its prefixes.
		want []string
		// wantErr: the file is refused.
		wantErr bool
	}{
		"unset":               {file: "kubernetes.operator.reconcile.interval: 1 min\n"},
		"entries, trimmed":    {file: "kubernetes.operator.snapshot.allowed-path-prefixes: ' s3://b/{{namespace}}/ , ,gs://c'\n", want: []string{"s3://b/{{namespace}}/", "gs://c"}},
		"* alone":             {file: "kubernetes.operator.snapshot.allowed-path-prefixes: '*'\n", want: []string{"*"}},
		"a pattern refused":   {file: "kubernetes.operator.snapshot.allowed-path-prefixes: s3://b/*/sp\n", wantErr: true},
		"empty: none":         {file: "kubernetes.operator.snapshot.allowed-path-prefixes: ''\n"},
		"another namespace":   {file: "kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.snapshot.allowed-path-prefixes: s3://a\n", namespace: "team-b"},
		"its namespace's own": {file: "kubernetes.operator.snapshot.allowed-path-prefixes: s3://all\nkubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.snapshot.allowed-path-prefixes: s3://a\n", namespace: "team-a", want: []string{"s3://a"}},
	} {
		t.Run(name, func(t *testing.T) {
			live, err := config.NewLive([]byte(tc.file))
			if (err != nil) != tc.wantErr {
				t.Fatalf("NewLive: %v, want an error: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			opts, err := live.For(tc.namespace)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, opts.SnapshotPathPrefixes()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
