package report

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func TestCompareMode(t *testing.T) {
	const (
		init, manual, stab, off = decisions.FlightModeInit, decisions.FlightModeManual, decisions.FlightModeStabilize, decisions.FlightModeOffboard
		rtl, land, kill         = decisions.FlightModeRTL, decisions.FlightModeLand, decisions.FlightModeKill
	)
	type want struct {
		agree, differ []decisions.FlightMode
	}
	named := []decisions.FlightMode{manual, stab, off, rtl, land, kill}
	tests := []struct {
		kind decisions.Kind
		want want
	}{
		{decisions.KindProceed, want{[]decisions.FlightMode{manual, stab, off}, []decisions.FlightMode{rtl, land, kill}}},
		{decisions.KindHold, want{nil, named}},
		{decisions.KindYieldToPilot, want{[]decisions.FlightMode{manual, stab}, []decisions.FlightMode{off, rtl, land, kill}}},
		{decisions.KindEngageRTL, want{[]decisions.FlightMode{rtl}, []decisions.FlightMode{manual, stab, off, land, kill}}},
		{decisions.KindEngageLand, want{[]decisions.FlightMode{land}, []decisions.FlightMode{manual, stab, off, rtl, kill}}},
		{decisions.KindEngageKill, want{[]decisions.FlightMode{kill}, []decisions.FlightMode{manual, stab, off, rtl, land}}},
		{decisions.KindAbstainUncertain, want{nil, nil}},
	}
	in := func(m decisions.FlightMode, ms []decisions.FlightMode) bool {
		for _, x := range ms {
			if x == m {
				return true
			}
		}
		return false
	}
	for _, tc := range tests {
		for m := init; m.Valid(); m++ {
			exp := notCompared
			switch {
			case in(m, tc.want.agree):
				exp = agrees
			case in(m, tc.want.differ):
				exp = differs
			}
			if got := compareMode(tc.kind, m, true); got != exp {
				t.Errorf("%s with mode %s armed: %d, want %d", tc.kind, m, got, exp)
			}
			// Disarmed: land and kill are met, nothing else is compared.
			exp = notCompared
			if tc.kind == decisions.KindEngageLand || tc.kind == decisions.KindEngageKill {
				exp = agrees
			}
			if got := compareMode(tc.kind, m, false); got != exp {
				t.Errorf("%s with mode %s disarmed: %d, want %d", tc.kind, m, got, exp)
			}
		}
		if got := compareMode(tc.kind, decisions.FlightMode(9), true); got != notCompared {
			t.Errorf("%s with a mode outside the catalog: %d", tc.kind, got)
		}
	}
	if got := compareMode(decisions.Kind(9), off, true); got != notCompared {
		t.Errorf("a kind outside the catalog: %d", got)
	}
	if len(ModeMapping()) != decisions.NumKinds {
		t.Errorf("the mapping lists %d kinds", len(ModeMapping()))
	}
}

func TestBucketAgreement(t *testing.T) {
	kb := func(ks ...decisions.Kind) uint16 {
		var b uint16
		for _, k := range ks {
			b |= 1 << k
		}
		return b
	}
	tests := []struct {
		name string
		b    Bucket
		want agreement
		kind decisions.Kind
		mode decisions.FlightMode
	}{
		{"proceed in rtl", Bucket{Kinds: kb(decisions.KindProceed), Modes: modeBits(decisions.FlightModeRTL), Armed: 2}, differs, decisions.KindProceed, decisions.FlightModeRTL},
		{"proceed in offboard", Bucket{Kinds: kb(decisions.KindProceed), Modes: modeBits(decisions.FlightModeOffboard), Armed: 2}, agrees, decisions.KindProceed, decisions.FlightModeOffboard},
		{"a change of kind in the slice", Bucket{Kinds: kb(decisions.KindProceed, decisions.KindEngageRTL), Modes: modeBits(decisions.FlightModeRTL), Armed: 2}, agrees, decisions.KindEngageRTL, decisions.FlightModeRTL},
		{"a change of mode in the slice", Bucket{Kinds: kb(decisions.KindEngageLand), Modes: modeBits(decisions.FlightModeOffboard, decisions.FlightModeLand), Armed: 2}, agrees, decisions.KindEngageLand, decisions.FlightModeLand},
		{"hold, disarmed", Bucket{Kinds: kb(decisions.KindHold), Modes: modeBits(decisions.FlightModeOffboard), Armed: 1}, notCompared, 0, 0},
		{"no decision", Bucket{Modes: modeBits(decisions.FlightModeOffboard), Armed: 2}, notCompared, 0, 0},
		{"no status", Bucket{Kinds: kb(decisions.KindHold)}, notCompared, 0, 0},
	}
	for _, tc := range tests {
		ag, k, m := bucketAgreement(&tc.b)
		if ag != tc.want || (ag != notCompared && (k != tc.kind || m != tc.mode)) {
			t.Errorf("%s: %d %s %s, want %d %s %s", tc.name, ag, k, m, tc.want, tc.kind, tc.mode)
		}
	}
}

// crowded returns a 120 s flight whose kind changes at the given seconds.
func crowded(changes ...float64) *Flight {
	f := &Flight{HasStamps: true, FirstStampNs: 0, LastStampNs: 120e9}
	kinds := []decisions.Kind{decisions.KindProceed, decisions.KindHold}
	f.Episodes = append(f.Episodes, Episode{N: 1, Kind: decisions.KindProceed})
	for i, c := range changes {
		f.Episodes = append(f.Episodes, Episode{N: i + 2, Kind: kinds[(i+1)%2], StartNs: int64(c * 1e9)})
	}
	return f
}

func TestDetailWindows(t *testing.T) {
	tests := []struct {
		name    string
		f       *Flight
		windows [][2]float64 // seconds; each must hold its stretch
	}{
		{"sparse", crowded(10, 30, 50, 70, 90), nil},
		{"three close changes are not enough", crowded(10, 10.1, 10.2), nil},
		{"the px4 flight's end", crowded(8.86, 43.94, 114, 114.6, 115.7, 117.1, 117.44, 118.2, 119.16), [][2]float64{{114, 119.16}}},
		{"changes far enough apart to read", crowded(10, 15, 20, 25, 30), nil},
		{"wider than a third of the flight", crowded(func() []float64 {
			var cs []float64
			for s := 1.0; s < 60; s += 3 {
				cs = append(cs, s)
			}
			return cs
		}()...), nil},
		{"the three most crowded, in time order", crowded(10, 10.1, 10.2, 10.3, 30, 30.1, 30.2, 30.3, 30.4, 60, 60.1, 60.2, 60.3, 60.4, 60.5, 90, 90.1, 90.2, 90.3, 90.4),
			[][2]float64{{30, 30.4}, {60, 60.5}, {90, 90.4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := detailWindows(tc.f, newTimeAxis(tc.f))
			if len(ws) != len(tc.windows) {
				t.Fatalf("windows %+v, want %d", ws, len(tc.windows))
			}
			for i, w := range ws {
				lo, hi := int64(tc.windows[i][0]*1e9), int64(tc.windows[i][1]*1e9)
				if w.lo >= lo || w.hi <= hi || w.hi-w.lo > 40e9 {
					t.Errorf("window %d: %.3f to %.3f s, want a margin around %v", i, float64(w.lo)/1e9, float64(w.hi)/1e9, tc.windows[i])
				}
			}
		})
	}
	// Action outcomes count as events: two changes and two outcomes.
	f := crowded(50, 50.2)
	for _, at := range []float64{50.1, 50.3} {
		f.Actions.Trail = append(f.Actions.Trail, Action{HasOutcome: true, Outcome: ActionStep{Event: EventReached, AtNs: int64(at * 1e9)}})
	}
	if ws := detailWindows(f, newTimeAxis(f)); len(ws) != 1 || ws[0].changes != 2 || ws[0].outcomes != 2 {
		t.Errorf("windows %+v: want one of 2 changes and 2 outcomes", ws)
	}
}

// TestDetailFigures: a crowded stretch gets its figure, on an axis in
// seconds from the flight's start, and a mark on the full timeline.
func TestDetailFigures(t *testing.T) {
	f := crowded(20, 114, 114.6, 115.7, 117.1, 117.44, 118.2, 119.16)
	f.BucketNs, f.BucketStartNs = 1<<26, 0
	html := string(render(t, f, NotAudited()))
	for _, s := range []string{`id="fig-detail-1"`, `href="#fig-detail-1"`, ">116 s<", "Detail 1: 112."} {
		if !strings.Contains(html, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if strings.Contains(html, `id="fig-detail-2"`) {
		t.Error("a second detail figure for one crowded stretch")
	}
}

// TestOneMeaningPerColour: the legend gives each colour one meaning, and
// every colour the figures use is in it (or is ink, white or structure).
func TestOneMeaningPerColour(t *testing.T) {
	seen := map[string]string{}
	for _, e := range legend {
		if e.color == "" {
			continue
		}
		if prev, dup := seen[e.color]; dup {
			t.Errorf("colour %s means %q and %q", e.color, prev, e.meaning)
		}
		seen[e.color] = e.meaning
	}
	allowed := map[string]bool{colWhite: true, colInk: true, colMuted: true, colGrid: true, colFrame: true}
	for c := range seen {
		allowed[c] = true
	}
	f, err := Collect(writeRecording(t, actingRecording(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := Audit{Verdict: "FAIL", Problems: []Problem{{StampNs: 2 * 1e9, Text: "p"}},
		Thresholds: []Threshold{{Field: "battery_pct", Op: "lt", Value: 0.5, Kind: decisions.KindHold, Rule: "low", Reason: "low"}}}
	html := string(render(t, f, a))
	html = html[strings.Index(html, "</style>"):] // the style sheet's table greys are not figures
	re := regexp.MustCompile(`(?:fill|stroke|background)[=:]"?(#[0-9A-Fa-f]{6})`)
	used := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(html, -1) {
		used[strings.ToUpper(m[1])] = true
	}
	for c := range used {
		if !allowed[c] {
			t.Errorf("colour %s is drawn but has no meaning in the legend", c)
		}
	}
	for _, k := range kindOrder {
		if !used[kindColor[k]] {
			t.Errorf("kind %s's colour is not drawn", k)
		}
	}
	// Abstain, the "I don't know" outcome, is the darkest kind, not the
	// calmest.
	lum := func(c string) float64 {
		v, _ := strconv.ParseUint(c[1:], 16, 32)
		r, g, b := float64(v>>16&255), float64(v>>8&255), float64(v&255)
		return 0.2126*r + 0.7152*g + 0.0722*b
	}
	var ls []float64
	for _, k := range kindOrder {
		ls = append(ls, lum(kindColor[k]))
	}
	sort.Float64s(ls)
	if lum(kindColor[decisions.KindAbstainUncertain]) != ls[0] {
		t.Errorf("abstain_uncertain %s is not the darkest kind colour", kindColor[decisions.KindAbstainUncertain])
	}
}

// TestBatteryThresholds: the policy's thresholds are drawn on the battery
// plot in the colour of their rule's kind, and where the battery crosses
// them, a mark on the threshold's line.
func TestBatteryThresholds(t *testing.T) {
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 501 { // 10 s, the battery from full to empty
		stamp := int64(i) * 20 * ms
		b := belief(stamp, 0.01, true, decisions.FlightModeOffboard, 1-float64(i)/500)
		c.Belief(stamp, &b)
		r := rationale(stamp, decisions.KindProceed, "nominal", "")
		c.Decision(stamp, &r)
	}
	f := c.Finish()
	a := Audit{Thresholds: []Threshold{
		{Field: "battery_pct", Op: "lt", Value: 0.15, Kind: decisions.KindHold, Rule: "battery_low", Reason: "battery_low"},
		{Field: "battery_pct", Op: "lt", Value: 0.07, Kind: decisions.KindEngageRTL, Rule: "battery_critical", Reason: "battery_critical"},
		{Field: "battery_v", Op: "le", Value: 12.5, Kind: decisions.KindEngageLand, Rule: "volts", Reason: "volts"},
	}}
	t0 := newTimeAxis(f)
	for _, th := range a.Thresholds {
		var svg string
		for _, fig := range Figures(f, a) {
			svg += string(fig.SVG)
		}
		// A diamond on the threshold's line, in its kind's colour.
		xs := regexp.MustCompile(`<path d="M([0-9.]+) [0-9.]+l5 5l-5 5l-5 -5z" fill="`+KindColor(th.Kind)+`"[^>]*><title>the battery crosses the threshold `+
			regexp.QuoteMeta(th.Field+` `+th.Op+` `+fmtG(th.Value)+`: `)).FindAllStringSubmatch(svg, -1)
		if len(xs) != 1 {
			t.Errorf("%s %s %g: %d crossings drawn, want 1", th.Field, th.Op, th.Value, len(xs))
			continue
		}
		// Full to empty in 10 s: the fraction crosses v at (1-v)*10 s; the
		// voltage 12+4*pct crosses 12.5 V where pct is 0.125.
		at := (1 - th.Value) * 10
		if th.Field == "battery_v" {
			at = (1 - (th.Value-12)/4) * 10
		}
		x, _ := strconv.ParseFloat(xs[0][1], 64)
		if want := t0.xSec(at); math.Abs(x-want) > 2 {
			t.Errorf("%s %s %g: crossing at x %.1f, want %.1f (%.2f s)", th.Field, th.Op, th.Value, x, want, at)
		}
		if !strings.Contains(svg, `stroke="`+KindColor(th.Kind)+`" stroke-width="2" stroke-dasharray="8 4"><title>threshold `) {
			t.Errorf("%s %g: no threshold line in its kind's colour", th.Field, th.Value)
		}
	}
}

func TestFlightDate(t *testing.T) {
	tests := []struct {
		name                 string
		firstStamp, firstLog int64
		has                  string
	}{
		{"simulation", 0, 5 * ms, "no wall-clock time"},
		{"wall-clock stamps", 1_733_097_600_000_000_000, 1_733_097_600_000_000_000, "flown 2024-12-02 00:00:00 to"},
		{"wall-clock log times only", 90_000_000_000, 1_733_097_600_000_000_000, "recorded 2024-12-02 00:00:00 to"},
	}
	for _, tc := range tests {
		f := &Flight{HasStamps: true, FirstStampNs: tc.firstStamp, LastStampNs: tc.firstStamp + 60e9, FirstLogNs: tc.firstLog, LastLogNs: tc.firstLog + 60e9}
		if got := flightDate(f); !strings.Contains(got, tc.has) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.has)
		}
	}
	// No raw nanoseconds on the page outside tooltips.
	f, err := Collect(writeRecording(t, everyKind(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := string(render(t, f, NotAudited()))
	for _, bad := range []string{"sim ns", "(ns)"} {
		if strings.Contains(html, bad) {
			t.Errorf("report shows %q", bad)
		}
	}
}

// TestStdDecades: no standard deviation or threshold lies on the panel's
// frame, where it would read as "no data".
func TestStdDecades(t *testing.T) {
	tests := []struct {
		name   string
		std    float64
		known  float64 // 0: no thresholds
		lo, hi float64
	}{
		{"a constant at a whole decade", 0.01, 0, -3, -1},
		{"orientation of the simulated flight", 0.01, 0.05, -3, 0},
		{"a threshold at a whole decade", 0.3, 0.1, -2, 0},
	}
	for _, tc := range tests {
		b := newBucket()
		for i := range b.StdMax {
			b.StdMax[i] = tc.std
		}
		if tc.known > 0 {
			b.Thresholds, b.HasThresholds = decisions.Thresholds{
				PositionKnownStdM: tc.known, PositionUnknownStdM: tc.known * 4, VelocityKnownStdMps: tc.known, VelocityUnknownStdMps: tc.known * 4,
				OrientationKnownStdRad: tc.known, OrientationUnknownStdRad: tc.known * 4, SchemaVersion: 1}, true
		}
		f := &Flight{Buckets: []Bucket{b}}
		lo, hi, ok := stdDecades(f, 2)
		if !ok || lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: decades %g to %g (%v), want %g to %g", tc.name, lo, hi, ok, tc.lo, tc.hi)
		}
	}
	if _, _, ok := stdDecades(&Flight{Buckets: []Bucket{newBucket()}}, 0); ok {
		t.Error("no standard deviation: a range")
	}
}

// TestBatteryThresholdsApart: PX4's thresholds (5, 7 and 15 %) on a plot
// of a battery from full to empty are drawn at least 5 pixels apart, so
// that each line shows.
func TestBatteryThresholdsApart(t *testing.T) {
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 501 {
		stamp := int64(i) * 20 * ms
		b := belief(stamp, 0.01, true, decisions.FlightModeOffboard, 1-float64(i)/500)
		c.Belief(stamp, &b)
		r := rationale(stamp, decisions.KindProceed, "nominal", "")
		c.Decision(stamp, &r)
	}
	f := c.Finish()
	var a Audit
	for _, v := range []float64{0.05, 0.07, 0.15} {
		a.Thresholds = append(a.Thresholds, Threshold{Field: "battery_pct", Op: "lt", Value: v, Kind: decisions.KindHold, Rule: "r", Reason: "r"})
	}
	svg := string(Figures(f, a)[0].SVG)
	var ys []float64
	for _, m := range regexp.MustCompile(`<line x1="[0-9.]+" y1="([0-9.]+)"[^>]*stroke-dasharray="8 4"><title>threshold `).FindAllStringSubmatch(svg, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		ys = append(ys, y)
	}
	if len(ys) != 3 {
		t.Fatalf("%d threshold lines, want 3", len(ys))
	}
	sort.Float64s(ys)
	for i := 1; i < len(ys); i++ {
		if ys[i]-ys[i-1] < 5 {
			t.Errorf("threshold lines %.1f px apart: %v", ys[i]-ys[i-1], ys)
		}
	}
}

// TestLegendListsWhatIsDrawn: the timeline's legend names only the kinds
// decided, the events and marks the lanes hold, and the thresholds drawn.
func TestLegendListsWhatIsDrawn(t *testing.T) {
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		stamp := int64(i) * 20 * ms
		b := belief(stamp, 0.01, true, decisions.FlightModeOffboard, math.NaN())
		c.Belief(stamp, &b)
		r := rationale(stamp, decisions.KindProceed, "nominal", "")
		c.Decision(stamp, &r)
	}
	f := c.Finish()
	a := Audit{Thresholds: []Threshold{{Field: "battery_pct", Op: "lt", Value: 0.15, Kind: decisions.KindHold, Rule: "r", Reason: "r"}}}
	svg := string(Figures(f, a)[0].SVG)
	if !strings.Contains(svg, ">proceed (100)<") {
		t.Errorf("the legend lacks the kind decided")
	}
	for _, absent := range []string{">hold (0)<", ">sent<", ">reached<", ">mode differs from the decision<", ">battery lt 15 %"} {
		if strings.Contains(svg, absent) {
			t.Errorf("the legend lists %q, which is not drawn", absent)
		}
	}
}
