package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// Geometry of the decisions figure's lanes. The browser check knows where
// the band is: at titleSpace, bandHeight high.
const (
	bandHeight   = 44
	escHeight    = 18
	actionHeight = 58
	batteryH     = 90
	armedHeight  = 16
	modeHeight   = 20
	laneGap      = 6
)

// lanesFigure draws the decision band and the lanes that share its time:
// escalations, the action trail, battery against the policy's thresholds,
// armed, flight mode, and where the mode differs from the decision. The
// full-width figure (details non-nil or empty) also gets the legend and
// marks where the detail figures zoom in; a detail figure has a title.
func lanesFigure(f *Flight, a Audit, t timeAxis, name, title string, details []window) Figure {
	var s svgDoc
	detail := title != ""
	if !detail {
		title = "Decisions, actions and the vehicle's mode (click an episode or an action for its row in the tables)"
	}
	y := s.title(title)
	s.decisionBand(f, t, y, bandHeight)
	y += bandHeight + laneGap
	s.escalationRow(f, a, t, y, escHeight)
	y += escHeight + laneGap
	s.actionLane(f, t, y, actionHeight)
	y += actionHeight + laneGap
	s.batteryPanel(f, a, t, y, batteryH, "battery_pct")
	y += batteryH + laneGap
	s.modeLanes(f, t, y)
	y += armedHeight + 2*modeHeight + 2*laneGap
	if !detail {
		y += 22
		y = s.lanesLegend(f, a, y)
		if len(details) > 0 {
			y += 6
			s.detailMarks(t, y, details)
			y += 18
		}
	}
	s.axis(t, y+8)
	return s.finish(name, title)
}

// decisionBand draws every episode in its kind's colour, linked to its
// row, its kind written in it where it fits.
func (s *svgDoc) decisionBand(f *Flight, t timeAxis, y, h float64) {
	s.grid(t, y, y+h)
	s.rect(plotLeft, y, plotWidth, h, colNone, "no decision")
	drawn := make([]uint16, plotWidth+2)
	for i := range f.Episodes {
		e := &f.Episodes[i]
		end := e.EndNs
		if i == len(f.Episodes)-1 && f.EpisodesOmitted == 0 {
			end = max(end, f.LastStampNs)
		}
		if !t.visible(float64(e.StartNs), float64(end)) {
			continue
		}
		x0, x1 := t.x(e.StartNs), t.x(end)
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
		col0 := KindColor(e.Kind)
		s.rect(x0, y, max(x1-x0, 1.5), h, col0, title)
		if label := e.Kind.String(); x1-x0 >= textWidth(label, 11)+8 {
			s.text((x0+x1)/2, y+h/2+4, "middle", "11", onColor(col0), label)
		}
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
}

// escalationRow draws a mark at each escalation (see Escalation and
// Audit.Escalating), with the change written beside it where it fits.
func (s *svgDoc) escalationRow(f *Flight, a Audit, t timeAxis, y, h float64) {
	s.rowLabel(y, h, "escalation")
	s.line(plotLeft, y+h/2, plotLeft+plotWidth, y+h/2, colGrid, "")
	esc, _ := a.escalations(f)
	for i, e := range esc {
		if !t.visible(float64(e.StampNs), float64(e.StampNs)) {
			continue
		}
		x := t.x(e.StampNs)
		title := fmt.Sprintf("escalation at %s: %s → %s%s after %s", fmtSec(t.seconds(e.StampNs)), e.From, e.To, e.byReason(), e.Why)
		s.glyph('^', x, y+h/2, title)
		label := e.From.String() + " → " + e.To.String()
		room := float64(plotLeft + plotWidth)
		if i+1 < len(esc) {
			room = t.x(esc[i+1].StampNs)
		}
		if x+8+textWidth(label, 11) < room-4 {
			s.text(x+8, y+h/2+4, "start", "11", colInk, label)
		}
	}
}

// actionLane draws each action as a bar in its kind's colour from its
// first receipt to its outcome, with its events as ink shapes and its
// outcome written under it where it fits.
func (s *svgDoc) actionLane(f *Flight, t timeAxis, y, h float64) {
	s.grid(t, y, y+h)
	s.rowLabel(y+6, 22, "actions")
	const glyphY, barY, barH, labelY, labelRow = 7, 14, 8, 37, 13
	s.line(plotLeft, y+barY+barH/2, plotLeft+plotWidth, y+barY+barH/2, colGrid, "")
	if len(f.Actions.Trail) == 0 {
		msg := "no action receipts in this recording: every decision was advisory"
		if f.Actions.Topic != "" {
			msg = "no action receipt could be read"
		}
		s.text(plotLeft+plotWidth/2, y+labelY, "middle", "11", colMuted, msg)
		return
	}
	// Outcome labels go in the first of two rows where they fit.
	labelEnd := [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range f.Actions.Trail {
		a := &f.Actions.Trail[i]
		lo, hi := a.span(f)
		if !t.visible(float64(lo), float64(hi)) {
			continue
		}
		x0, x1 := t.x(lo), t.x(hi)
		link := i < maxActionRows
		if link {
			s.raw(`<a href="#action-`, strconv.FormatUint(a.ID, 10), `">`)
		}
		if a.Sends > 0 {
			s.raw(`<rect x="`, num(x0), `" y="`, num(y+barY), `" width="`, num(max(x1-x0, 2)), `" height="`, num(barH), `" fill="`,
				KindColor(a.Kind), `" stroke="`, colInk, `" stroke-width="0.6"><title>`, esc(a.summary(t)), "</title></rect>")
		} else {
			// Nothing sent: the kind's square stands where a send would.
			s.raw(`<rect x="`, num(x1-4), `" y="`, num(y+glyphY-4), `" width="8" height="8" fill="`, KindColor(a.Kind),
				`" stroke="`, colInk, `" stroke-width="0.6"><title>`, esc(a.summary(t)), "</title></rect>")
		}
		if link {
			s.raw("</a>")
		}
		for _, st := range a.Steps {
			if st.Event.Final() {
				continue // drawn once below, from Outcome
			}
			if g := stepGlyph(st.Event); g != 0 && t.visible(float64(st.AtNs), float64(st.AtNs)) {
				s.glyph(g, t.x(st.AtNs), y+glyphY, stepTitle(t, a, st))
			}
		}
		if a.HasOutcome {
			s.glyph(stepGlyph(a.Outcome.Event), x1, y+barY+barH/2, stepTitle(t, a, a.Outcome))
		}
		label := a.OutcomeText()
		w := textWidth(label, 11)
		lx := min(max(x1, plotLeft+w/2), plotLeft+plotWidth-w/2)
		for row := range labelEnd {
			if lx-w/2 > labelEnd[row]+6 {
				s.text(lx, y+labelY+float64(row)*labelRow, "middle", "11", colInk, label)
				labelEnd[row] = lx + w/2
				break
			}
		}
	}
}

// span is the stretch of the stamp axis an action covers: its first
// receipt to its outcome, or to the end of the recording when still open.
func (a *Action) span(f *Flight) (lo, hi int64) {
	lo = a.DecisionNs
	if len(a.Steps) > 0 {
		lo = a.Steps[0].AtNs
	}
	hi = f.LastStampNs
	if a.HasOutcome {
		hi = a.Outcome.AtNs
	}
	return lo, max(hi, lo)
}

// summary is an action's tooltip: what it executed and each receipt.
func (a *Action) summary(t timeAxis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "action %d: %s via %s (command %s, %d), decided at %s; %s", a.ID, a.Kind, a.Executor, px4.CommandName(a.Command), a.Command,
		fmtSec(t.seconds(a.DecisionNs)), a.OutcomeText())
	for _, st := range a.Steps {
		b.WriteString("\n")
		b.WriteString(stepTitle(t, a, st))
	}
	if a.StepsOmitted > 0 {
		fmt.Fprintf(&b, "\n… %d more receipts", a.StepsOmitted)
	}
	return b.String()
}

func stepTitle(t timeAxis, a *Action, st ActionStep) string {
	s := fmtSec(t.seconds(st.AtNs)) + ": action " + strconv.FormatUint(a.ID, 10) + " " + st.Event.String()
	if st.Attempt > 0 {
		s += " (attempt " + strconv.Itoa(int(st.Attempt)) + ")"
	}
	if st.Failure != FailureNone {
		s += " " + FailureName(st.Failure)
	}
	if st.Ack >= 0 {
		s += ", ack " + decisions.AckResult(st.Ack).String()
	}
	if st.NavState >= 0 {
		s += ", observed " + px4.NavStateLabel(uint8(st.NavState)) + " (nav_state " + strconv.Itoa(int(st.NavState)) + ")"
	}
	return s + ": " + st.Detail
}

// stepGlyph is the shape of an event (see glyph), 0 for none.
func stepGlyph(e ActionEvent) byte {
	switch e {
	case EventSent:
		return 'v'
	case EventRetried:
		return 'r'
	case EventAccepted:
		return 'c'
	case EventEvidenceRejected:
		return 'd'
	case EventReached:
		return 'o'
	case EventFailed, EventRefused:
		return 'x'
	case EventSuperseded:
		return 's'
	}
	return 0
}

// glyph draws one of the action trail's shapes, in ink, centred at x, y:
// 'v' sent, 'r' retried, 'c' accepted, 'd' evidence rejected, 'o'
// reached, 'x' failed or refused, 's' superseded, '^' escalation.
func (s *svgDoc) glyph(g byte, x, y float64, title string) {
	p := func(d string, fill, stroke, width string) {
		s.raw(`<path d="`, d, `" fill="`, fill, `" stroke="`, stroke, `" stroke-width="`, width, `"`)
		if title == "" {
			s.raw("/>")
			return
		}
		s.raw("><title>", esc(title), "</title></path>")
	}
	pt := func(dx, dy float64) string { return num(x+dx) + " " + num(y+dy) }
	switch g {
	case 'v', 'r':
		fill := colInk
		if g == 'r' {
			fill = colWhite
		}
		p("M"+pt(-5, -4)+"L"+pt(5, -4)+"L"+pt(0, 4)+"Z", fill, colInk, "1.2")
	case 'c':
		p("M"+pt(-4.5, 0)+"L"+pt(-1.2, 3.5)+"L"+pt(4.5, -4.5), "none", colInk, "2.2")
	case 'd':
		p("M"+pt(0, -4.5)+"L"+pt(4.5, 0)+"L"+pt(0, 4.5)+"L"+pt(-4.5, 0)+"Z", colWhite, colInk, "1.2")
	case 'o':
		p("M"+pt(-5, 0)+"A5 5 0 1 0 "+pt(5, 0)+"A5 5 0 1 0 "+pt(-5, 0)+"Z", colInk, colWhite, "1")
	case 'x':
		d := "M" + pt(-4.5, -4.5) + "L" + pt(4.5, 4.5) + "M" + pt(-4.5, 4.5) + "L" + pt(4.5, -4.5)
		p(d, "none", colWhite, "5")
		p(d, "none", colInk, "2.4")
	case 's':
		p("M"+pt(-5, 0)+"A5 5 0 1 0 "+pt(5, 0)+"A5 5 0 1 0 "+pt(-5, 0)+"Z"+"M"+pt(-3.5, 3.5)+"L"+pt(3.5, -3.5), colWhite, colInk, "1.5")
	case '^':
		p("M"+pt(-6, 5)+"L"+pt(6, 5)+"L"+pt(0, -6)+"Z", colInk, colWhite, "1")
	}
}

// batteryPanel draws the battery field ("battery_pct" or "battery_v") with
// the policy's thresholds on it, each in the colour of the kind its rule
// decides, and a mark on the threshold where the battery crosses into the
// rule's side. Thresholds close together near empty (PX4's 5, 7 and
// 15 %) get the lower part of a split scale, so their lines stay apart.
func (s *svgDoc) batteryPanel(f *Flight, a Audit, t timeAxis, top, h float64, field string) {
	var ths []Threshold
	for _, th := range a.Thresholds {
		if th.Field == field {
			ths = append(ths, th)
		}
	}
	scale, label, lo, hi := 100.0, "battery (%)", 0.0, 100.0
	get := func(b *Bucket) (float64, float64) { return b.BatteryPctMin * 100, b.BatteryPctMax * 100 }
	if field == "battery_pct" {
		// 0 to 100, or, when the window sees only a low battery, to the
		// tens above it and the thresholds, so they are told apart.
		top := 0.0
		for i := range f.Buckets {
			if _, mx := get(&f.Buckets[i]); !math.IsNaN(mx) && t.bucketVisible(f, i) {
				top = max(top, mx)
			}
		}
		for _, th := range ths {
			top = max(top, th.Value*100)
		}
		hi = min(100, max(10, math.Ceil(top*1.1/10)*10))
	}
	sc := panelScale{lo: lo, hi: hi}
	if field == "battery_pct" {
		sc.split = batterySplit(ths, lo, hi)
	}
	if field == "battery_v" {
		scale, label = 1, "battery (V)"
		get = func(b *Bucket) (float64, float64) { return b.BatteryVMin, b.BatteryVMax }
		lo, hi = math.Inf(1), math.Inf(-1)
		for i := range f.Buckets {
			if b := &f.Buckets[i]; !math.IsNaN(b.BatteryVMin) {
				lo, hi = min(lo, b.BatteryVMin), max(hi, b.BatteryVMax)
			}
		}
		if !math.IsInf(lo, 0) {
			for _, th := range ths {
				lo, hi = min(lo, th.Value), max(hi, th.Value)
			}
		}
		if hi-lo < 0.5 {
			lo, hi = lo-0.25, hi+0.25
		}
		lo, hi = math.Floor(lo), math.Ceil(hi)
		sc = panelScale{lo: lo, hi: hi}
	}
	yOf := s.rangePanel(f, t, top, h, label, sc, get)
	if yOf == nil {
		return
	}
	if len(ths) == 0 {
		s.text(plotLeft+plotWidth-6, top+14, "end", "11", colMuted, "no "+field+" threshold of the policy to draw (it compares none, or it was not given)")
	}
	for _, th := range ths {
		v := th.Value * scale
		col := KindColor(th.Kind)
		what := fmt.Sprintf("%s %s %s: %s (rule %s, reason %s)", field, th.Op, fmtG(th.Value), th.Kind, th.Rule, th.Reason)
		if th.Negated {
			what += ", negated"
		}
		// Cased in ink, so that a light colour (hold's yellow) shows on white.
		yy := yOf(v)
		s.line(plotLeft, yy, plotLeft+plotWidth, yy, colInk, ` stroke-width="3.4" stroke-opacity="0.35" stroke-dasharray="8 4"`)
		s.raw(`<line x1="`, num(plotLeft), `" y1="`, num(yy), `" x2="`, num(plotLeft+plotWidth), `" y2="`, num(yy), `" stroke="`, col,
			`" stroke-width="2" stroke-dasharray="8 4"><title>`, esc("threshold "+what), "</title></line>")
		for _, x := range crossings(f, t, th, scale, get) {
			// A diamond on the threshold's own line: crossings of
			// thresholds close in value and in time stay apart.
			d := fmt.Sprintf("M%s %sl5 5l-5 5l-5 -5z", num(x), num(yy-5))
			s.raw(`<path d="`, d, `" fill="`, col, `" stroke="`, colInk, `" stroke-width="1"><title>`,
				esc("the battery crosses the threshold "+what), "</title></path>")
		}
	}
}

// batterySplit is where a battery panel from lo to hi % splits its scale
// (see panelScale): a little above the highest threshold, rounded to 5 %,
// when that is at most half the range; 0 (no split) otherwise.
func batterySplit(ths []Threshold, lo, hi float64) float64 {
	maxTh := 0.0
	for _, th := range ths {
		maxTh = max(maxTh, th.Value*100)
	}
	if split := math.Ceil(maxTh*1.25/5) * 5; len(ths) > 0 && split > lo && 2*split <= hi {
		return split
	}
	return 0
}

// fmtG writes a threshold with at most 6 significant digits, so that a
// product such as 0.07*100 reads 7.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// maxCrossings bounds the crossings drawn per threshold.
const maxCrossings = 8

// crossings returns the x of each time slice where the battery passes to
// the side of th on which its rule fires, after a slice wholly on the
// other side.
func crossings(f *Flight, t timeAxis, th Threshold, scale float64, get func(*Bucket) (float64, float64)) []float64 {
	var out []float64
	v, below := th.Value*scale, th.below()
	outside := false
	for i := range f.Buckets {
		mn, mx := get(&f.Buckets[i])
		if math.IsNaN(mn) {
			continue
		}
		fires := (below && mn < v) || (!below && mx > v)
		if fires && outside && t.bucketVisible(f, i) && len(out) < maxCrossings {
			x0, _ := bucketX(f, t, i)
			out = append(out, x0)
		}
		outside = !fires
	}
	return out
}

// modeLanes draws armed, the flight mode and where the mode differs from
// the decided kind (compareMode).
func (s *svgDoc) modeLanes(f *Flight, t timeAxis, y float64) {
	s.grid(t, y, y+armedHeight+2*modeHeight+2*laneGap)
	s.namedStrip(f, t, y, armedHeight, "armed", func(b *Bucket) (string, string, bool) {
		switch b.Armed {
		case 0:
			return "", "", false
		case 1:
			return "disarmed", "disarmed", true
		case 2:
			return "armed", "armed", true
		}
		return "armed", "armed and disarmed", true
	})
	y += armedHeight + laneGap
	s.namedStrip(f, t, y, modeHeight, "flight mode", func(b *Bucket) (string, string, bool) {
		return modeName(b.Modes, func(m int) string { return decisions.FlightMode(m).String() })
	})
	y += modeHeight + laneGap
	s.stripOn(f, t, y, modeHeight, "mode ≠ decision", colWhite, func(_ int, b *Bucket) (string, string, bool) {
		ag, k, m := bucketAgreement(b)
		switch ag {
		case differs:
			return hatch, "the vehicle is in " + m.String() + " while the decision is " + k.String(), true
		case agrees:
			return colWhite, "agrees", true
		}
		if b.Kinds == 0 {
			return "", "", false
		}
		return colNone, "not compared", true
	})
	s.frame(y, modeHeight)
}

// namedStrip draws runs of named states as white boxes with their name in
// them where it fits; style gives a bucket's short name and its tooltip.
func (s *svgDoc) namedStrip(f *Flight, t timeAxis, y, h float64, name string, style func(b *Bucket) (short, long string, ok bool)) {
	s.rect(plotLeft, y, plotWidth, h, colNone, name+": no data")
	type names struct{ short, long string }
	eachRun(f, t, func(_ int, b *Bucket) (names, bool) {
		short, long, ok := style(b)
		return names{short, long}, ok
	}, func(k names, i0, i1 int) {
		x0, _ := bucketX(f, t, i0)
		_, x1 := bucketX(f, t, i1)
		s0 := float64(f.BucketStartNs) + float64(i0)*float64(f.BucketNs)
		s1 := float64(f.BucketStartNs) + float64(i1+1)*float64(f.BucketNs)
		title := fmt.Sprintf("%s: %s, %s to %s", name, k.long, t.clampedSec(s0), t.clampedSec(s1))
		s.raw(`<rect x="`, num(x0), `" y="`, num(y), `" width="`, num(max(x1-x0, 1)), `" height="`, num(h), `" fill="`, colWhite,
			`" stroke="`, colMuted, `" stroke-width="0.8"><title>`, esc(title), "</title></rect>")
		if x1-x0 >= textWidth(k.short, 11)+6 {
			s.text((x0+x1)/2, y+h/2+4, "middle", "11", colInk, k.short)
		}
	})
	s.rowLabel(y, h, name)
}

// lanesLegend writes the kinds with their counts, the action shapes and the
// thresholds under the lanes; it returns the y after them.
func (s *svgDoc) lanesLegend(f *Flight, a Audit, y float64) float64 {
	// Only what is drawn: the kinds decided, the events the trail holds,
	// the lanes' marks that occur, the thresholds on the battery plot.
	var items [][2]string
	for _, k := range kindOrder {
		if n := f.Counts.ByKind[k]; n > 0 {
			items = append(items, [2]string{kindColor[k], fmt.Sprintf("%s (%d)", k, n)})
		}
	}
	if f.Counts.OtherKinds > 0 {
		items = append(items, [2]string{colGrey, fmt.Sprintf("outside the catalog (%d)", f.Counts.OtherKinds)})
	}
	for len(items) > 0 {
		s.legend(plotLeft, y, items[:min(4, len(items))])
		items = items[min(4, len(items)):]
		y += 18
	}
	x := float64(plotLeft)
	ev := &f.Actions.ByEvent
	shown, _ := a.escalations(f)
	marks := false
	for _, g := range []struct {
		g     byte
		label string
		drawn bool
	}{{'v', "sent", ev[EventSent] > 0}, {'r', "retried", ev[EventRetried] > 0}, {'c', "accepted", ev[EventAccepted] > 0},
		{'o', "reached", ev[EventReached] > 0}, {'x', "failed", ev[EventFailed]+ev[EventRefused] > 0}, {'s', "superseded", ev[EventSuperseded] > 0},
		{'d', "evidence rejected", ev[EventEvidenceRejected] > 0}, {'^', "escalation", len(shown) > 0}} {
		if !g.drawn {
			continue
		}
		s.glyph(g.g, x+6, y-4, "")
		s.text(x+16, y, "start", "12", colInk, g.label)
		x += 16 + textWidth(g.label, 12) + 14
		marks = true
	}
	if modeDiffers(f) {
		s.hatched(x, y-10, 22, 12, "")
		s.text(x+28, y, "start", "12", colInk, "mode differs from the decision")
		marks = true
	}
	if !marks {
		y -= 18
	}
	ths := drawnThresholds(f, a, "battery_pct")
	if len(ths) == 0 {
		return y + 4
	}
	y += 18
	x = plotLeft
	for _, th := range ths {
		label := fmt.Sprintf("battery %s %s %%: %s (%s)", th.Op, fmtG(th.Value*100), th.Kind, th.Reason)
		s.line(x, y-4, x+22, y-4, colInk, ` stroke-width="3.4" stroke-opacity="0.35" stroke-dasharray="8 4"`)
		s.line(x, y-4, x+22, y-4, KindColor(th.Kind), ` stroke-width="2" stroke-dasharray="8 4"`)
		s.text(x+28, y, "start", "12", colInk, label)
		x += 28 + textWidth(label, 12) + 16
	}
	return y + 4
}

// modeDiffers reports whether some time slice's flight mode differs from
// its decision (the hatched marks of the mode ≠ decision lane).
func modeDiffers(f *Flight) bool {
	for i := range f.Buckets {
		if ag, _, _ := bucketAgreement(&f.Buckets[i]); ag == differs {
			return true
		}
	}
	return false
}

// drawnThresholds are the thresholds of field the battery plot draws:
// none when the recording holds no battery value to draw them against.
func drawnThresholds(f *Flight, a Audit, field string) []Threshold {
	recorded := false
	for i := range f.Buckets {
		b := &f.Buckets[i]
		if field == "battery_pct" && !math.IsNaN(b.BatteryPctMax) || field == "battery_v" && !math.IsNaN(b.BatteryVMax) {
			recorded = true
			break
		}
	}
	var out []Threshold
	for _, th := range a.Thresholds {
		if recorded && th.Field == field {
			out = append(out, th)
		}
	}
	return out
}

// window is a stretch of the time axis drawn again at full width.
type window struct {
	lo, hi            int64
	changes, outcomes int
}

func (w window) title(n int, t timeAxis) string {
	return fmt.Sprintf("Detail %d: %s to %s, %d changes of decision and %d action outcomes in %s", n,
		fmtSec(t.seconds(w.lo)), fmtSec(t.seconds(w.hi)), w.changes, w.outcomes, fmtSpan(uint64(w.hi-w.lo)))
}

// Detail rule: events (changes of decided kind and action outcomes) less
// than detailGap of the width apart chain into a stretch; a stretch of at
// least detailMin events packed tighter than detailPx pixels each on the
// full timeline is drawn again at full width, with a margin, unless it is
// wider than a third of the flight. At most maxDetails, the most crowded.
const (
	detailGap  = 0.03
	detailMin  = 4
	detailPx   = 30
	maxDetails = 3
)

// detailWindows chooses the crowded stretches drawn again in detail.
func detailWindows(f *Flight, t timeAxis) []window {
	if !f.HasStamps || t.span <= 0 {
		return nil
	}
	type event struct {
		at      int64
		outcome bool
	}
	var evs []event
	for i := 1; i < len(f.Episodes); i++ {
		evs = append(evs, event{at: f.Episodes[i].StartNs})
	}
	for i := range f.Actions.Trail {
		if a := &f.Actions.Trail[i]; a.HasOutcome {
			evs = append(evs, event{at: a.Outcome.AtNs, outcome: true})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmpInt64(a.at, b.at) })
	gap := float64(t.span) * detailGap
	var wins []window
	for i := 0; i < len(evs); {
		j := i
		for j+1 < len(evs) && float64(evs[j+1].at)-float64(evs[j].at) < gap {
			j++
		}
		n := j - i + 1
		extent := float64(evs[j].at) - float64(evs[i].at)
		if n >= detailMin && extent/float64(t.span)*plotWidth < float64(n*detailPx) {
			pad := int64(max(extent*0.25, float64(t.span)*0.005))
			w := window{lo: max(timediff.Sub(evs[i].at, pad), f.FirstStampNs), hi: min(timediff.Add(evs[j].at, pad), f.LastStampNs)}
			for _, e := range evs[i : j+1] {
				if e.outcome {
					w.outcomes++
				} else {
					w.changes++
				}
			}
			if w.hi > w.lo && float64(w.hi-w.lo) <= float64(t.span)/3 {
				wins = append(wins, w)
			}
		}
		i = j + 1
	}
	slices.SortStableFunc(wins, func(a, b window) int { return (b.changes + b.outcomes) - (a.changes + a.outcomes) })
	wins = wins[:min(len(wins), maxDetails)]
	slices.SortFunc(wins, func(a, b window) int { return cmpInt64(a.lo, b.lo) })
	return wins
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// detailMarks shows on the full timeline where each detail figure zooms
// in, linked to it.
func (s *svgDoc) detailMarks(t timeAxis, y float64, wins []window) {
	s.rowLabel(y, 14, "details")
	for i, w := range wins {
		x0, x1 := t.x(w.lo), t.x(w.hi)
		n := strconv.Itoa(i + 1)
		s.raw(`<a href="#fig-detail-`, n, `">`)
		s.raw(`<rect x="`, num(x0), `" y="`, num(y), `" width="`, num(max(x1-x0, 2)), `" height="14" fill="`, colWhite, `" stroke="`, colInk,
			`"><title>`, esc("detail "+n+" below: "+fmtSec(t.seconds(w.lo))+" to "+fmtSec(t.seconds(w.hi))), "</title></rect>")
		s.text(x0-3, y+11, "end", "11", colInk, "detail "+n)
		s.raw("</a>")
	}
}
