package harness

import (
	"fmt"
	"html/template"
	"io"
	"time"
)

// kindColors colour the timeline's markers by entry kind.
var kindColors = map[string]string{
	"spec": "#1f77b4", "stage": "#7f7f7f", "fault": "#d62728", "event": "#2ca02c",
	"state": "#9467bd", "error": "#ff7f0e", "violation": "#d62728",
}

var timelineTemplate = template.Must(template.New("timeline").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Flinkop timeline</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px;width:100%}
td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.kind{font-weight:600}
.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px}
</style></head><body>
<h1>Flinkop simulation timeline</h1>
<p>{{len .Rows}} entries over {{.Span}} of virtual time.</p>
<p class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Kind}}</span>{{end}}</p>
<svg width="{{.Width}}" height="{{.Height}}" role="img" aria-label="timeline">
{{range .Lanes}}<text x="4" y="{{.Y}}" font-size="11" fill="#444" dominant-baseline="middle">{{.Kind}}</text>{{end}}
<line x1="{{.Left}}" y1="{{.Axis}}" x2="{{.AxisEnd}}" y2="{{.Axis}}" stroke="#999"/>
{{range .Ticks}}<text x="{{.X}}" y="{{.Y}}" font-size="10" fill="#666" text-anchor="middle">{{.Label}}</text>{{end}}
{{range .Rows}}<circle cx="{{.X}}" cy="{{.Lane}}" r="4" fill="{{.Color}}"><title>{{.At}} {{.Kind}} {{.Resource}}: {{.Text}}</title></circle>
{{end}}</svg>
<table><tr><th>time</th><th>kind</th><th>resource</th><th>what</th></tr>
{{range .Rows}}<tr><td>{{.At}}</td><td class="kind" style="color:{{.Color}}">{{.Kind}}</td><td>{{.Resource}}</td><td>{{.Text}}</td></tr>
{{end}}</table></body></html>
`))

type timelineRow struct {
	At, Kind, Resource, Text string
	Color                    template.CSS
	X, Lane                  int
}

// WriteHTML renders the trace as a self-contained HTML page: an SVG timeline with one lane per
// entry kind (hover a dot for its text) and the full table below.
func (t *Trace) WriteHTML(w io.Writer) error {
	const width, left, right = 1100, 80, 30
	var end time.Duration
	for _, e := range t.Entries {
		end = max(end, e.Time.Sub(t.start))
	}
	end = max(end, time.Second)
	lanes := map[string]int{}
	order := []string{"spec", "stage", "fault", "state", "event", "error", "violation"}
	for i, k := range order {
		lanes[k] = 20 + i*18
	}
	var laneList []struct {
		Kind string
		Y    int
	}
	for _, k := range order {
		laneList = append(laneList, struct {
			Kind string
			Y    int
		}{k, lanes[k]})
	}
	data := struct {
		Rows                               []timelineRow
		Span                               string
		Width, Height, Axis, AxisEnd, Left int
		Lanes                              []struct {
			Kind string
			Y    int
		}
		Ticks []struct {
			X, Y  int
			Label string
		}
		Legend []struct {
			Kind  string
			Color template.CSS
		}
	}{Span: end.String(), Width: width, Height: 20 + len(order)*18 + 30, AxisEnd: width - right, Left: left}
	data.Axis = data.Height - 25
	data.Lanes = laneList
	x := func(d time.Duration) int { return left + int(float64(width-left-right)*float64(d)/float64(end)) }
	for _, e := range t.Entries {
		lane, ok := lanes[e.Kind]
		if !ok {
			lane = lanes["state"]
		}
		data.Rows = append(data.Rows, timelineRow{
			At: e.Time.Sub(t.start).Truncate(time.Millisecond).String(), Kind: e.Kind, Resource: e.Resource, Text: e.Text,
			Color: template.CSS(kindColors[e.Kind]), X: x(e.Time.Sub(t.start)), Lane: lane,
		})
	}
	for i := 0; i <= 10; i++ {
		d := end * time.Duration(i) / 10
		data.Ticks = append(data.Ticks, struct {
			X, Y  int
			Label string
		}{x(d), data.Axis + 14, d.Truncate(time.Second).String()})
	}
	for _, k := range order {
		data.Legend = append(data.Legend, struct {
			Kind  string
			Color template.CSS
		}{k, template.CSS(kindColors[k])})
	}
	if err := timelineTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("render timeline: %w", err)
	}
	return nil
}
