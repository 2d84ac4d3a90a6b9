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

// Figures draws the report's figures, all on the same time axis.
func Figures(f *Flight, a Audit) []Figure {
	t := newTimeAxis(f)
	return []Figure{
		decisionsFigure(f, t),
		levelsFigure(f, t),
		stdFigure(f, t),
		vehicleFigure(f, t),
		marksFigure(f, a, t),
	}
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
	s.rect(plotLeft, y, plotWidth, h, colNone, name+": no data")
	type run struct {
		color, label string
		i0, i1       int
	}
	var cur *run
	flush := func() {
		if cur == nil {
			return
		}
		x0, _ := bucketX(f, t, cur.i0)
		_, x1 := bucketX(f, t, cur.i1)
		s0 := float64(f.BucketStartNs) + float64(cur.i0)*float64(f.BucketNs)
		s1 := s0 + float64(cur.i1-cur.i0+1)*float64(f.BucketNs)
		lo, hi := float64(t.start), float64(t.start)+float64(t.span)
		title := fmt.Sprintf("%s: %s, %s to %s", name, cur.label,
			fmtSec((min(max(s0, lo), hi)-lo)/1e9), fmtSec((min(max(s1, lo), hi)-lo)/1e9))
		s.rect(x0, y, max(x1-x0, 1), h, cur.color, title)
		cur = nil
	}
	for i := range f.Buckets {
		c, l, ok := style(i, &f.Buckets[i])
		if !ok {
			flush()
			continue
		}
		if cur != nil && cur.color == c && cur.label == l && cur.i1 == i-1 {
			cur.i1 = i
			continue
		}
		flush()
		cur = &run{color: c, label: l, i0: i, i1: i}
	}
	flush()
	s.rowLabel(y, h, name)
}

// legend writes coloured swatches with labels from x at y; it returns the
// x after the last item.
func (s *svgDoc) legend(x, y float64, items [][2]string) float64 {
	for _, it := range items {
		s.rect(x, y-10, 12, 12, it[0], "")
		s.text(x+16, y, "start", "12", colInk, it[1])
		x += 16 + float64(7*len([]rune(it[1]))) + 18
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

func decisionsFigure(f *Flight, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Decisions by kind (click an episode for its row in the table)")
	const h = 44
	s.grid(t, y, y+h)
	s.rect(plotLeft, y, plotWidth, h, colNone, "no decision")
	var drawn = make([]uint16, plotWidth+2)
	for i := range f.Episodes {
		e := &f.Episodes[i]
		x0 := t.x(e.StartNs)
		end := e.EndNs
		if i == len(f.Episodes)-1 && f.EpisodesOmitted == 0 {
			end = max(end, f.LastStampNs)
		}
		x1 := t.x(end)
		col := int(x0) - plotLeft
		kb := bit(uint8(e.Kind), decisions.NumKinds)
		if col >= 0 && col < len(drawn) {
			if x1-x0 < 1 && drawn[col]&kb != 0 {
				continue // this pixel already shows this kind
			}
			drawn[col] |= kb
		}
		title := fmt.Sprintf("episode %d: %s, %s to %s (%s), %d decisions, reason %s",
			e.N, e.Kind, fmtSec(t.seconds(e.StartNs)), fmtSec(t.seconds(e.EndNs)), fmtSpan(uint64(e.EndNs)-uint64(e.StartNs)), e.Decisions, e.Reason())
		link := e.N <= maxTableRows
		if link {
			s.raw(`<a href="#episode-`, strconv.Itoa(e.N), `">`)
		}
		s.rect(x0, y, max(x1-x0, 1.5), h, KindColor(e.Kind), title)
		if link {
			s.raw("</a>")
		}
	}
	if f.EpisodesOmitted > 0 && len(f.Episodes) > 0 {
		// Episodes past the cap: the buckets' kinds, most drastic first.
		from := f.Episodes[len(f.Episodes)-1].EndNs
		s.stripRuns(f, t, y, h, from, "decision (episode details omitted)")
	}
	s.rowLabel(y, h, "decision")
	y += h + 22
	var items [][2]string
	for _, k := range kindOrder {
		items = append(items, [2]string{kindColor[k], fmt.Sprintf("%s (%d)", k, f.Counts.ByKind[k])})
	}
	if f.Counts.OtherKinds > 0 {
		items = append(items, [2]string{colGrey, fmt.Sprintf("outside the catalog (%d)", f.Counts.OtherKinds)})
	}
	s.legend(plotLeft, y-6, items[:4])
	s.legend(plotLeft, y+12, items[4:])
	s.axis(t, y+24)
	return s.finish("decisions", "Decisions by kind")
}

// stripRuns draws the buckets' most drastic kind from stamp from on.
func (s *svgDoc) stripRuns(f *Flight, t timeAxis, y, h float64, from int64, name string) {
	for i := range f.Buckets {
		b := &f.Buckets[i]
		if float64(f.BucketStartNs)+float64(i+1)*float64(f.BucketNs) <= float64(from) {
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
	x := s.legend(plotLeft, y, [][2]string{{axisColor[0], "x"}, {axisColor[1], "y"}, {axisColor[2], "z"}})
	for _, th := range []struct{ color, label string }{{colGreen, "known threshold"}, {colVermilion, "unknown threshold"}} {
		s.line(x, y-4, x+24, y-4, th.color, ` stroke-width="2" stroke-dasharray="6 4"`)
		s.text(x+30, y, "start", "12", colInk, th.label)
		x += 30 + float64(7*len(th.label)) + 18
	}
	s.rect(x, y-10, 12, 12, colGrey, "")
	s.text(x+16, y, "start", "12", colInk, "no standard deviation (none)")
	s.axis(t, y+12)
	return s.finish("std", "Standard deviation per axis against the thresholds")
}

// stdPanel draws one block's three axes and its two thresholds.
func (s *svgDoc) stdPanel(f *Flight, t timeAxis, top, h float64, blk int) {
	label := blockNames[blk] + " (" + blockUnits[blk] + ")"
	s.grid(t, top, top+h)
	s.raw(`<rect x="`, num(plotLeft), `" y="`, num(top), `" width="`, num(plotWidth), `" height="`, num(h), `" fill="none" stroke="#BBBBBB"/>`)
	s.panelLabel(top, h, label)
	// The range: every positive value and threshold, in whole decades.
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
		s.text(plotLeft+plotWidth/2, top+h/2+4, "middle", "12", "#555555", "no standard deviations recorded")
		return
	}
	dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dhi <= dlo {
		dhi = dlo + 1
	}
	dlo = max(dlo, dhi-12) // a value a trillion times smaller sits on the floor
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
		s.line(plotLeft, yy, plotLeft+plotWidth, yy, "#EEEEEE", "")
		s.text(plotLeft-6, yy+4, "end", "10", "#555555", strconv.FormatFloat(math.Pow(10, d), 'g', -1, 64))
	}
	// Thresholds: step lines, carrying the last known ones forward.
	for which, color := range []string{colGreen, colVermilion} {
		var p pathBuilder
		var have bool
		var val float64
		for i := range f.Buckets {
			b := &f.Buckets[i]
			if b.HasThresholds {
				k, u := b.Thresholds.Block(blk)
				val, have = [2]float64{k, u}[which], true
			}
			if !have {
				continue
			}
			x0, x1 := bucketX(f, t, i)
			p.stepTo(x0, x1, yOf(val))
		}
		name := [2]string{"known", "unknown"}[which]
		s.raw(`<path d="`, p.String(), `" fill="none" stroke="`, color, `" stroke-width="2" stroke-dasharray="6 4"><title>`,
			esc(blockNames[blk]+" "+name+" threshold"), "</title></path>")
	}
	// Axes: polylines over bucket centres, broken where there is no value.
	for a := range 3 {
		var p pathBuilder
		for i := range f.Buckets {
			v := f.Buckets[i].StdMax[blk*3+a]
			if math.IsNaN(v) {
				p.breakLine()
				continue
			}
			x0, x1 := bucketX(f, t, i)
			p.lineTo((x0+x1)/2, yOf(v))
		}
		s.raw(`<path d="`, p.String(), `" fill="none" stroke="`, axisColor[a], `" stroke-width="1.5" stroke-linejoin="round"><title>`,
			esc(blockNames[blk]+" "+[3]string{"x", "y", "z"}[a]+" std"), "</title></path>")
	}
	// "None": a grey tick under the panel where an axis had no std.
	mask := uint16(7) << (3 * blk)
	for i := range f.Buckets {
		if f.Buckets[i].StdNone&mask == 0 {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		s.rect(x0, bottom-5, max(x1-x0, 1), 5, colGrey, blockNames[blk]+": no standard deviation")
	}
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

func vehicleFigure(f *Flight, t timeAxis) Figure {
	var s svgDoc
	y := s.title("Vehicle: battery, armed state, flight mode and perception mode")
	const ph, sh, gap = 70, 20, 8
	s.rangePanel(f, t, y, ph, "battery (%)", 0, 100, func(b *Bucket) (float64, float64) {
		return b.BatteryPctMin * 100, b.BatteryPctMax * 100
	})
	y += ph + gap
	vlo, vhi := math.Inf(1), math.Inf(-1)
	for i := range f.Buckets {
		b := &f.Buckets[i]
		if !math.IsNaN(b.BatteryVMin) {
			vlo, vhi = min(vlo, b.BatteryVMin), max(vhi, b.BatteryVMax)
		}
	}
	if vhi-vlo < 0.5 {
		vlo, vhi = vlo-0.25, vhi+0.25
	}
	s.rangePanel(f, t, y, ph, "battery (V)", math.Floor(vlo), math.Ceil(vhi), func(b *Bucket) (float64, float64) {
		return b.BatteryVMin, b.BatteryVMax
	})
	y += ph + gap
	s.grid(t, y, y+3*(sh+gap))
	s.strip(f, t, y, sh, "armed", func(_ int, b *Bucket) (string, string, bool) {
		switch b.Armed {
		case 0:
			return "", "", false
		case 1:
			return "#DDDDDD", "disarmed", true
		case 2:
			return "#555555", "armed", true
		}
		return "#555555", "armed and disarmed", true
	})
	y += sh + gap
	var modesSeen uint16
	s.strip(f, t, y, sh, "flight mode", func(_ int, b *Bucket) (string, string, bool) {
		modesSeen |= b.Modes
		return modeStyle(b.Modes, flightModeColor[:], func(m int) string { return decisions.FlightMode(m).String() })
	})
	y += sh + gap
	var percSeen uint16
	inForce, have := decisions.PerceptionMode(0), false
	s.strip(f, t, y, sh, "perception mode", func(_ int, b *Bucket) (string, string, bool) {
		if b.Perception == 0 {
			if !have {
				return "", "", false
			}
			return modeStyle(bit(uint8(inForce), 8), perceptionColor[:], perceptionName)
		}
		percSeen |= b.Perception
		inForce, have = b.PerceptionLast, true
		return modeStyle(b.Perception, perceptionColor[:], perceptionName)
	})
	y += sh + 22
	var items [][2]string
	for m := range flightModeColor {
		if modesSeen&(1<<m) != 0 {
			items = append(items, [2]string{flightModeColor[m], "mode " + decisions.FlightMode(m).String()})
		}
	}
	items = append(items, [2]string{"#555555", "armed"})
	s.legend(plotLeft, y, items)
	y += 18
	items = items[:0]
	for m := range perceptionColor {
		if percSeen&(1<<m) != 0 {
			items = append(items, [2]string{perceptionColor[m], perceptionName(m)})
		}
	}
	if len(items) > 0 {
		s.legend(plotLeft, y, items)
		y += 4
	}
	s.axis(t, y+8)
	return s.finish("vehicle", "Vehicle: battery, armed state, flight mode and perception mode")
}

func perceptionName(m int) string { return decisions.PerceptionMode(m).String() }

// modeStyle shows the highest-numbered mode of a mask (the most severe in
// both catalogs); grey for one outside the catalog.
func modeStyle(mask uint16, colors []string, name func(int) string) (string, string, bool) {
	switch {
	case mask == 0:
		return "", "", false
	case mask&(1<<OtherBit) != 0:
		return colGrey, "outside the catalog", true
	}
	m := 15 - bits.LeadingZeros16(mask)
	label := name(m)
	if bits.OnesCount16(mask) > 1 {
		label += " (and others in this time slice)"
	}
	return colors[m], label, true
}

// rangePanel draws the [min, max] band of a value per bucket.
func (s *svgDoc) rangePanel(f *Flight, t timeAxis, top, h float64, label string, lo, hi float64, get func(*Bucket) (float64, float64)) {
	s.grid(t, top, top+h)
	s.raw(`<rect x="`, num(plotLeft), `" y="`, num(top), `" width="`, num(plotWidth), `" height="`, num(h), `" fill="none" stroke="#BBBBBB"/>`)
	s.panelLabel(top, h, label)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || hi <= lo {
		s.text(plotLeft+plotWidth/2, top+h/2+4, "middle", "12", "#555555", "not recorded")
		return
	}
	yOf := func(v float64) float64 { return top + h - (min(max(v, lo), hi)-lo)/(hi-lo)*h }
	for _, v := range []float64{lo, hi} {
		s.text(plotLeft-6, yOf(v)+4, "end", "10", "#555555", strconv.FormatFloat(v, 'g', 4, 64))
	}
	// Runs of buckets with values: the max forward, the min back, closed.
	var runs [][2]int
	start := -1
	for i := range f.Buckets {
		a, _ := get(&f.Buckets[i])
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
	s.raw(`<path d="`, p.String(), `" fill="`, colBlue, `" fill-opacity="0.75" stroke="none"><title>`, esc(label), "</title></path>")
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
		s.markRow(f, t, y, h, k, marks)
		y += h + gap
	}
	y += 16
	s.legend(plotLeft, y, [][2]string{
		{markColor[MarkNoAssessment], MarkNoAssessment.String() + fmt.Sprintf(" (%d)", f.Counts.NoAssessment)},
		{markColor[MarkRejected], MarkRejected.String() + fmt.Sprintf(" (%d)", f.Counts.Rejected)},
		{markColor[MarkProblem], MarkProblem.String() + fmt.Sprintf(" (%d)", uint64(len(a.Problems))+a.ProblemsOmitted)},
	})
	s.axis(t, y+12)
	return s.finish("marks", "Marks")
}

// markRow draws one tick per pixel column holding marks, its tooltip the
// count and the first few texts; where marks were omitted, the buckets'
// counts fill in, lighter.
func (s *svgDoc) markRow(f *Flight, t timeAxis, y, h float64, k MarkKind, marks []Mark) {
	s.rect(plotLeft, y, plotWidth, h, "#F7F7F7", "")
	s.rowLabel(y, h, k.String())
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
			cols[c].texts = append(cols[c].texts, fmtSec(t.seconds(max(m.StampNs, t.start)))+": "+m.Text)
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
		s.rect(float64(plotLeft+c)-0.5, y, 2, h, markColor[k], title)
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
		if n == 0 {
			continue
		}
		x0, x1 := bucketX(f, t, i)
		if cols[min(max(int(x0-plotLeft), 0), plotWidth)].n > 0 {
			continue
		}
		s.raw(`<rect x="`, num(x0), `" y="`, num(y), `" width="`, num(max(x1-x0, 1)), `" height="`, num(h), `" fill="`, markColor[k],
			`" fill-opacity="0.5"><title>`, esc(fmt.Sprintf("%d × %s (details omitted)", n, k)), "</title></rect>")
	}
}

// fmtSec writes seconds from the start with millisecond precision.
func fmtSec(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) + " s" }
