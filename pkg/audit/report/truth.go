package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ghost-robotics/ghost/internal/timediff"
)

// Truth is a belief-honesty audit as the report shows it: the truth's
// source, the audit's per-axis summary, and, per time slice of the Flight
// and per axis, the range of the true error and the largest claimed
// standard deviation. The audit itself is the caller's (package honesty):
// this package only draws it. Build it with a TruthCollector.
type Truth struct {
	// Source names the truth; Verdict and Reason are the audit's (honest,
	// overconfident and how, or none and why).
	Source, Verdict, Reason string
	// Rows summarize each axis, in the assessment's order.
	Rows []TruthRow
	// Notes qualify the numbers, one line each.
	Notes []string

	buckets []truthBucket // parallel to the Flight's Buckets
}

// TruthRow is one axis of the audit's summary.
type TruthRow struct {
	Axis, Unit     string
	KnownThreshold float64
	// Samples are the beliefs compared; KnownViolations of the
	// KnownClaims exceeded the known threshold, UnknownButWithin of the
	// UnknownClaims (uncertain or unknown) were within it.
	Samples, KnownClaims, KnownViolations, UnknownClaims, UnknownButWithin uint64
	// KnownViolationsS and UnknownButWithinS are their times (s).
	KnownViolationsS, UnknownButWithinS float64
	// RMSNormalized is the RMS of error over claimed deviation; NaN when
	// no claim had a deviation.
	RMSNormalized float64
}

// truthBucket is one time slice of the truth figures.
type truthBucket struct {
	errMin, errMax, stdMax [9]float64 // NaN where nothing was seen
}

// TruthCollector puts an audit's compared beliefs onto a Flight's time
// slices.
type TruthCollector struct {
	f *Flight
	t *Truth
}

// NewTruthCollector returns a collector onto f's buckets.
func NewTruthCollector(f *Flight) *TruthCollector {
	t := &Truth{buckets: make([]truthBucket, len(f.Buckets))}
	nan := math.NaN()
	for i := range t.buckets {
		b := &t.buckets[i]
		for a := range 9 {
			b.errMin[a], b.errMax[a], b.stdMax[a] = nan, nan, nan
		}
	}
	return &TruthCollector{f: f, t: t}
}

// Add takes one compared belief: per axis its true error and claimed
// standard deviation (NaN for none). A stamp outside the Flight's slices
// is left out.
func (c *TruthCollector) Add(stampNs int64, err, std [9]float64) {
	if c.f.BucketNs <= 0 || stampNs < c.f.BucketStartNs {
		return
	}
	i := timediff.Sub(stampNs, c.f.BucketStartNs) / c.f.BucketNs
	if i >= int64(len(c.t.buckets)) {
		return
	}
	b := &c.t.buckets[i]
	for a := range 9 {
		if e := err[a]; !math.IsNaN(e) {
			b.errMin[a], b.errMax[a] = nanMin(b.errMin[a], e), nanMax(b.errMax[a], e)
		}
		if s := std[a]; !math.IsNaN(s) && !math.IsInf(s, 0) {
			b.stdMax[a] = nanMax(b.stdMax[a], s)
		}
	}
}

// Finish returns the Truth collected, to set as the Flight's.
func (c *TruthCollector) Finish(source, verdict, reason string, rows []TruthRow, notes []string) *Truth {
	c.t.Source, c.t.Verdict, c.t.Reason, c.t.Rows, c.t.Notes = source, verdict, reason, rows, notes
	return c.t
}

// TruthFigures draws, per block, the true error of each axis against the
// claimed ±1σ and ±3σ band, on the Flight's time axis; none without a
// Truth.
func TruthFigures(f *Flight) []Figure {
	if f.Truth == nil || len(f.Truth.buckets) != len(f.Buckets) {
		return nil
	}
	t := newTimeAxis(f)
	var out []Figure
	for blk := range 3 {
		out = append(out, truthFigure(f, t, blk))
	}
	return out
}

func truthFigure(f *Flight, t timeAxis, blk int) Figure {
	var s svgDoc
	y := s.title(fmt.Sprintf("True %s error per axis against the claimed ±1σ and ±3σ (widest in each time slice)", blockNames[blk]))
	const h, gap = 90, 14
	for a := range 3 {
		s.truthPanel(f, t, y, h, blk*3+a)
		y += h + gap
	}
	y += 6
	x := float64(plotLeft)
	for _, it := range []struct{ fill, op, label string }{{colSky, "0.25", "claimed ±3σ"}, {colSky, "0.55", "claimed ±1σ"}} {
		s.raw(`<rect x="`, num(x), `" y="`, num(y-10), `" width="12" height="12" fill="`, it.fill, `" fill-opacity="`, it.op, `"/>`)
		s.text(x+16, y, "start", "12", colInk, it.label)
		x += 16 + float64(7*len(it.label)) + 18
	}
	s.line(x, y-4, x+24, y-4, colGreen, ` stroke-width="2" stroke-dasharray="6 4"`)
	s.text(x+30, y, "start", "12", colInk, "± known threshold")
	x += 30 + 7*17 + 18
	x = s.legend(x, y, [][2]string{{axisColor[0], "x"}, {axisColor[1], "y"}, {axisColor[2], "z"}})
	s.rect(x, y-10, 12, 12, colGrey, "")
	s.text(x+16, y, "start", "12", colInk, "no deviation claimed")
	s.axis(t, y+12)
	name := "truth-" + blockNames[blk]
	return s.finish(name, fmt.Sprintf("True %s error against the claimed deviation", blockNames[blk]))
}

// truthPanel draws axis ax: the ±3σ and ±1σ bands, the ± known threshold,
// and the range of the true error in each time slice.
func (s *svgDoc) truthPanel(f *Flight, t timeAxis, top, h float64, ax int) {
	blk := ax / 3
	tr := f.Truth
	label := blockNames[blk] + " " + [3]string{"x", "y", "z"}[ax%3] + " (" + blockUnits[blk] + ")"
	s.grid(t, top, top+h)
	s.raw(`<rect x="`, num(plotLeft), `" y="`, num(top), `" width="`, num(plotWidth), `" height="`, num(h), `" fill="none" stroke="#BBBBBB"/>`)
	s.panelLabel(top, h, label)
	// The range: the largest error and known threshold, so a huge claimed
	// deviation fills the panel instead of flattening the errors.
	r := 0.0
	for i := range tr.buckets {
		b := &tr.buckets[i]
		if !math.IsNaN(b.errMax[ax]) {
			r = max(r, math.Abs(b.errMin[ax]), math.Abs(b.errMax[ax]))
		}
		if f.Buckets[i].HasThresholds {
			k, _ := f.Buckets[i].Thresholds.Block(blk)
			r = max(r, k)
		}
	}
	if r == 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		s.text(plotLeft+plotWidth/2, top+h/2+4, "middle", "12", "#555555", "no belief compared with the truth")
		return
	}
	r *= 1.15
	mid := top + h/2
	yOf := func(v float64) float64 { return mid - min(max(v, -r), r)/r*h/2 }
	for _, v := range []float64{-r, 0, r} {
		yy := yOf(v)
		s.line(plotLeft-4, yy, plotLeft, yy, colInk, "")
		s.text(plotLeft-6, yy+4, "end", "10", "#555555", strconv.FormatFloat(v, 'g', 3, 64))
	}
	s.line(plotLeft, mid, plotLeft+plotWidth, mid, "#CCCCCC", "")
	for i := range tr.buckets {
		b := &tr.buckets[i]
		x0, x1 := bucketX(f, t, i)
		w := max(x1-x0, 1)
		if sd := b.stdMax[ax]; !math.IsNaN(sd) {
			for _, k := range []struct {
				n  float64
				op string
			}{{3, "0.25"}, {1, "0.55"}} {
				y0, y1 := yOf(k.n*sd), yOf(-k.n*sd)
				s.raw(`<rect x="`, num(x0), `" y="`, num(y0), `" width="`, num(w), `" height="`, num(max(y1-y0, 0.5)),
					`" fill="`, colSky, `" fill-opacity="`, k.op, `"/>`)
			}
		} else if !math.IsNaN(b.errMax[ax]) {
			s.rect(x0, top+h-5, w, 5, colGrey, label+": no deviation claimed")
		}
	}
	s.knownLines(f, t, blk, yOf)
	for i := range tr.buckets {
		b := &tr.buckets[i]
		if math.IsNaN(b.errMax[ax]) {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		y0, y1 := yOf(b.errMax[ax]), yOf(b.errMin[ax])
		title := fmt.Sprintf("%s: error %.3g to %.3g, claimed σ %s", label, b.errMin[ax], b.errMax[ax], strconv.FormatFloat(b.stdMax[ax], 'g', 3, 64))
		s.rect(x0, y0-0.75, max(x1-x0, 1), max(y1-y0, 0)+1.5, axisColor[ax%3], title)
	}
}

// knownLines draws the block's ± known threshold as dashed step lines.
func (s *svgDoc) knownLines(f *Flight, t timeAxis, blk int, yOf func(float64) float64) {
	for _, sign := range []float64{1, -1} {
		var p pathBuilder
		have, val := false, 0.0
		for i := range f.Buckets {
			b := &f.Buckets[i]
			if b.HasThresholds {
				val, _ = b.Thresholds.Block(blk)
				have = true
			}
			if !have {
				continue
			}
			x0, x1 := bucketX(f, t, i)
			p.stepTo(x0, x1, yOf(sign*val))
		}
		if have {
			s.raw(`<path d="`, p.String(), `" fill="none" stroke="`, colGreen, `" stroke-width="1.5" stroke-dasharray="6 4"><title>`,
				esc(blockNames[blk]+" known threshold"), "</title></path>")
		}
	}
}

// truthSection writes the report's section on the audit against the
// truth: the summary table and the figures.
func (p *printer) truthSection(f *Flight, a Audit) {
	tr := f.Truth
	if tr == nil {
		if a.TruthHint != "" {
			p.s("<h2>Beliefs against the truth</h2>\n", `<p class="note">`, esc(a.TruthHint), "</p>\n")
		}
		return
	}
	p.s("<h2>Beliefs against the truth</h2>\n")
	p.s(`<p>Truth: `, esc(tr.Source), `. `)
	if tr.Verdict == "none" || tr.Verdict == "" {
		p.s(`<span class="note">No verdict: `, esc(tr.Reason), `</span></p>`, "\n")
		return
	}
	p.s(`A KNOWN claim whose true error exceeds the known threshold is overconfident; an UNCERTAIN or UNKNOWN claim whose true error is within it is underconfident. `,
		`e/σ is the error over the claimed standard deviation: its RMS is 1 for honest claims.</p>`, "\n")
	p.s(`<table><tr><th>axis</th><th class="num">known threshold</th><th class="num">compared</th><th class="num">known claims</th>`,
		`<th class="num">beyond known (time)</th><th class="num">doubted claims</th><th class="num">within known (time)</th><th class="num">RMS e/σ</th></tr>`, "\n")
	for _, r := range tr.Rows {
		rms := "–"
		if !math.IsNaN(r.RMSNormalized) {
			rms = strconv.FormatFloat(r.RMSNormalized, 'f', 2, 64)
		}
		p.s(`<tr><td class="mono">`, esc(r.Axis), `</td><td class="num">`, esc(strconv.FormatFloat(r.KnownThreshold, 'g', -1, 64)+" "+r.Unit),
			`</td><td class="num">`, strconv.FormatUint(r.Samples, 10), `</td><td class="num">`, strconv.FormatUint(r.KnownClaims, 10),
			`</td><td class="num">`, strconv.FormatUint(r.KnownViolations, 10), ` (`, fmtSec(r.KnownViolationsS), `)</td><td class="num">`,
			strconv.FormatUint(r.UnknownClaims, 10), `</td><td class="num">`, strconv.FormatUint(r.UnknownButWithin, 10), ` (`, fmtSec(r.UnknownButWithinS),
			`)</td><td class="num">`, rms, "</td></tr>\n")
	}
	p.s("</table>\n")
	for _, n := range tr.Notes {
		p.s(`<p class="note">`, esc(n), "</p>\n")
	}
	for _, fig := range TruthFigures(f) {
		p.s(`<figure>`)
		p.b(fig.SVG)
		p.s("</figure>\n")
	}
}
