package report

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Figure is one figure of the report as a standalone SVG document.
type Figure struct {
	// Name is a short file-name-safe identifier ("decisions", "levels",
	// "std", "vehicle", "marks").
	Name string
	// Title is the figure's caption.
	Title string
	// SVG is the complete <svg> element, with its namespace.
	SVG []byte
}

// maxTableRows bounds the rows of the episode table; the timeline links
// only to episodes that have a row.
const maxTableRows = 5000

// Figures draws the report's figures, all on the same time axis: the
// decisions with the lanes that share their time (escalations, actions,
// battery, armed, flight mode, mode against decision), one detail of those
// lanes per crowded stretch (detailWindows), the assessment levels, the
// standard deviations, the vehicle and the marks.
func Figures(f *Flight, a Audit) []Figure {
	t := newTimeAxis(f)
	wins := detailWindows(f, t)
	figs := []Figure{lanesFigure(f, a, t, "decisions", "", wins)}
	for i, w := range wins {
		figs = append(figs, lanesFigure(f, a, t.window(w.lo, w.hi), "detail-"+strconv.Itoa(i+1), w.title(i+1, t), nil))
	}
	return append(figs,
		levelsFigure(f, t),
		stdFigure(f, t),
		vehicleFigure(f, a, t),
		marksFigure(f, a, t),
	)
}

// bucketX returns the x extent of bucket i.
func bucketX(f *Flight, t timeAxis, i int) (x0, x1 float64) {
	s := float64(f.BucketStartNs) + float64(i)*float64(f.BucketNs)
	return t.xf(s), t.xf(s + float64(f.BucketNs))
}

// strip draws one row of coloured runs over the buckets: style returns a
// bucket's colour and label (ok false for none); equal neighbours merge into
// one rectangle with a tooltip.
func (s *svgDoc) strip(f *Flight, t timeAxis, y, h float64, name string, style func(i int, b *Bucket) (color, label string, ok bool)) {
	s.stripOn(f, t, y, h, name, colNone, style)
}

// stripOn is strip on a background of colour bg; a style colour of hatch
// draws the run hatched.
func (s *svgDoc) stripOn(f *Flight, t timeAxis, y, h float64, name, bg string, style func(i int, b *Bucket) (color, label string, ok bool)) {
	s.rect(plotLeft, y, plotWidth, h, bg, name+": no data")
	type look struct{ color, label string }
	eachRun(f, t, func(i int, b *Bucket) (look, bool) {
		c, l, ok := style(i, b)
		return look{c, l}, ok
	}, func(k look, i0, i1 int) {
		x0, _ := bucketX(f, t, i0)
		_, x1 := bucketX(f, t, i1)
		s0 := float64(f.BucketStartNs) + float64(i0)*float64(f.BucketNs)
		s1 := s0 + float64(i1-i0+1)*float64(f.BucketNs)
		title := fmt.Sprintf("%s: %s, %s to %s", name, k.label, t.clampedSec(s0), t.clampedSec(s1))
		if k.color == hatch {
			s.hatched(x0, y, max(x1-x0, 1), h, title)
		} else {
			s.rect(x0, y, max(x1-x0, 1), h, k.color, title)
		}
	})
	s.rowLabel(y, h, name)
}

// eachRun calls draw for each run of neighbouring buckets with equal keys,
// first to last; a bucket with no key (ok false) or out of view ends a run.
func eachRun[K comparable](f *Flight, t timeAxis, key func(i int, b *Bucket) (K, bool), draw func(k K, i0, i1 int)) {
	var cur K
	i0, i1 := -1, -1
	flush := func() {
		if i0 >= 0 {
			draw(cur, i0, i1)
			i0 = -1
		}
	}
	for i := range f.Buckets {
		k, ok := key(i, &f.Buckets[i])
		if !ok || !t.bucketVisible(f, i) {
			flush()
			continue
		}
		if i0 >= 0 && k == cur && i1 == i-1 {
			i1 = i
			continue
		}
		flush()
		cur, i0, i1 = k, i, i
	}
	flush()
}

// legend writes coloured swatches with labels from x at y; it returns the
// x after the last item.
func (s *svgDoc) legend(x, y float64, items [][2]string) float64 {
	for _, it := range items {
		s.rect(x, y-10, 12, 12, it[0], "")
		s.text(x+16, y, "start", "12", colInk, it[1])
		x += 16 + textWidth(it[1], 12) + 18
	}
	return x
}

// worstKind returns the most drastic kind in a mask.
func worstKind(mask uint16) (decisions.Kind, bool) {
	if mask&(1<<OtherBit) != 0 {
		return decisions.Kind(255), true
	}
	for i := len(kindOrder) - 1; i >= 0; i-- {
		if mask&(1<<kindOrder[i]) != 0 {
			return kindOrder[i], true
		}
	}
	return 0, false
}

// stripRuns draws the buckets' most drastic kind from stamp from on.
func (s *svgDoc) stripRuns(f *Flight, t timeAxis, y, h float64, from int64, name string) {
	for i := range f.Buckets {
		b := &f.Buckets[i]
		if float64(f.BucketStartNs)+float64(i+1)*float64(f.BucketNs) <= float64(from) || !t.bucketVisible(f, i) {
			continue
		}
		k, ok := worstKind(b.Kinds)
		if !ok {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		s.rect(x0, y, max(x1-x0, 1), h, KindColor(k), name+": "+k.String())
	}
}

// worstLevel returns the worst level in a mask.
func worstLevel(mask uint16) (color, label string, ok bool) {
	switch {
	case mask == 0:
		return "", "", false
	case mask&(1<<OtherBit) != 0:
		return colGrey, "level out of range", true
	case mask&4 != 0:
		return levelColor[decisions.LevelUnknown], "unknown", true
	case mask&2 != 0:
		return levelColor[decisions.LevelUncertain], "uncertain", true
	}
	return levelColor[decisions.LevelKnown], "known", true
}

func levelsFigure(f *Flight, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Self-assessment levels (worst in each time slice)")
	const h, gap = 20, 6
	s.grid(t, y, y+4*(h+gap))
	s.strip(f, t, y, h, "overall", func(_ int, b *Bucket) (string, string, bool) { return worstLevel(b.Overall) })
	for blk, name := range blockNames {
		y += h + gap
		s.strip(f, t, y, h, name, func(_ int, b *Bucket) (string, string, bool) { return worstLevel(b.Block[blk]) })
	}
	y += h + 22
	s.legend(plotLeft, y, [][2]string{
		{levelColor[0], "known"}, {levelColor[1], "uncertain"}, {levelColor[2], "unknown"}, {colNone, "no assessment"},
	})
	s.axis(t, y+12)
	return s.finish("levels", "Self-assessment levels")
}

var blockNames = [3]string{"position", "velocity", "orientation"}
var blockUnits = [3]string{"m", "m/s", "rad"}

func stdFigure(f *Flight, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Standard deviation per axis (largest in each time slice) against the thresholds, log scale")
	const h, gap = 120, 16
	for blk := range 3 {
		s.stdPanel(f, t, y, h, blk)
		y += h + gap
	}
	y += 6
	x := float64(plotLeft)
	for _, it := range []struct{ style, label string }{
		{axisStyle[0], "x"}, {axisStyle[1], "y"}, {axisStyle[2], "z"},
		{thresholdStyle[0], "known threshold (above: uncertain)"}, {thresholdStyle[1], "unknown threshold (above: unknown)"},
	} {
		s.raw(`<line x1="`, num(x), `" y1="`, num(y-4), `" x2="`, num(x+24), `" y2="`, num(y-4), `"`, it.style, `/>`)
		s.text(x+30, y, "start", "12", colInk, it.label)
		x += 30 + textWidth(it.label, 12) + 18
	}
	s.rect(x, y-10, 3, 12, colInk, "")
	s.text(x+8, y, "start", "12", colInk, "no standard deviation (none)")
	s.axis(t, y+12)
	return s.finish("std", "Standard deviation per axis against the thresholds")
}

// stdPanel draws one block's three axes and its two thresholds.
func (s *svgDoc) stdPanel(f *Flight, t timeAxis, top, h float64, blk int) {
	label := blockNames[blk] + " (" + blockUnits[blk] + ")"
	s.grid(t, top, top+h)
	s.frame(top, h)
	s.panelLabel(top, h, label)
	dlo, dhi, ok := stdDecades(f, blk)
	if !ok {
		s.text(plotLeft+plotWidth/2, top+h/2+4, "middle", "12", colMuted, "no standard deviations recorded")
		return
	}
	bottom := top + h
	yOf := func(v float64) float64 {
		l := dlo
		if v > 0 {
			l = math.Log10(v)
		}
		return bottom - (min(max(l, dlo), dhi)-dlo)/(dhi-dlo)*h
	}
	step := math.Ceil((dhi - dlo) / 4)
	for d := dlo; d <= dhi; d += step {
		yy := yOf(math.Pow(10, d))
		s.line(plotLeft-4, yy, plotLeft, yy, colInk, "")
		s.line(plotLeft, yy, plotLeft+plotWidth, yy, colGrid, "")
		s.text(plotLeft-6, yy+4, "end", "10", colMuted, strconv.FormatFloat(math.Pow(10, d), 'g', -1, 64))
	}
	// Thresholds: step lines, carrying the last known ones forward.
	for which, style := range thresholdStyle {
		var p pathBuilder
		var have bool
		var val float64
		for i := range f.Buckets {
			b := &f.Buckets[i]
			if b.HasThresholds {
				k, u := b.Thresholds.Block(blk)
				val, have = [2]float64{k, u}[which], true
			}
			if !have || !t.bucketVisible(f, i) {
				continue
			}
			x0, x1 := bucketX(f, t, i)
			p.stepTo(x0, x1, yOf(val))
		}
		name := [2]string{"known", "unknown"}[which]
		s.raw(`<path d="`, p.String(), `" fill="none"`, style, `><title>`,
			esc(blockNames[blk]+" "+name+" threshold"), "</title></path>")
	}
	// Axes: polylines over bucket centres, broken where there is no value.
	for a := range 3 {
		var p pathBuilder
		for i := range f.Buckets {
			v := f.Buckets[i].StdMax[blk*3+a]
			if math.IsNaN(v) || !t.bucketVisible(f, i) {
				p.breakLine()
				continue
			}
			x0, x1 := bucketX(f, t, i)
			p.lineTo((x0+x1)/2, yOf(v))
		}
		s.raw(`<path d="`, p.String(), `" fill="none"`, axisStyle[a], ` stroke-linejoin="round"><title>`,
			esc(blockNames[blk]+" "+[3]string{"x", "y", "z"}[a]+" std"), "</title></path>")
	}
	// "None": a grey tick under the panel where an axis had no std.
	mask := uint16(7) << (3 * blk)
	for i := range f.Buckets {
		if f.Buckets[i].StdNone&mask == 0 || !t.bucketVisible(f, i) {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		s.rect(x0, bottom-5, max(x1-x0, 1), 5, colInk, blockNames[blk]+": no standard deviation")
	}
}

// stdDecades returns the decades a block's panel spans: every positive
// standard deviation and threshold, with a quarter decade under the
// smallest and a tenth above the largest, so that a value at a whole decade
// is drawn inside the frame, not on it.
func stdDecades(f *Flight, blk int) (dlo, dhi float64, ok bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	for i := range f.Buckets {
		b := &f.Buckets[i]
		for a := range 3 {
			see(b.StdMax[blk*3+a])
		}
		if b.HasThresholds {
			k, u := b.Thresholds.Block(blk)
			see(k)
			see(u)
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 0, false
	}
	dlo, dhi = math.Floor(math.Log10(lo)-0.25), math.Ceil(math.Log10(hi)+0.1)
	if dhi <= dlo {
		dhi = dlo + 1
	}
	return max(dlo, dhi-12), dhi, true // a value a trillion times smaller sits on the floor
}

// pathBuilder writes an SVG path's d attribute.
type pathBuilder struct {
	b    []byte
	open bool
	lx   float64
	ly   float64
}

func (p *pathBuilder) point(cmd byte, x, y float64) {
	p.b = append(p.b, cmd)
	p.b = append(p.b, num(x)...)
	p.b = append(p.b, ' ')
	p.b = append(p.b, num(y)...)
}

func (p *pathBuilder) lineTo(x, y float64) {
	if !p.open {
		p.point('M', x, y)
		p.open = true
	} else {
		p.point('L', x, y)
	}
	p.lx, p.ly = x, y
}

// stepTo draws a horizontal segment at y over [x0, x1], joined vertically
// to the previous one.
func (p *pathBuilder) stepTo(x0, x1, y float64) {
	if p.open && num(y) == num(p.ly) && num(x0) == num(p.lx) {
		p.b = p.b[:len(p.b)-len(num(p.lx))-len(num(p.ly))-2]
		p.point('L', x1, y)
		p.lx = x1
		return
	}
	if p.open {
		p.lineTo(x0, p.ly)
	}
	p.lineTo(x0, y)
	p.lineTo(x1, y)
}

func (p *pathBuilder) breakLine() { p.open = false }

func (p *pathBuilder) String() string {
	if len(p.b) == 0 {
		return "M0 0"
	}
	return string(p.b)
}

func vehicleFigure(f *Flight, a Audit, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Vehicle: battery voltage and perception mode")
	const ph, sh, gap = 70, 20, 8
	s.batteryPanel(f, a, t, y, ph, "battery_v")
	y += ph + gap
	s.grid(t, y, y+sh)
	inForce, have := decisions.PerceptionMode(0), false
	s.namedStrip(f, t, y, sh, "perception mode", func(b *Bucket) (string, string, bool) {
		if b.Perception == 0 {
			if !have {
				return "", "", false
			}
			return modeName(bit(uint8(inForce), 8), perceptionName)
		}
		inForce, have = b.PerceptionLast, true
		return modeName(b.Perception, perceptionName)
	})
	y += sh + 8
	s.axis(t, y+8)
	return s.finish("vehicle", "Vehicle: battery voltage and perception mode")
}

func perceptionName(m int) string { return decisions.PerceptionMode(m).String() }

// modeName names the highest-numbered mode of a mask (the most severe in
// both catalogs), and says when the slice held others.
func modeName(mask uint16, name func(int) string) (short, long string, ok bool) {
	switch {
	case mask == 0:
		return "", "", false
	case mask&(1<<OtherBit) != 0:
		return "?", "outside the catalog", true
	}
	m := 15 - bits.LeadingZeros16(mask)
	short = name(m)
	long = short
	if bits.OnesCount16(mask) > 1 {
		long += " (and others in this time slice)"
	}
	return short, long, true
}

// rangePanel draws the [min, max] band of a value per bucket; it returns
// the panel's value-to-y mapping, nil when there is nothing to draw.
func (s *svgDoc) rangePanel(f *Flight, t timeAxis, top, h float64, label string, sc panelScale, get func(*Bucket) (float64, float64)) func(float64) float64 {
	s.grid(t, top, top+h)
	s.frame(top, h)
	s.panelLabel(top, h, label)
	lo, hi := sc.lo, sc.hi
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || hi <= lo {
		s.text(plotLeft+plotWidth/2, top+h/2+4, "middle", "12", colMuted, "not recorded")
		return nil
	}
	yOf := func(v float64) float64 { return top + h - sc.frac(v)*h }
	ticks := []float64{lo, hi}
	if sc.split > lo && sc.split < hi {
		ticks = append(ticks, sc.split)
		s.line(plotLeft, yOf(sc.split), plotLeft+plotWidth, yOf(sc.split), colGrid, ` stroke-dasharray="1 3"`)
	}
	for _, v := range ticks {
		s.text(plotLeft-6, yOf(v)+4, "end", "10", colMuted, strconv.FormatFloat(v, 'g', 4, 64))
	}
	// Runs of visible buckets with values: the max forward, the min back,
	// closed.
	var runs [][2]int
	start := -1
	for i := range f.Buckets {
		a, _ := get(&f.Buckets[i])
		if !t.bucketVisible(f, i) {
			a = math.NaN()
		}
		switch {
		case !math.IsNaN(a) && start < 0:
			start = i
		case math.IsNaN(a) && start >= 0:
			runs = append(runs, [2]int{start, i - 1})
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, [2]int{start, len(f.Buckets) - 1})
	}
	var p pathBuilder
	for _, r := range runs {
		p.breakLine()
		for i := r[0]; i <= r[1]; i++ {
			_, mx := get(&f.Buckets[i])
			x0, x1 := bucketX(f, t, i)
			p.lineTo(x0, yOf(mx)-0.75)
			p.lineTo(x1, yOf(mx)-0.75)
		}
		for i := r[1]; i >= r[0]; i-- {
			mn, _ := get(&f.Buckets[i])
			x0, x1 := bucketX(f, t, i)
			p.lineTo(x1, yOf(mn)+0.75)
			p.lineTo(x0, yOf(mn)+0.75)
		}
		p.b = append(p.b, 'Z')
	}
	s.raw(`<path d="`, p.String(), `" fill="`, colBattery, `" stroke="none"><title>`, esc(label), "</title></path>")
	return yOf
}

// panelScale maps a value of a range panel to its share of the panel's
// height: linear from lo to hi or, with a split between them, the values
// up to split on the lower splitShare of the height and the rest above,
// so that thresholds close together near the bottom of a wide range are
// told apart.
type panelScale struct{ lo, hi, split float64 }

// splitShare is the share of a split panel's height below its split.
const splitShare = 0.65

// frac is v's height in the panel, from 0 (lo) to 1 (hi), v clamped.
func (sc panelScale) frac(v float64) float64 {
	v = min(max(v, sc.lo), sc.hi)
	if !(sc.split > sc.lo && sc.split < sc.hi) {
		return (v - sc.lo) / (sc.hi - sc.lo)
	}
	if v <= sc.split {
		return (v - sc.lo) / (sc.split - sc.lo) * splitShare
	}
	return splitShare + (v-sc.split)/(sc.hi-sc.split)*(1-splitShare)
}

func marksFigure(f *Flight, a Audit, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Marks: decided without an assessment, rejected inputs, audit problems")
	const h, gap = 20, 6
	s.grid(t, y, y+3*(h+gap))
	for k := MarkNoAssessment; k <= MarkProblem; k++ {
		var marks []Mark
		if k == MarkProblem {
			for _, p := range a.Problems {
				marks = append(marks, Mark{Kind: MarkProblem, StampNs: p.StampNs, LogNs: p.LogNs, Text: p.Text})
			}
		} else {
			for _, m := range f.Marks {
				if m.Kind == k {
					marks = append(marks, m)
				}
			}
		}
		n := [...]uint64{f.Counts.NoAssessment, f.Counts.Rejected, uint64(len(a.Problems)) + a.ProblemsOmitted}[k]
		s.markRow(f, t, y, h, k, n, marks)
		y += h + gap
	}
	s.axis(t, y+4)
	return s.finish("marks", "Marks")
}

// markRowNames label the marks figure's rows, short enough for the margin.
var markRowNames = [...]string{"no assessment", "rejected input", "audit problem"}

// markRow draws one tick per pixel column holding marks, its tooltip the
// count and the first few texts; where marks were omitted, the buckets'
// counts fill in, lighter.
func (s *svgDoc) markRow(f *Flight, t timeAxis, y, h float64, k MarkKind, n uint64, marks []Mark) {
	s.frame(y, h)
	s.rowLabel(y, h, markRowNames[k]+" ("+strconv.FormatUint(n, 10)+")")
	type column struct {
		n     int
		texts []string
	}
	cols := make([]column, plotWidth+1)
	for _, m := range marks {
		c := int(t.x(m.StampNs) - plotLeft)
		c = min(max(c, 0), plotWidth)
		cols[c].n++
		if len(cols[c].texts) < 3 {
			cols[c].texts = append(cols[c].texts, fmtSec(t.seconds(max(m.StampNs, t.origin)))+": "+m.Text)
		}
	}
	for c, col := range cols {
		if col.n == 0 {
			continue
		}
		title := fmt.Sprintf("%d × %s", col.n, k)
		for _, tx := range col.texts {
			title += "\n" + tx
		}
		s.rect(float64(plotLeft+c)-0.5, y, 2, h, colInk, title)
	}
	if f.MarksOmitted == 0 || k == MarkProblem {
		return
	}
	for i := range f.Buckets {
		b := &f.Buckets[i]
		n := b.NoAssessment
		if k == MarkRejected {
			n = b.Rejected
		}
		if n == 0 || !t.bucketVisible(f, i) {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		if cols[min(max(int(x0-plotLeft), 0), plotWidth)].n > 0 {
			continue
		}
		s.raw(`<rect x="`, num(x0), `" y="`, num(y), `" width="`, num(max(x1-x0, 1)), `" height="`, num(h), `" fill="`, colInk,
			`" fill-opacity="0.5"><title>`, esc(fmt.Sprintf("%d × %s (details omitted)", n, k)), "</title></rect>")
	}
}

// fmtSec writes seconds from the start with millisecond precision.
func fmtSec(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) + " s" }
