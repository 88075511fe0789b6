package autoscale

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// Chart geometry, in SVG units.
const (
	chartWidth  = 1100
	panelHeight = 150
	panelGap    = 36
	marginLeft  = 70
	marginRight = 20
)

// palette colours the vertices' lines.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// series is one line of a panel.
type series struct {
	name   string
	colour string
	values []float64
	step   bool
}

// panel is one chart of the page: its title, unit, lines, and an optional band to shade.
type panel struct {
	title    string
	lines    []series
	band     [2]float64
	hasBand  bool
	fixedTop float64
}

// WriteHTML writes the trace as an HTML page of four SVG panels over virtual time (input
// rate and capacity; parallelism per vertex; utilization per vertex with the target band;
// backlog), every decision a dashed line across them with its report on hover.
func (r Run) WriteHTML(w io.Writer, tr Trace, title string) error {
	if len(tr.Points) == 0 {
		return fmt.Errorf("the trace has no points")
	}
	n := len(tr.Points[0].Parallelism)
	in, capacity, backlog := series{name: "input rate", colour: "#444"}, series{name: "capacity", colour: "#1f77b4", step: true}, series{name: "backlog", colour: "#d62728"}
	par := make([]series, n)
	util := make([]series, n)
	for i := range n {
		colour := palette[i%len(palette)]
		par[i] = series{name: r.Spec.Vertices[i].Name, colour: colour, step: true}
		util[i] = series{name: r.Spec.Vertices[i].Name, colour: colour}
	}
	for _, p := range tr.Points {
		in.values, capacity.values, backlog.values = append(in.values, p.Input), append(capacity.values, p.Capacity), append(backlog.values, p.Backlog)
		for i := range n {
			par[i].values = append(par[i].values, float64(p.Parallelism[i]))
			util[i].values = append(util[i].values, p.Utilization[i])
		}
	}
	lo, hi := r.Config.Band()
	panels := []panel{
		{title: "records per second", lines: []series{in, capacity}},
		{title: "parallelism", lines: par},
		{title: "utilization (busy share)", lines: util, band: [2]float64{lo, hi}, hasBand: true, fixedTop: 1},
		{title: "backlog (records)", lines: []series{backlog}},
	}
	height := len(panels)*(panelHeight+panelGap) + 30
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><meta charset=utf-8><title>%s</title>\n<body style=\"font-family:sans-serif\">\n<h3>%s</h3>\n", html.EscapeString(title), html.EscapeString(title))
	fmt.Fprintf(&b, "<p>%d decisions over %v; dashed lines mark them (hover for the report).</p>\n", len(tr.Events), tr.Points[len(tr.Points)-1].At)
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">\n", chartWidth, height)
	end := tr.Points[len(tr.Points)-1].At
	x := func(at time.Duration) float64 {
		return marginLeft + float64(at)/float64(end)*float64(chartWidth-marginLeft-marginRight)
	}
	for k, p := range panels {
		top := float64(k*(panelHeight+panelGap) + 20)
		drawPanel(&b, p, tr, x, top)
	}
	for _, e := range tr.Events {
		fmt.Fprintf(&b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"10\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"3,3\"><title>%s</title></line>\n",
			x(e.At), x(e.At), height-10, html.EscapeString(fmt.Sprintf("%v: %v → %v\n%s", e.At, e.From, e.To, e.Decision.Report())))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// drawPanel draws one panel at top: its frame, band, axis labels, lines and legend.
func drawPanel(b *strings.Builder, p panel, tr Trace, x func(time.Duration) float64, top float64) {
	hi := p.fixedTop
	for _, s := range p.lines {
		for _, v := range s.values {
			hi = max(hi, v)
		}
	}
	hi = max(hi*1.05, 1e-9)
	y := func(v float64) float64 { return top + panelHeight - v/hi*panelHeight }
	left, right := float64(marginLeft), float64(chartWidth-marginRight)
	fmt.Fprintf(b, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", left, top-6, html.EscapeString(p.title))
	if p.hasBand {
		fmt.Fprintf(b, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"#2ca02c\" opacity=\"0.12\"/>\n", left, y(p.band[1]), right-left, y(p.band[0])-y(p.band[1]))
	}
	fmt.Fprintf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%d\" fill=\"none\" stroke=\"#ccc\"/>\n", left, top, right-left, panelHeight)
	fmt.Fprintf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n", left-4, top+10, humanize(hi), left-4, top+panelHeight)
	end := tr.Points[len(tr.Points)-1].At
	for _, frac := range []float64{0, 0.25, 0.5, 0.75, 1} {
		at := time.Duration(frac * float64(end)).Round(time.Minute)
		fmt.Fprintf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#666\">%s</text>\n", x(at), top+panelHeight+12, at)
	}
	for i, s := range p.lines {
		var pts strings.Builder
		prev := math.NaN()
		for k, v := range s.values {
			px, py := x(tr.Points[k].At), y(v)
			if s.step && !math.IsNaN(prev) {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px, prev)
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", px, py)
			prev = py
		}
		fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>\n", s.colour, pts.String())
		fmt.Fprintf(b, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\" text-anchor=\"end\">%s</text>\n", right-4, top+12+float64(i)*13, s.colour, html.EscapeString(s.name))
	}
}

// humanize prints an axis value shortly (1.2k, 3.4M).
func humanize(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
