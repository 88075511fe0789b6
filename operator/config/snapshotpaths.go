package config

import (
	"fmt"
	"strings"
)

// KeySnapshotAllowedPathPrefixes lets the FlinkStateSnapshots of a namespace record and
// dispose of savepoints below more than the namespace's state directories (Flinkop's key): a
// comma-separated list of path prefixes, in which {{namespace}} stands for the snapshot's
// namespace; "*" alone allows any path, as the Apache operator does. The snapshot reconciler
// reads it from the operator's options only, operator-wide or per namespace
// (NamespacePrefix); a resource's flinkConfiguration setting it has no effect.
const KeySnapshotAllowedPathPrefixes = "kubernetes.operator.snapshot.allowed-path-prefixes"

// SnapshotPathPrefixes are the entries of SnapshotAllowedPathPrefixes (nil when unset).
func (o Options) SnapshotPathPrefixes() []string {
	if o.SnapshotAllowedPathPrefixes == "" {
		return nil
	}
	return strings.Split(o.SnapshotAllowedPathPrefixes, ",")
}

// snapshotPathPrefixes reads a KeySnapshotAllowedPathPrefixes value: its entries, trimmed,
// empty ones dropped, joined by commas. A "*" within an entry is refused: a prefix is a path,
// not a pattern.
func snapshotPathPrefixes(v string) (string, error) {
	var out []string
	for e := range strings.SplitSeq(v, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e != "*" && strings.Contains(e, "*"):
			return "", fmt.Errorf("%s: %q is not a path prefix (no patterns; * alone allows any path)", KeySnapshotAllowedPathPrefixes, e)
		}
		out = append(out, e)
	}
	return strings.Join(out, ","), nil
}

// readSnapshotPaths sets SnapshotAllowedPathPrefixes from conf's
// KeySnapshotAllowedPathPrefixes, if set; it returns the error of a malformed value.
func (o *Options) readSnapshotPaths(conf map[string]string) []string {
	v, ok := conf[KeySnapshotAllowedPathPrefixes]
	if !ok {
		return nil
	}
	p, err := snapshotPathPrefixes(v)
	if err != nil {
		return []string{err.Error()}
	}
	o.SnapshotAllowedPathPrefixes = p
	return nil
}
