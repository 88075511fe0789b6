package harness

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

var timelineTemplate = template.Must(template.New("timeline").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Flinkop timeline</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
pre.header{background:#f6f8fa;padding:.6em .8em;border-radius:4px;white-space:pre-wrap}
table{border-collapse:collapse;font-size:13px;width:100%}
td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
tr.warning td{background:#fff4e5}
tr.violation td{background:#fde0dd;font-weight:600}
.legend span{display:inline-block;margin-right:1.2em;font-size:13px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
svg text{font-size:11px}
svg .band:hover,svg .mark:hover{stroke:#000;stroke-width:1.5}
</style></head><body>
<h1>Flinkop simulation timeline</h1>
{{if .Header}}<pre class="header">{{range .Header}}{{.}}
{{end}}</pre>{{end}}
<p id="summary">{{.Summary}}</p>
<p class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}</p>
{{.SVG}}
<table><tr><th>time</th><th>kind</th><th>resource</th><th>what</th></tr>
{{range .Rows}}<tr class="{{.Class}}"><td>{{.At}}</td><td>{{.Kind}}</td><td>{{.Resource}}</td><td>{{.Text}}</td></tr>
{{end}}</table></body></html>
`))

type timelineRow struct{ At, Kind, Resource, Text, Class string }

type legendItem struct {
	Name  string
	Color template.CSS
}

// timelineLegend names the colours of the annotations and marks; the state bands are named
// inside them and in their tooltips.
var timelineLegend = []legendItem{
	{"spec change", colorSpec},
	{"fault", colorFault},
	{"violation", colorViolation},
	{"Normal event", colorNormal},
	{"Warning event", colorWarning},
	{"checkpoint", colorCheckpoint},
	{"savepoint", colorSavepoint},
	{"restore", colorRestore},
}

// WriteHTML renders the trace as a self-contained HTML page (no script): the header (seed and
// replay command), then per resource its lifecycle, JobManager and job states as bands, its job's
// offset as a line with checkpoint, savepoint and restore marks, and its events (Warnings apart
// from Normal ones), with spec changes, faults and violations drawn across all of its lanes;
// every entry is in the table below. Hover any shape for its text.
func (t *Trace) WriteHTML(w io.Writer) error {
	var end time.Duration
	for _, e := range t.Entries {
		end = max(end, e.Time.Sub(t.start))
	}
	for _, b := range t.Bands {
		end = max(end, b.From.Sub(t.start), b.To.Sub(t.start))
	}
	for _, p := range t.Points {
		end = max(end, p.Time.Sub(t.start))
	}
	end = max(end, time.Second)
	violations := 0
	var rows []timelineRow
	for _, e := range t.Entries {
		class := e.Kind
		if e.Kind == "event" && strings.HasPrefix(e.Text, "Warning ") {
			class = "warning"
		}
		if e.Kind == "violation" {
			violations++
		}
		rows = append(rows, timelineRow{At: e.Time.Sub(t.start).Truncate(time.Millisecond).String(), Kind: e.Kind, Resource: e.Resource, Text: e.Text, Class: class})
	}
	data := struct {
		Header  []string
		Summary string
		Legend  []legendItem
		SVG     template.HTML
		Rows    []timelineRow
	}{
		Header:  t.Header,
		Summary: fmt.Sprintf("%d entries, %d violations, over %s of virtual time.", len(t.Entries), violations, end.Truncate(time.Millisecond)),
		Legend:  timelineLegend,
		SVG:     template.HTML(t.svg(end)), //nolint:gosec // built by svg, which escapes every text it writes
		Rows:    rows,
	}
	if err := timelineTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("render timeline: %w", err)
	}
	return nil
}
