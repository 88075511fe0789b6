package config

import (
	"fmt"
	"strings"
)

// Markdown is the catalogue as docs/configuration.md carries it: a table of OperatorOptions
// and one of AutoscalerOptions, each option's key, the Apache operator's default, whether
// this operator reads it, and the note.
func Markdown() string {
	var b strings.Builder
	table := func(prefix string, list []Option) {
		b.WriteString("| option | Apache's default | read here | note |\n|---|---|---|---|\n")
		for _, o := range list {
			def := "–"
			if o.Default != "" {
				def = "`" + o.Default + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", prefix+o.Key, def, o.Support, cell(o.Note))
		}
	}
	b.WriteString("### kubernetes.operator.*\n\n")
	table("", OperatorOptions)
	b.WriteString("\n### job.autoscaler.* (also read as kubernetes.operator.job.autoscaler.*)\n\n")
	table(AutoscalerPrefix, AutoscalerOptions)
	return b.String()
}

// cell is s as a table cell: "–" when empty, pipes escaped.
func cell(s string) string {
	if s == "" {
		return "–"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
