package clip

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestString(t *testing.T) {
	cases := map[string]struct {
		in   string
		n    int
		want string
	}{
		"short stays":              {"job failed", 64, "job failed"},
		"newline and tab stay":     {"a\n\tb", 64, "a\n\tb"},
		"control characters":       {"a\x1b[31mred\x00", 64, "a?[31mred?"},
		"invalid UTF-8":            {"a\xff\xfeb", 64, "a?b"},
		"cut with the mark":        {strings.Repeat("x", 40), 20, strings.Repeat("x", 20-len(Mark)) + Mark},
		"cut on a rune boundary":   {"ab" + strings.Repeat("é", 20), 18, "ab" + Mark},
		"exactly n":                {strings.Repeat("y", 20), 20, strings.Repeat("y", 20)},
		"huge text of bad bytes":   {strings.Repeat("\xff", 1000), 20, "?" + Mark},
		"huge text cut before use": {strings.Repeat("z", 10_000_000), 30, strings.Repeat("z", 30-len(Mark)) + Mark},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := String(c.in, c.n)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("String mismatch (-want +got):\n%s", diff)
			}
			if len(got) > c.n || !utf8.ValidString(got) {
				t.Errorf("String(…, %d) = %d bytes, valid UTF-8 %v", c.n, len(got), utf8.ValidString(got))
			}
		})
	}
}

func TestLine(t *testing.T) {
	cases := map[string]struct {
		in   string
		n    int
		want string
	}{
		"one line":        {"ok", 20, "ok"},
		"forged log line": {"error\nlevel=info msg=forged", 64, "error …"},
		"long first line": {strings.Repeat("q", 50) + "\nmore", 20, strings.Repeat("q", 20-len(Mark)) + Mark},
	}
	for name, c := range cases {
		if diff := cmp.Diff(c.want, Line(c.in, c.n)); diff != "" {
			t.Errorf("%s: Line mismatch (-want +got):\n%s", name, diff)
		}
	}
}
