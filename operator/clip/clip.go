// Package clip cuts text that came from a tenant or its code (a JobManager's REST answer, a
// jar server's reason phrase, a pod's message) before it reaches status, an Event or a log
// line: at most a number of bytes, on a character boundary, valid UTF-8, with control
// characters but newline and tab replaced, and a mark where it was cut.
package clip

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mark ends a text that was cut.
const Mark = " …(truncated)"

// Sizes texts are cut to.
const (
	// Status is the longest status.error (the Apache operator's default
	// kubernetes.operator.exception.field.max.length).
	Status = 2048
	// Log is the longest error text in one log line.
	Log = 1024
	// Message is the longest message of a Flink error answer kept (Flink's messages are whole
	// stack traces; the operator shows their first line).
	Message = 8 << 10
)

// String is s cut to at most n bytes (n at least len(Mark)+1), with invalid UTF-8 and control
// characters (all but newline and tab) replaced by '?'.
func String(s string, n int) string {
	long := len(s) > 4*n
	if long {
		s = s[:4*n] // cleaning a huge text whole would cost what cutting saves
	}
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) <= n && !long {
		return s
	}
	cut := min(max(n-len(Mark), 0), len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Mark
}

// Line is the first line of s cut to n bytes: for a log line, where a newline would forge
// another.
func Line(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	line = String(line, n)
	if more && !strings.HasSuffix(line, Mark) {
		line += " …"
	}
	return line
}
