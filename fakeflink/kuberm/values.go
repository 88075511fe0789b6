package kuberm

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// parseMap reads a Flink map option ("k1:v1,k2:v2"), trimming blanks around keys and values.
func parseMap(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("could not parse %q as a map entry (key:value)", item)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// parseList reads a Flink list option ("a;b").
func parseList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ";") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parseMaps reads a Flink list of maps ("k:v,k:v;k:v"), as the tolerations options are written.
func parseMaps(s string) ([]map[string]string, error) {
	var out []map[string]string
	for _, item := range parseList(s) {
		m, err := parseMap(item)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// memoryUnits are Flink's MemorySize units (case-insensitive), in bytes.
var memoryUnits = map[string]int64{
	"": 1, "b": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}

// parseMemory reads a Flink MemorySize ("1728m", "2 gb") in bytes.
func parseMemory(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
	if i == 0 || s == "" {
		return 0, fmt.Errorf("memory size %q does not start with a number", s)
	}
	if i < 0 {
		i = len(s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory size %q: %w", s, err)
	}
	unit, ok := memoryUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("memory size %q: unknown unit", s)
	}
	return n * unit, nil
}

// durationUnits are Flink's TimeUtils units.
var durationUnits = map[string]time.Duration{
	"": time.Millisecond, "ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"min": time.Minute, "m": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseDuration reads a Flink duration ("30 s", "30000", "1min"); a bare number is milliseconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
	if i == 0 || s == "" {
		return 0, fmt.Errorf("duration %q does not start with a number", s)
	}
	if i < 0 {
		i = len(s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", s, err)
	}
	unit, ok := durationUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("duration %q: unknown unit", s)
	}
	return time.Duration(n) * unit, nil
}
