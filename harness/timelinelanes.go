package harness

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// offsets draws a resource's job offset as a line through the points fakeflink recorded, with
// its snapshot and restore marks, from y down; it returns where it ends.
func (t *Trace) offsets(s *svgCanvas, resource string, y float64) float64 {
	var pts []Point
	var top int64 = 1
	for _, p := range t.Points {
		if p.Resource == resource {
			pts = append(pts, p)
			top = max(top, p.Offset)
		}
	}
	slices.SortStableFunc(pts, func(a, b Point) int { return a.Time.Compare(b.Time) })
	yOf := func(off int64) float64 { return y + offsetHeight - 2 - float64(off)/float64(top)*(offsetHeight-6) }
	s.text(svgLeft-6, y+offsetHeight/2-6, "end", "#444", "job offset")
	s.text(svgLeft-6, y+offsetHeight/2+7, "end", "#888", fmt.Sprintf("0–%d", top))
	s.printf(`<rect x="%d" y="%.1f" width="%d" height="%d" fill="#fafafa" stroke="#eee"/>`+"\n", svgLeft, y, svgWidth-svgLeft-svgRight, offsetHeight)
	if len(pts) > 0 {
		var line strings.Builder
		for _, p := range pts {
			fmt.Fprintf(&line, "%.1f,%.1f ", s.x(p.Time), yOf(p.Offset))
		}
		s.printf(`<polyline class="offset" points="%s" fill="none" stroke="#444" stroke-width="1.2"/>`+"\n", strings.TrimSpace(line.String()))
	}
	for _, m := range t.Marks {
		if m.Resource != resource {
			continue
		}
		x, my := s.x(m.Time), yOf(m.Offset)
		tip := title(fmt.Sprintf("%s %s", m.Time.Sub(s.start).Truncate(time.Millisecond), m.Text))
		switch m.Kind {
		case MarkCheckpoint:
			s.printf(`<circle class="mark" data-kind="checkpoint" cx="%.1f" cy="%.1f" r="2" fill="%s">%s</circle>`+"\n", x, my, colorCheckpoint, tip)
		case MarkSavepoint:
			s.printf(`<polygon class="mark" data-kind="savepoint" points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s">%s</polygon>`+"\n",
				x, my-5, x+5, my, x, my+5, x-5, my, colorSavepoint, tip)
		default:
			s.printf(`<polygon class="mark" data-kind="restore" points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s" stroke="#fff">%s</polygon>`+"\n",
				x, my-6, x+5, my+3, x-5, my+3, colorRestore, tip)
		}
	}
	return y + offsetHeight
}

// events draws a resource's events (Warnings as triangles, Normal ones as dots), operator
// errors and notes, in one lane at y.
func (t *Trace) events(s *svgCanvas, resource string, y float64) {
	s.text(svgLeft-6, y+laneHeight/2, "end", "#444", "events")
	mid := y + laneHeight/2
	for _, e := range t.Entries {
		if e.Resource != resource {
			continue
		}
		x := s.x(e.Time)
		tip := title(fmt.Sprintf("%s %s: %s", e.Time.Sub(s.start).Truncate(time.Millisecond), e.Kind, e.Text))
		switch {
		case e.Kind == "event" && strings.HasPrefix(e.Text, "Warning "):
			s.printf(`<polygon class="mark" data-kind="warning" points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s">%s</polygon>`+"\n",
				x, mid-6, x+6, mid+5, x-6, mid+5, colorWarning, tip)
		case e.Kind == "event":
			s.printf(`<circle class="mark" data-kind="normal" cx="%.1f" cy="%.1f" r="4" fill="%s">%s</circle>`+"\n", x, mid, colorNormal, tip)
		case e.Kind == "error":
			s.printf(`<path class="mark" data-kind="error" d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="#636363" stroke-width="1.5">%s</path>`+"\n", x-3, mid-3, tip)
		case e.Kind == "state":
			s.printf(`<circle class="mark" data-kind="state" cx="%.1f" cy="%.1f" r="3" fill="#9467bd">%s</circle>`+"\n", x, mid, tip)
		}
	}
}

// annotationStyle is how each kind of annotation is drawn across a resource's lanes.
var annotationStyle = map[string]struct {
	color template.CSS
	width float64
	dash  string
}{
	"spec": {colorSpec, 1, "3,2"}, "fault": {colorFault, 1.2, "6,3"}, "stage": {"#7f7f7f", 1, "1,3"},
	"violation": {colorViolation, 2.5, ""},
}

// annotations draws the spec changes, faults, stages and violations of a resource (and those of
// no resource, which hold for all) as vertical lines from top to bottom; a violation is labelled.
func (t *Trace) annotations(s *svgCanvas, resource string, top, bottom float64) {
	var notes []Entry
	for _, e := range t.Entries {
		if _, ok := annotationStyle[e.Kind]; ok && (e.Resource == resource || e.Resource == "") {
			notes = append(notes, e)
		}
	}
	// Violations last, on top of the rest.
	slices.SortStableFunc(notes, func(a, b Entry) int {
		return cmp.Compare(boolInt(a.Kind == "violation"), boolInt(b.Kind == "violation"))
	})
	for _, e := range notes {
		st, x := annotationStyle[e.Kind], s.x(e.Time)
		dash := ""
		if st.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
		}
		s.printf(`<line class="annotation" data-kind="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"%s>%s</line>`+"\n",
			e.Kind, x, top, x, bottom, st.color, st.width, dash, title(fmt.Sprintf("%s %s: %s", e.Time.Sub(s.start).Truncate(time.Millisecond), e.Kind, e.Text)))
		if e.Kind == "violation" {
			s.text(x+4, top, "start", string(colorViolation), "violation")
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
