package controller

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateEventMessage(t *testing.T) {
	for name, msg := range map[string]string{
		"short":     "deploy failed",
		"at limit":  strings.Repeat("a", MaxEventMessage),
		"long":      strings.Repeat("a", 5000),
		"multibyte": strings.Repeat("é", 2000),
		"invalid":   strings.Repeat("\xffa", 600),
	} {
		got := TruncateEventMessage(msg)
		if len(got) > MaxEventMessage || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes, valid UTF-8 %v", name, len(got), utf8.ValidString(got))
		}
		if len(msg) <= MaxEventMessage && got != msg {
			t.Errorf("%s: a message within the limit changed", name)
		}
		if len(msg) > MaxEventMessage && !strings.HasSuffix(got, TruncatedMark) {
			t.Errorf("%s: the cut is not marked: %q", name, got[len(got)-20:])
		}
	}
}
