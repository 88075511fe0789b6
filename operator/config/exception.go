package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Keys of status.error's JSON (Apache's FlinkResourceException), operator-wide or per
// namespace, as Apache reads them.
const (
	KeyExceptionFieldMaxLength      = "kubernetes.operator.exception.field.max.length"
	KeyExceptionLabelMapper         = "kubernetes.operator.exception.label.mapper"
	KeyExceptionStackTrace          = "kubernetes.operator.exception.stacktrace.enabled"
	KeyExceptionStackTraceMaxLength = "kubernetes.operator.exception.stacktrace.max.length"
	KeyExceptionThrowableMaxCount   = "kubernetes.operator.exception.throwable.list.max.count"
	// MaxExceptionField bounds the field and stack trace lengths (status.error stays small).
	MaxExceptionField = 8192
	// MaxThrowables bounds the causes listed.
	MaxThrowables = 10
	// MaxLabelRules bounds the label mapper's rules.
	MaxLabelRules = 20
)

// ExceptionOptions shape status.error's JSON. Comparable: the label mapper is kept as written.
type ExceptionOptions struct {
	// FieldMaxLength cuts its type and message (and each cause's).
	FieldMaxLength int
	// StackTrace adds the failed job's stack trace, cut to StackTraceMaxLength.
	StackTrace          bool
	StackTraceMaxLength int
	// ThrowableMaxCount bounds the causes listed.
	ThrowableMaxCount int
	// LabelMapper is Flink's map "regex:label,…": an error whose message or a cause's
	// matches a regex carries its label in additionalMetadata.labels.
	LabelMapper string
}

// DefaultExceptionOptions are Apache's.
func DefaultExceptionOptions() ExceptionOptions {
	return ExceptionOptions{FieldMaxLength: 2048, StackTraceMaxLength: 2048, ThrowableMaxCount: 2}
}

// LabelRule is one rule of the label mapper.
type LabelRule struct {
	Pattern *regexp.Regexp
	Label   string
}

// LabelRules parses the label mapper, in its order (malformed: none; read refuses it).
func (e ExceptionOptions) LabelRules() []LabelRule {
	rules, _ := labelRules(e.LabelMapper)
	return rules
}

func labelRules(v string) ([]LabelRule, error) {
	entries, err := flinkMapEntries(v)
	if err != nil {
		return nil, err
	}
	var out []LabelRule
	for _, kv := range entries {
		re, err := regexp.Compile(kv[0])
		if err != nil {
			return nil, fmt.Errorf("%q is not a regular expression: %w", kv[0], err)
		}
		out = append(out, LabelRule{Pattern: re, Label: kv[1]})
	}
	if len(out) > MaxLabelRules {
		return nil, fmt.Errorf("%d rules, at most %d", len(out), MaxLabelRules)
	}
	return out, nil
}

// read overrides e with the exception keys of conf; it returns an error for each malformed or
// out-of-bounds value.
func (e *ExceptionOptions) read(conf map[string]string) []string {
	var errs []string
	count := func(key string, dst *int, limit int) {
		if v, ok := conf[key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || n > limit {
				errs = append(errs, fmt.Sprintf("%s: %q is not a number from 0 to %d", key, v, limit))
				return
			}
			*dst = n
		}
	}
	count(KeyExceptionFieldMaxLength, &e.FieldMaxLength, MaxExceptionField)
	if e.FieldMaxLength == 0 {
		// Apache takes 0 and writes an empty type, which no reader can tell from a message.
		errs = append(errs, fmt.Sprintf("%s: 0 would leave the error without its type; at least 1", KeyExceptionFieldMaxLength))
	}
	count(KeyExceptionStackTraceMaxLength, &e.StackTraceMaxLength, MaxExceptionField)
	count(KeyExceptionThrowableMaxCount, &e.ThrowableMaxCount, MaxThrowables)
	if v, ok := conf[KeyExceptionStackTrace]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %q is not true or false", KeyExceptionStackTrace, v))
		} else {
			e.StackTrace = b
		}
	}
	if v, ok := conf[KeyExceptionLabelMapper]; ok {
		if _, err := labelRules(v); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", KeyExceptionLabelMapper, err))
		} else {
			e.LabelMapper = v
		}
	}
	return errs
}
