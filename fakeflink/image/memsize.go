package image

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MemorySize is a size in bytes, as Flink's MemorySize.
type MemorySize int64

// Sizes Flink's defaults are written in.
const (
	KiB MemorySize = 1 << 10
	MiB MemorySize = 1 << 20
	GiB MemorySize = 1 << 30
)

// memoryUnits are MemorySize.MemoryUnit's labels (case-insensitive; all binary multiples).
var memoryUnits = []struct {
	labels []string
	factor MemorySize
}{
	{[]string{"b", "bytes"}, 1},
	{[]string{"k", "kb", "kibibytes"}, KiB},
	{[]string{"m", "mb", "mebibytes"}, MiB},
	{[]string{"g", "gb", "gibibytes"}, GiB},
	{[]string{"t", "tb", "tebibytes"}, 1 << 40},
}

// ParseMemorySize reads a size as MemorySize.parse does: digits, optional whitespace, an
// optional unit (bytes when there is none).
func ParseMemorySize(text string) (MemorySize, error) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return 0, fmt.Errorf("argument is an empty- or whitespace-only string")
	}
	pos := 0
	for pos < len(trimmed) && trimmed[pos] >= '0' && trimmed[pos] <= '9' {
		pos++
	}
	number, unit := trimmed[:pos], strings.ToLower(strings.TrimSpace(trimmed[pos:]))
	if number == "" {
		return 0, fmt.Errorf("text does not start with a number")
	}
	value, err := strconv.ParseInt(number, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the value '%s' cannot be re represented as 64bit number (numeric overflow)", number)
	}
	if unit == "" {
		return MemorySize(value), nil
	}
	for _, u := range memoryUnits {
		for _, l := range u.labels {
			if l == unit {
				if value > math.MaxInt64/int64(u.factor) {
					return 0, fmt.Errorf("the value '%s' cannot be re represented as 64bit number of bytes (numeric overflow)", text)
				}
				return MemorySize(value) * u.factor, nil
			}
		}
	}
	return 0, fmt.Errorf("Memory size unit '%s' does not match any of the recognized units: (b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)", unit) //nolint:staticcheck // Flink's message, verbatim
}

// String renders the size as MemorySize.toHumanReadableString does: "128.000mb (134217728
// bytes)", in the largest unit not above it.
func (m MemorySize) String() string {
	for i := len(memoryUnits) - 1; i > 0; i-- {
		if u := memoryUnits[i]; m >= u.factor {
			return fmt.Sprintf("%.3f%s (%d bytes)", float64(m)/float64(u.factor), u.labels[1], int64(m))
		}
	}
	return fmt.Sprintf("%d bytes", int64(m))
}
