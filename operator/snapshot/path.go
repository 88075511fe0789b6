package snapshot

import (
	"errors"
	"fmt"
	"strings"
)

// ErrPathEscapesRoot is CanonicalPath's error for a path whose ".." segments climb above its
// root: what such a path names depends on the file system, so it is neither compared nor
// confined, and never disposed of.
var ErrPathEscapesRoot = errors.New("its .. segments climb above its root")

// ErrNotAPath is CanonicalPath's error for a string that names no file: empty, a scheme
// followed by a relative path, or a relative path that cleans to nothing.
var ErrNotAPath = errors.New("it names no file")

// ErrAmbiguousPath is CanonicalPath's error for a path Flink may read otherwise than the
// operator: with a backslash (Flink's Path turns each into a slash before it resolves ".."), a
// percent sign (an escape Flink's URI decodes), or, without a scheme, a leading "//" (which
// Flink reads as an authority).
var ErrAmbiguousPath = errors.New("it could name another file to Flink (a backslash, a percent sign, or // without a scheme)")

// CanonicalPath is p in the one spelling the operator compares paths in: the scheme (lower
// case) and the authority kept, the path with its duplicate slashes, "." segments and
// trailing slash removed and its ".." segments resolved. A scheme without an authority
// (file:/x) is written with an empty one (file:///x), the same file. A path without a scheme
// stays without one: what it names depends on the cluster's default file system. A ".."
// that would climb above the root (or, in a relative path, above its start) is refused
// (ErrPathEscapesRoot): it is not clamped, since a file system may not clamp it either.
func CanonicalPath(p string) (string, error) {
	scheme, rest, hasScheme := cutScheme(p)
	if strings.ContainsAny(p, `\%`) || (!hasScheme && strings.HasPrefix(p, "//")) {
		return "", fmt.Errorf("path %q: %w", p, ErrAmbiguousPath)
	}
	if !hasScheme {
		clean, err := cleanSegments(p)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", p, err)
		}
		return clean, nil
	}
	authority, path := "", rest
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		authority, path = after, ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
	}
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("path %q: %w (a relative path after a scheme)", p, ErrNotAPath)
	}
	clean, err := cleanSegments(path)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	return strings.ToLower(scheme) + "://" + authority + clean, nil
}

// cutScheme splits a URI's scheme (RFC 3986: a letter, then letters, digits, "+", "-" or
// ".", then ":") from the rest; hasScheme is false when p does not start with one.
func cutScheme(p string) (scheme, rest string, hasScheme bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ':' && i > 0:
			return p[:i], p[i+1:], true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "", p, false
		}
	}
	return "", p, false
}

// cleanSegments removes empty and "." segments of p and resolves its ".." segments; an
// absolute p stays absolute ("/" for its root).
func cleanSegments(p string) (string, error) {
	abs := strings.HasPrefix(p, "/")
	var out []string
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", ErrPathEscapesRoot
			}
			out = out[:len(out)-1]
		default:
			out = append(out, seg)
		}
	}
	switch {
	case abs:
		return "/" + strings.Join(out, "/"), nil
	case len(out) == 0:
		return "", ErrNotAPath
	}
	return strings.Join(out, "/"), nil
}

// SamePath reports whether a and b name the same file in canonical form; a path that has no
// canonical form is the same as nothing.
func SamePath(a, b string) bool {
	ca, errA := CanonicalPath(a)
	cb, errB := CanonicalPath(b)
	return errA == nil && errB == nil && ca == cb
}

// within reports whether canonical path p is root or below it, on segment boundaries:
// s3://b/ns1 holds s3://b/ns1/x but not s3://b/ns10. Both are canonical.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if strings.HasSuffix(root, "/") { // a file system's root: s3://b/, /
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+"/")
}
