package snapshot

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCanonicalPath: one spelling per file; scheme and authority kept, a ".." that climbs
// above the root refused rather than clamped.
func TestCanonicalPath(t *testing.T) {
	for name, tc := range map[string]struct {
		// path is the path as a tenant or Flink spells it.
		path string
		// want is its canonical form ("" when refused).
		want string
		// wantErr is the refusal (nil when it has a canonical form).
		wantErr error
	}{
		"already canonical":                      {path: "s3://b/sp/savepoint-1", want: "s3://b/sp/savepoint-1"},
		"duplicate slashes in the path":          {path: "s3://b//sp///savepoint-1", want: "s3://b/sp/savepoint-1"},
		"a duplicate slash after the authority":  {path: "s3://b//x", want: "s3://b/x"},
		"dot segments":                           {path: "s3://b/./sp/./savepoint-1", want: "s3://b/sp/savepoint-1"},
		"trailing slash":                         {path: "s3://b/sp/", want: "s3://b/sp"},
		"dot-dot resolved":                       {path: "s3://b/ns1/../ns2/sp", want: "s3://b/ns2/sp"},
		"dot-dot back to the root":               {path: "s3://b/sp/..", want: "s3://b/"},
		"dot-dot above the root refused":         {path: "s3://b/../ns2/sp", wantErr: ErrPathEscapesRoot},
		"dot-dot above the root, deeper":         {path: "s3://b/ns1/../../x", wantErr: ErrPathEscapesRoot},
		"the authority is kept as written":       {path: "hdfs://nn:8020/flink//sp", want: "hdfs://nn:8020/flink/sp"},
		"the scheme in lower case":               {path: "S3://b/sp", want: "s3://b/sp"},
		"an empty authority":                     {path: "file:///data//sp/", want: "file:///data/sp"},
		"no authority is the empty one":          {path: "file:/data/sp", want: "file:///data/sp"},
		"a bucket alone is its root":             {path: "s3://b", want: "s3://b/"},
		"a relative path after a scheme refused": {path: "s3:b/sp", wantErr: ErrNotAPath},
		"no scheme, absolute":                    {path: "/data//sp/./x/", want: "/data/sp/x"},
		"no scheme, dot-dot above the root":      {path: "/../etc", wantErr: ErrPathEscapesRoot},
		"no scheme, relative":                    {path: "sp//x/", want: "sp/x"},
		"no scheme, relative, climbing out":      {path: "../sp", wantErr: ErrPathEscapesRoot},
		"empty":                                  {path: "", wantErr: ErrNotAPath},
		"a relative path that cleans to nothing": {path: "./", wantErr: ErrNotAPath},
		"a backslash Flink turns into a slash":   {path: `s3://b/ns1/..\ns2\sp-1`, wantErr: ErrAmbiguousPath},
		"a percent escape Flink decodes":         {path: "s3://b/ns1/%2e%2e/ns2/sp-1", wantErr: ErrAmbiguousPath},
		"no scheme, // is an authority to Flink": {path: "//data/ns1/sp", wantErr: ErrAmbiguousPath},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := CanonicalPath(tc.path)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CanonicalPath(%q) (-want +got):\n%s", tc.path, diff)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("CanonicalPath(%q) error %v, want %v", tc.path, err, tc.wantErr)
			}
		})
	}
}

// TestPathRefusal: which paths the rules let a snapshot of namespace ns1 use, a recorded or
// disposed-of savepoint strictly below a root, a target directory at or below one.
func TestPathRefusal(t *testing.T) {
	stateDirs := PathRules{StateDirs: []string{"s3://b/ns1/sp", "s3://b/ns1/cp/"}}
	for name, tc := range map[string]struct {
		// rules are the namespace's.
		rules PathRules
		// path is the snapshot's.
		path string
		// target: path is a savepoint's target directory, not a savepoint.
		target bool
		// wantAllowed is whether the rules allow it.
		wantAllowed bool
	}{
		"below a state directory":                    {rules: stateDirs, path: "s3://b/ns1/sp/savepoint-1", wantAllowed: true},
		"below the checkpoint directory":             {rules: stateDirs, path: "s3://b/ns1/cp/chk-7", wantAllowed: true},
		"spelled with // and still below":            {rules: stateDirs, path: "s3://b//ns1/sp//savepoint-1/", wantAllowed: true},
		"another namespace's directory":              {rules: stateDirs, path: "s3://b/ns2/sp/savepoint-1"},
		"climbing out of a state directory":          {rules: stateDirs, path: "s3://b/ns1/sp/../../ns2/sp/savepoint-1"},
		"a state directory itself is no savepoint":   {rules: stateDirs, path: "s3://b/ns1/sp/"},
		"a state directory is a target directory":    {rules: stateDirs, path: "s3://b/ns1/sp", target: true, wantAllowed: true},
		"a target directory outside":                 {rules: stateDirs, path: "s3://b/ns2/sp", target: true},
		"another authority":                          {rules: stateDirs, path: "s3://c/ns1/sp/savepoint-1"},
		"another scheme":                             {rules: stateDirs, path: "gs://b/ns1/sp/savepoint-1"},
		"no rules: nothing":                          {path: "s3://b/ns1/sp/savepoint-1"},
		"a prefix on a segment boundary":             {rules: PathRules{AllowedPrefixes: []string{"s3://b/ns1"}}, path: "s3://b/ns1/x", wantAllowed: true},
		"a prefix is no prefix of a longer segment":  {rules: PathRules{AllowedPrefixes: []string{"s3://b/ns1"}}, path: "s3://b/ns10/x"},
		"{{namespace}} is the snapshot's":            {rules: PathRules{AllowedPrefixes: []string{"s3://b/{{namespace}}/"}}, path: "s3://b/ns1/x", wantAllowed: true},
		"{{namespace}} is not another's":             {rules: PathRules{AllowedPrefixes: []string{"s3://b/{{namespace}}"}}, path: "s3://b/ns2/x"},
		"* allows any path":                          {rules: PathRules{AllowedPrefixes: []string{" * "}}, path: "file:///etc/x", wantAllowed: true},
		"* does not make a path canonical":           {rules: PathRules{AllowedPrefixes: []string{"*"}}, path: "s3://b/../x"},
		"a state directory named * is no wildcard":   {rules: PathRules{StateDirs: []string{"*"}}, path: "file:///etc/x"},
		"a later entry allows":                       {rules: PathRules{AllowedPrefixes: []string{"s3://a", "", "s3://b/ns1"}}, path: "s3://b/ns1/x", wantAllowed: true},
		"an entry without a canonical form is none":  {rules: PathRules{AllowedPrefixes: []string{"s3://b/../.."}}, path: "s3://b/x"},
		"a file system root allows what is below it": {rules: PathRules{AllowedPrefixes: []string{"s3://b/"}}, path: "s3://b/x", wantAllowed: true},
		"a file system root is not another bucket":   {rules: PathRules{AllowedPrefixes: []string{"s3://b"}}, path: "s3://bc/x"},
		"a backslash does not climb out":             {rules: PathRules{AllowedPrefixes: []string{"s3://b/ns1"}}, path: `s3://b/ns1/..\ns2\sp-1`},
		"no scheme, // is not the state directory":   {rules: PathRules{StateDirs: []string{"/data/ns1"}}, path: "//data/ns1/sp"},
	} {
		t.Run(name, func(t *testing.T) {
			why := tc.rules.refusal("ns1", tc.path, !tc.target)
			if got := why == ""; got != tc.wantAllowed {
				t.Errorf("allowed %v, want %v (refusal %q)", got, tc.wantAllowed, why)
			}
		})
	}
}

// TestStateDirs: the state directories of a namespace's defaults, in both Flink names.
func TestStateDirs(t *testing.T) {
	got := StateDirs(map[string]string{
		"state.savepoints.dir": "s3://b/sp", "execution.checkpointing.dir": " s3://b/cp ", "state.checkpoints.dir": "",
		"high-availability.storageDir": "s3://b/ha",
	})
	if diff := cmp.Diff([]string{"s3://b/sp", "s3://b/cp"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
