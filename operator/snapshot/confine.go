package snapshot

import (
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// NamespacePlaceholder stands, in an entry of config.KeySnapshotAllowedPathPrefixes, for the
// snapshot's namespace.
const NamespacePlaceholder = "{{namespace}}"

// AnyPath alone as an entry of config.KeySnapshotAllowedPathPrefixes lets snapshots record
// and dispose of any path, as the Apache operator does.
const AnyPath = "*"

// StateDirKeys are the Flink options whose directories a namespace's snapshots may use: the
// savepoint and checkpoint directories, in Flink 1's and Flink 2's names.
var StateDirKeys = []string{
	flinkv1beta1.ConfigSavepointsDir, flinkv1beta1.ConfigSavepointsDirV2,
	flinkv1beta1.ConfigCheckpointsDir, flinkv1beta1.ConfigCheckpointsDirV2,
}

// StateDirs are the state directories conf names (StateDirKeys, in that order, those set).
// conf is the operator's default Flink configuration of a namespace, never a resource's own
// flinkConfiguration: a tenant could point that anywhere.
func StateDirs(conf map[string]string) []string {
	var out []string
	for _, k := range StateDirKeys {
		if v := strings.TrimSpace(conf[k]); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// PathRules are where the snapshots of one namespace may record savepoints, take them to and
// dispose of them: below the namespace's state directories as the operator's configuration
// gives them, or below a prefix config.KeySnapshotAllowedPathPrefixes allows. Paths and
// roots are compared in canonical form (CanonicalPath), on segment boundaries.
type PathRules struct {
	// StateDirs are the namespace's state directories in the operator's default
	// configuration (StateDirs).
	StateDirs []string
	// AllowedPrefixes are the entries of config.KeySnapshotAllowedPathPrefixes for the
	// namespace, NamespacePlaceholder not yet replaced; AnyPath allows any path.
	AllowedPrefixes []string
}

// refusal says why the rules do not let a snapshot of namespace ns use path, or "" when they
// do. A recorded or disposed-of savepoint must lie strictly below a root (a snapshot never
// names a whole state directory: disposing of it would dispose of every savepoint in it); a
// savepoint's target directory (below false) may be a root itself. A path without a
// canonical form is refused whatever the rules.
func (p PathRules) refusal(ns, path string, below bool) string {
	cp, err := CanonicalPath(path)
	if err != nil {
		return err.Error()
	}
	roots, anyPath := p.roots(ns)
	if anyPath {
		return ""
	}
	for _, root := range roots {
		if within(cp, root) && (!below || cp != root) {
			return ""
		}
	}
	where := "below"
	if !below {
		where = "at or below"
	}
	return path + " is not " + where + " a state directory of namespace " + ns + " (" + flinkv1beta1.ConfigSavepointsDir +
		" or " + flinkv1beta1.ConfigCheckpointsDir + " in the operator's configuration for it, or their Flink 2 names) nor " +
		where + " a prefix " + config.KeySnapshotAllowedPathPrefixes + " allows"
}

// roots are the canonical directories the rules allow for namespace ns; anyPath is true when
// an entry of AllowedPrefixes is AnyPath. An entry without a canonical form allows nothing.
func (p PathRules) roots(ns string) (out []string, anyPath bool) {
	add := func(dir string) {
		if c, err := CanonicalPath(dir); err == nil {
			out = append(out, c)
		}
	}
	for _, d := range p.StateDirs {
		add(d)
	}
	for _, e := range p.AllowedPrefixes {
		e = strings.TrimSpace(e)
		if e == AnyPath {
			return nil, true
		}
		add(strings.ReplaceAll(e, NamespacePlaceholder, ns))
	}
	return out, false
}
