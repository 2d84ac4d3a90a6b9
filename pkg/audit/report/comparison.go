package report

import "github.com/ghost-robotics/ghost/pkg/decisions"

// Other pages drawn in the report's style (the what-if comparison) use its
// style sheet, palette and figure geometry through what this file exports,
// so that the two never drift apart.

// Style returns the report's style sheet (CSS, system fonts only).
func Style() string { return css }

// Ink is the colour of the report's text, glyphs and marks.
const Ink = colInk

// HatchSwatch is the CSS background of a legend swatch for a hatched
// stretch (DrawLanes' Hatched).
const HatchSwatch = hatchCSS

// TextOn returns the text colour readable on a fill of the report's
// palette (KindColor).
func TextOn(fill string) string { return onColor(fill) }

// KindLane is one row of a lanes figure: the stretches one side decided as
// one kind, in stamp order.
type KindLane struct {
	Label string
	Runs  []KindRun
	// Truncated says the runs stop short of the lane's decisions: the rest
	// is drawn as nothing recorded.
	Truncated bool
}

// KindRun is a stretch decided as one kind: from the stamp of its first
// decision to that of its last, drawn up to the next run's start.
type KindRun struct {
	StartNs, EndNs int64
	Kind           decisions.Kind
	// Title is the stretch's tooltip.
	Title string
}

// Span is a stretch of time with a label.
type Span struct {
	StartNs, EndNs int64
	Label          string
}

// LanesFigure is a figure of decision lanes one above the other on one time
// axis, as the report's decision band draws them.
type LanesFigure struct {
	// Name is the figure's id (fig-NAME); Title its heading.
	Name, Title string
	// OriginNs is where time reads 0 s; StartNs and EndNs bound the window.
	OriginNs, StartNs, EndNs int64
	Lanes                    []KindLane
	// Differ are the stretches where the lanes differ, drawn in a strip
	// under them, labelled DifferLabel.
	Differ      []Span
	DifferLabel string
	// Hatched, when set, is a stretch drawn hatched in a strip of its own
	// (what follows the first command divergence, in a comparison).
	Hatched *Span
	// Marks are stamps marked with a dashed line across every lane.
	Marks []Span
}

// Geometry of a lanes figure.
const (
	laneHeight  = 30
	stripHeight = 14
)

// DrawLanes draws f as a standalone SVG figure in the report's geometry
// and palette.
func DrawLanes(f LanesFigure) Figure {
	var s svgDoc
	t := timeAxis{origin: f.OriginNs, start: f.StartNs, span: max(f.EndNs-f.StartNs, 1)}
	top := s.title(f.Title)
	y := top
	for _, l := range f.Lanes {
		s.kindLane(t, y, laneHeight, &l)
		y += laneHeight + laneGap
	}
	if f.DifferLabel != "" {
		s.grid(t, y, y+stripHeight)
		s.rect(plotLeft, y, plotWidth, stripHeight, colNone, "")
		for _, d := range f.Differ {
			x0, x1 := t.x(d.StartNs), t.x(d.EndNs)
			s.rect(x0, y, max(x1-x0, 1.5), stripHeight, colInk, d.Label)
		}
		s.rowLabel(y, stripHeight, f.DifferLabel)
		y += stripHeight + laneGap
	}
	if h := f.Hatched; h != nil {
		x0, x1 := t.x(h.StartNs), t.x(h.EndNs)
		s.hatched(x0, y, max(x1-x0, 1.5), stripHeight, h.Label)
		s.rowLabel(y, stripHeight, h.Label)
		y += stripHeight + laneGap
	}
	for _, m := range f.Marks {
		x := t.x(m.StartNs)
		s.line(x, top, x, y-laneGap, colInk, ` stroke-width="1.5" stroke-dasharray="4 3"`)
		s.raw("<g><title>", esc(m.Label), "</title>")
		s.text(x+3, y+8, "start", "11", colInk, m.Label)
		s.raw("</g>")
		y += 14
	}
	s.axis(t, y+8)
	return s.finish(f.Name, f.Title)
}

// kindLane draws one lane: a background of nothing recorded, then each run
// in its kind's colour, its kind written in it where it fits.
func (s *svgDoc) kindLane(t timeAxis, y, h float64, l *KindLane) {
	s.grid(t, y, y+h)
	s.rect(plotLeft, y, plotWidth, h, colNone, "no decision")
	for i, r := range l.Runs {
		end := r.EndNs
		if i+1 < len(l.Runs) {
			end = l.Runs[i+1].StartNs
		}
		x0, x1 := t.x(r.StartNs), t.x(end)
		fill := KindColor(r.Kind)
		s.rect(x0, y, max(x1-x0, 1.5), h, fill, r.Title)
		if label := r.Kind.String(); x1-x0 >= textWidth(label, 11)+8 {
			s.text((x0+x1)/2, y+h/2+4, "middle", "11", onColor(fill), label)
		}
	}
	label := l.Label
	if l.Truncated {
		label += " (cut)"
	}
	s.rowLabel(y, h, label)
}

// KindLegend returns the HTML rows of the decision kinds' colours, from
// benign to drastic, in the report's legend table style.
func KindLegend() string {
	var out string
	for _, k := range kindOrder {
		out += `<tr><td><span class="sw" style="background:` + kindColor[k] + `"></span></td><td>decision ` + esc(k.String()) + "</td></tr>\n"
	}
	return out
}
