package harness

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// Colours of the timeline's annotations and marks.
const (
	colorSpec       template.CSS = "#1f77b4"
	colorFault      template.CSS = "#d62728"
	colorViolation  template.CSS = "#b10026"
	colorNormal     template.CSS = "#2ca02c"
	colorWarning    template.CSS = "#ff7f0e"
	colorCheckpoint template.CSS = "#969696"
	colorSavepoint  template.CSS = "#3182bd"
	colorRestore    template.CSS = "#31a354"
)

// stateColors colour the bands by state; a state not listed is light grey.
var stateColors = map[string]string{
	"STABLE": "#74c476", "RUNNING": "#74c476", "READY": "#74c476",
	"CREATED": "#d9d9d9", "INITIALIZING": "#c6dbef", "RECONCILING": "#c6dbef",
	"DEPLOYED": "#9ecae1", "DEPLOYING": "#9ecae1", "DEPLOYED_NOT_READY": "#fdd0a2",
	"UPGRADING": "#fdae6b", "RESTARTING": "#fdae6b", "FAILING": "#fd8d3c",
	"ROLLING_BACK": "#fd8d3c", "ROLLED_BACK": "#e6550d",
	"FAILED": "#ef3b2c", "ERROR": "#ef3b2c", "MISSING": "#bdbdbd",
	"SUSPENDED": "#bcbddc", "CANCELLING": "#bdbdbd", "CANCELED": "#bdbdbd", "FINISHED": "#6baed6",
	"DELETING": "#969696",
}

// Geometry of the SVG, in pixels.
const (
	svgWidth, svgLeft, svgRight = 1200, 110, 20
	laneHeight, laneGap         = 16, 3
	offsetHeight                = 64
	sectionGap                  = 22
)

// svgCanvas writes SVG elements, escaping every text and attribute it is given.
type svgCanvas struct {
	b     strings.Builder
	start time.Time
	end   time.Duration
}

func (s *svgCanvas) x(at time.Time) float64 {
	return svgLeft + float64(svgWidth-svgLeft-svgRight)*float64(at.Sub(s.start))/float64(s.end)
}

func (s *svgCanvas) printf(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a text element; label is escaped.
func (s *svgCanvas) text(x, y float64, anchor, fill, label string) {
	s.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s" dominant-baseline="middle">%s</text>`+"\n", x, y, anchor, fill, template.HTMLEscapeString(label))
}

// title is an escaped <title>, the tooltip of the shape it closes.
func title(text string) string { return "<title>" + template.HTMLEscapeString(text) + "</title>" }

// svg draws the trace's resources one section under the other, and the time axis.
func (t *Trace) svg(end time.Duration) string {
	s := &svgCanvas{start: t.start, end: end}
	y := 8.0
	for _, r := range t.resources() {
		y = t.section(s, r, y) + sectionGap
	}
	s.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#999"/>`+"\n", svgLeft, y, svgWidth-svgRight, y)
	for i := 0; i <= 10; i++ {
		at := t.start.Add(end * time.Duration(i) / 10)
		s.text(s.x(at), y+12, "middle", "#666", at.Sub(t.start).Truncate(time.Second).String())
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" role="img" aria-label="timeline">`+"\n%s</svg>",
		svgWidth, y+26, s.b.String())
}

// resources are the trace's resources in the order they first appear.
func (t *Trace) resources() []string {
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, b := range t.Bands {
		add(b.Resource)
	}
	for _, e := range t.Entries {
		add(e.Resource)
	}
	return out
}

// section draws one resource from y down and returns where it ends.
func (t *Trace) section(s *svgCanvas, resource string, top float64) float64 {
	s.printf(`<g class="resource" data-resource="%s">`+"\n", template.HTMLEscapeString(resource))
	s.text(4, top+6, "start", "#000", resource)
	y := top + 16
	hasBands := slices.ContainsFunc(t.Bands, func(b Band) bool { return b.Resource == resource })
	if hasBands {
		for _, lane := range []string{LaneLifecycle, LaneJobManager, LaneJob} {
			t.bands(s, resource, lane, y)
			y += laneHeight + laneGap
		}
		y = t.offsets(s, resource, y) + laneGap
	}
	t.events(s, resource, y)
	y += laneHeight
	t.annotations(s, resource, top+12, y)
	s.printf("</g>\n")
	return y
}

// bands draws one state lane of a resource.
func (t *Trace) bands(s *svgCanvas, resource, lane string, y float64) {
	s.text(svgLeft-6, y+laneHeight/2, "end", "#444", lane)
	for _, b := range t.Bands {
		if b.Resource != resource || b.Lane != lane {
			continue
		}
		to := b.To
		if to.IsZero() {
			to = s.start.Add(s.end)
		}
		x0, x1 := s.x(b.From), s.x(to)
		fill := stateColors[b.Value]
		if fill == "" {
			fill = "#e0e0e0"
		}
		s.printf(`<rect class="band" data-lane="%s" x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s">%s</rect>`+"\n",
			template.HTMLEscapeString(lane), x0, y, max(x1-x0, 0.5), laneHeight, fill,
			title(fmt.Sprintf("%s %s from %s to %s", lane, b.Value, b.From.Sub(s.start).Truncate(time.Millisecond), to.Sub(s.start).Truncate(time.Millisecond))))
		if x1-x0 > float64(7*len(b.Value)) {
			s.text(x0+3, y+laneHeight/2+1, "start", "#222", b.Value)
		}
	}
}
