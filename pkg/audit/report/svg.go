package report

import (
	"html"
	"math"
	"strconv"
	"strings"
)

// Geometry shared by every figure, so their time axes line up exactly.
const (
	figWidth   = 1200
	plotLeft   = 170 // room for row labels
	plotRight  = 20
	plotWidth  = figWidth - plotLeft - plotRight
	axisHeight = 34 // tick labels and axis title under each figure
	titleSpace = 26 // the figure's title above its first row
)

// timeAxis maps stamps to x coordinates: the window [start, start+span]
// fills the plot's width, and times read as seconds from origin, the
// flight's first stamp, in every window.
type timeAxis struct {
	origin      int64
	start, span int64 // ns
}

func newTimeAxis(f *Flight) timeAxis {
	if !f.HasStamps {
		return timeAxis{span: 1e9}
	}
	d := uint64(f.LastStampNs) - uint64(f.FirstStampNs) // exact, as last >= first
	span := int64(min(d, math.MaxInt64))
	if span <= 0 {
		span = 1e9
	}
	return timeAxis{origin: f.FirstStampNs, start: f.FirstStampNs, span: span}
}

// window returns the axis of [lo, hi] with the same origin.
func (t timeAxis) window(lo, hi int64) timeAxis {
	return timeAxis{origin: t.origin, start: lo, span: max(hi-lo, 1)}
}

// x returns the x coordinate of stamp, clamped to the plot.
func (t timeAxis) x(stamp int64) float64 { return t.xf(float64(stamp)) }

// xf is x for a stamp held as a float (bucket edges may pass MaxInt64).
func (t timeAxis) xf(stamp float64) float64 {
	d := (stamp - float64(t.start)) / float64(t.span)
	return plotLeft + min(max(d, 0), 1)*plotWidth
}

// visible reports whether [lo, hi] meets the window.
func (t timeAxis) visible(lo, hi float64) bool {
	return hi >= float64(t.start) && lo <= float64(t.start)+float64(t.span)
}

// seconds returns the stamp as seconds from the origin.
func (t timeAxis) seconds(stamp int64) float64 {
	return (float64(stamp) - float64(t.origin)) / 1e9
}

// xSec is the x coordinate of v seconds from the origin (unclamped).
func (t timeAxis) xSec(v float64) float64 {
	return plotLeft + (v*1e9+float64(t.origin)-float64(t.start))/float64(t.span)*plotWidth
}

// svgDoc accumulates one figure.
type svgDoc struct {
	b      strings.Builder
	height int
}

func (s *svgDoc) raw(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(p)
	}
}

// num formats a coordinate with one decimal, without trailing zeros.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

func esc(s string) string { return html.EscapeString(s) }

func (s *svgDoc) rect(x, y, w, h float64, fill, title string) {
	s.raw(`<rect x="`, num(x), `" y="`, num(y), `" width="`, num(w), `" height="`, num(h), `" fill="`, fill, `"`)
	if title == "" {
		s.raw("/>")
		return
	}
	s.raw("><title>", esc(title), "</title></rect>")
}

func (s *svgDoc) text(x, y float64, anchor, size, fill, body string) {
	s.raw(`<text x="`, num(x), `" y="`, num(y), `" text-anchor="`, anchor, `" font-size="`, size, `"`)
	if fill != "" {
		s.raw(` fill="`, fill, `"`)
	}
	s.raw(">", esc(body), "</text>")
}

func (s *svgDoc) line(x1, y1, x2, y2 float64, stroke, extra string) {
	s.raw(`<line x1="`, num(x1), `" y1="`, num(y1), `" x2="`, num(x2), `" y2="`, num(y2), `" stroke="`, stroke, `"`, extra, "/>")
}

// finish wraps the body in an svg element of the accumulated height.
func (s *svgDoc) finish(name, title string) Figure {
	var out strings.Builder
	h := strconv.Itoa(s.height)
	out.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + strconv.Itoa(figWidth) + " " + h +
		`" width="` + strconv.Itoa(figWidth) + `" height="` + h + `" font-family="sans-serif" font-size="12" role="img" aria-label="` +
		esc(title) + `" id="fig-` + name + `">`)
	out.WriteString(`<rect width="100%" height="100%" fill="#FFFFFF"/>`)
	out.WriteString(s.b.String())
	out.WriteString("</svg>")
	return Figure{Name: name, Title: title, SVG: []byte(out.String())}
}

// title writes the figure's title and returns the y where rows start.
func (s *svgDoc) title(t string) float64 {
	s.raw(`<text x="8" y="17" font-size="14" font-weight="bold" fill="`, colInk, `">`, esc(t), "</text>")
	return titleSpace
}

// rowLabel writes a row's label left of the plot, vertically centred.
func (s *svgDoc) rowLabel(y, h float64, label string) {
	s.text(plotLeft-8, y+h/2+4, "end", "12", colInk, label)
}

// panelLabel writes a panel's label left of its value ticks.
func (s *svgDoc) panelLabel(y, h float64, label string) {
	s.text(plotLeft-44, y+h/2+4, "end", "12", colInk, label)
}

// niceSteps are the tick spacings, in seconds, the time axis chooses from.
var niceSteps = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30,
	60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
}

// ticks returns the tick positions (seconds from the origin) of the
// window.
func (t timeAxis) ticks() (step float64, at []float64) {
	spanS := float64(t.span) / 1e9
	day := niceSteps[len(niceSteps)-1]
	step = day * math.Ceil(spanS/12/day) // whole days beyond the table
	for _, s := range niceSteps {
		if spanS/s <= 12 {
			step = s
			break
		}
	}
	lo := (float64(t.start) - float64(t.origin)) / 1e9
	first := math.Ceil(lo/step-1e-9) * step
	for n := 0; n <= 13; n++ {
		v := first + float64(n)*step
		if v > lo+spanS*(1+1e-9) {
			break
		}
		at = append(at, v)
	}
	return step, at
}

// tickLabel writes v seconds for a step: "12 s", "1:30", "2:00 h".
func tickLabel(v, step float64) string {
	switch {
	case step < 1:
		return strconv.FormatFloat(v, 'f', decimals(step), 64) + " s"
	case step < 60:
		return strconv.FormatFloat(v, 'f', 0, 64) + " s"
	case step < 3600:
		m := int64(v) / 60
		return strconv.FormatInt(m, 10) + " min"
	}
	return strconv.FormatInt(int64(v)/3600, 10) + " h"
}

func decimals(step float64) int {
	d := 0
	for step < 1-1e-12 && d < 6 {
		step *= 10
		d++
	}
	return d
}

// grid draws the vertical tick lines over [top, bottom].
func (s *svgDoc) grid(t timeAxis, top, bottom float64) {
	_, at := t.ticks()
	for _, v := range at {
		x := t.xSec(v)
		s.line(x, top, x, bottom, colGrid, "")
	}
}

// axis draws the time axis at y with its ticks and labels, and sets the
// figure's height.
func (s *svgDoc) axis(t timeAxis, y float64) {
	s.line(plotLeft, y, plotLeft+plotWidth, y, colInk, "")
	step, at := t.ticks()
	for _, v := range at {
		x := t.xSec(v)
		s.line(x, y, x, y+4, colInk, "")
		s.text(x, y+16, "middle", "11", colInk, tickLabel(v, step))
	}
	s.text(plotLeft-24, y+16, "end", "11", colMuted, "time from start")
	s.height = int(math.Ceil(y)) + axisHeight - 12
}

// bucketVisible reports whether bucket i meets the axis's window.
func (t timeAxis) bucketVisible(f *Flight, i int) bool {
	s0 := float64(f.BucketStartNs) + float64(i)*float64(f.BucketNs)
	return t.visible(s0, s0+float64(f.BucketNs))
}

// clampedSec writes a stamp held as a float, clamped to the window, as
// seconds from the origin.
func (t timeAxis) clampedSec(stamp float64) string {
	lo, hi := float64(t.start), float64(t.start)+float64(t.span)
	return fmtSec((min(max(stamp, lo), hi) - float64(t.origin)) / 1e9)
}

// frame outlines a panel of height h at top.
func (s *svgDoc) frame(top, h float64) {
	s.raw(`<rect x="`, num(plotLeft), `" y="`, num(top), `" width="`, num(plotWidth), `" height="`, num(h), `" fill="none" stroke="`, colFrame, `"/>`)
}

// hatch stands for the hatching of "the vehicle's mode differs" in strip
// styles; it is drawn with lines, not a colour.
const hatch = "hatch"

// hatched draws a white rectangle crossed by ink diagonals 5 px apart.
func (s *svgDoc) hatched(x, y, w, h float64, title string) {
	s.raw("<g><title>", esc(title), "</title>")
	s.rect(x, y, w, h, colWhite, "")
	var p pathBuilder
	for k := x - h; k < x+w; k += 5 {
		// The diagonal from (k, y+h) to (k+h, y), cut to [x, x+w].
		x0, x1 := max(k, x), min(k+h, x+w)
		if x1 <= x0 {
			continue
		}
		p.breakLine()
		p.lineTo(x0, y+h-(x0-k))
		p.lineTo(x1, y+h-(x1-k))
	}
	s.raw(`<path d="`, p.String(), `" stroke="`, colInk, `" stroke-width="1.2" fill="none"/>`)
	s.raw(`<rect x="`, num(x), `" y="`, num(y), `" width="`, num(w), `" height="`, num(h), `" fill="none" stroke="`, colInk, `"/></g>`)
}

// textWidth estimates the width of text in the sans-serif font at size px.
func textWidth(text string, size float64) float64 {
	return float64(len([]rune(text))) * size * 0.56
}

// axisStyle draws the x, y and z standard deviations: x wide and grey under
// a thin ink y, so that equal values still show both; z dashed.
var axisStyle = [3]string{
	` stroke="` + colAxisX + `" stroke-width="5"`,
	` stroke="` + colInk + `" stroke-width="1.5"`,
	` stroke="` + colInk + `" stroke-width="1.5" stroke-dasharray="5 3"`,
}

// thresholdStyle draws the known and unknown thresholds in the colour of
// the level above them.
var thresholdStyle = [2]string{
	` stroke="` + colUncertain + `" stroke-width="2" stroke-dasharray="6 4"`,
	` stroke="` + colUnknown + `" stroke-width="2" stroke-dasharray="6 4"`,
}
