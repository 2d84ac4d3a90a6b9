package rules

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// ctxOpt edits a test context.
type ctxOpt func(*decisions.Context)

func ctx(stamp int64, opts ...ctxOpt) decisions.Context {
	c := decisions.Context{
		BeliefStampSimNs: stamp,
		Flight:           decisions.FlightStatus{BatteryPct: math.NaN(), BatteryV: math.NaN()},
		Mission:          decisions.MissionStatus{StartedSimNs: decisions.NotStarted},
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// assessed adds an assessment with every axis at lvl and every std at std.
func assessed(lvl decisions.Level, std float64) ctxOpt {
	return func(c *decisions.Context) {
		a := &decisions.SelfAssessment{BeliefStampSimNs: c.BeliefStampSimNs, ThresholdsUsed: caseThresholds,
			ThresholdsSHA256: caseThresholds.SHA256(), OverallLevel: lvl, SchemaVersion: 1, CovarianceAvailable: true}
		for i := range a.AxisLevel {
			a.AxisLevel[i], a.Std[i] = lvl, std
		}
		a.BlockLevel = [3]decisions.Level{lvl, lvl, lvl}
		c.SelfAssessment = a
	}
}

func axisLevel(i int, l decisions.Level) ctxOpt {
	return func(c *decisions.Context) { c.SelfAssessment.AxisLevel[i] = l }
}
func blockLevel(b int, l decisions.Level) ctxOpt {
	return func(c *decisions.Context) { c.SelfAssessment.BlockLevel[b] = l }
}
func overall(l decisions.Level) ctxOpt {
	return func(c *decisions.Context) { c.SelfAssessment.OverallLevel = l }
}
func std(i int, v float64) ctxOpt { return func(c *decisions.Context) { c.SelfAssessment.Std[i] = v } }
func calibrated(l decisions.Level) ctxOpt {
	return func(c *decisions.Context) {
		c.Calibration = &decisions.Calibration{AdjustedOverallLevel: l, AdjustmentPolicyID: "cal", AdjustmentReason: "r",
			History: decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: 1}}
	}
}
func armed(b bool) ctxOpt { return func(c *decisions.Context) { c.Flight.Armed = b } }
func flight(m decisions.FlightMode) ctxOpt {
	return func(c *decisions.Context) { c.Flight.Mode = m }
}
func mission(m decisions.MissionMode) ctxOpt {
	return func(c *decisions.Context) { c.Mission.Mode = m }
}
func perception(m decisions.PerceptionMode) ctxOpt {
	return func(c *decisions.Context) {
		c.Perception = &decisions.PerceptionReport{StampSimNs: c.BeliefStampSimNs, Mode: m}
	}
}
func battery(pct, v float64) ctxOpt {
	return func(c *decisions.Context) { c.Flight.BatteryPct, c.Flight.BatteryV = pct, v }
}

const (
	known     = decisions.LevelKnown
	uncertain = decisions.LevelUncertain
	unknown   = decisions.LevelUnknown
)

// single builds a policy of one rule (action hold, reason fired) with the
// given condition and extra rule keys, default proceed/nominal.
func single(t testing.TB, cond, extra string) *Policy {
	t.Helper()
	p, err := Parse("t.yaml", []byte(policyWith("  - name: r\n    when: "+cond+"\n    action: hold\n    reason: fired\n"+extra)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Each operator: true, false, and unevaluable (abstain_uncertain naming the
// missing field) where the field can be missing.
func TestOperators(t *testing.T) {
	const T, F = "fired", "nominal"
	base := []ctxOpt{assessed(known, 0.1)}
	tests := []struct {
		name, cond string
		opts       []ctxOpt
		want       string // T, F or the missing reason
	}{
		{"level is", "{level: {block: velocity, is: uncertain}}", []ctxOpt{blockLevel(1, uncertain)}, T},
		{"level is other", "{level: {block: velocity, is: uncertain}}", []ctxOpt{blockLevel(1, unknown)}, F},
		{"level block reads block not axes", "{level: {block: velocity, is: known}}", []ctxOpt{axisLevel(3, unknown)}, T},
		{"level overall", "{level: {block: overall, is: unknown}}", []ctxOpt{overall(unknown)}, T},
		{"level overall ignores calibration", "{level: {block: overall, is: known}}", []ctxOpt{calibrated(unknown)}, T},
		{"level at_least equal", "{level: {block: position, at_least: uncertain}}", []ctxOpt{blockLevel(0, uncertain)}, T},
		{"level at_least above", "{level: {block: position, at_least: uncertain}}", []ctxOpt{blockLevel(0, unknown)}, T},
		{"level at_least below", "{level: {block: position, at_least: uncertain}}", nil, F},
		{"level at_most equal", "{level: {block: orientation, at_most: uncertain}}", []ctxOpt{blockLevel(2, uncertain)}, T},
		{"level at_most above", "{level: {block: orientation, at_most: uncertain}}", []ctxOpt{blockLevel(2, unknown)}, F},
		{"level in", "{level: {block: orientation, in: [known, unknown]}}", []ctxOpt{blockLevel(2, unknown)}, T},
		{"level in miss", "{level: {block: orientation, in: [known, unknown]}}", []ctxOpt{blockLevel(2, uncertain)}, F},
		{"level ops conjoin", "{level: {block: position, at_least: uncertain, at_most: uncertain}}", []ctxOpt{blockLevel(0, unknown)}, F},
		{"level missing", "{level: {block: position, is: known}}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }}, "missing_assessment"},
		{"axis is", "{axis: {name: orientation_z, is: unknown}}", []ctxOpt{axisLevel(8, unknown)}, T},
		{"axis other axis", "{axis: {name: orientation_z, is: unknown}}", []ctxOpt{axisLevel(7, unknown)}, F},
		{"axis missing", "{axis: {name: position_x, is: known}}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }}, "missing_assessment"},
		{"std gt above", "{std: {axis: velocity_y, gt: 2.0}}", []ctxOpt{std(4, 2.0000001)}, T},
		{"std gt equal", "{std: {axis: velocity_y, gt: 2.0}}", []ctxOpt{std(4, 2.0)}, F},
		{"std ge equal", "{std: {axis: velocity_y, ge: 2.0}}", []ctxOpt{std(4, 2.0)}, T},
		{"std lt equal", "{std: {axis: velocity_y, lt: 2.0}}", []ctxOpt{std(4, 2.0)}, F},
		{"std le equal", "{std: {axis: velocity_y, le: 2.0}}", []ctxOpt{std(4, 2.0)}, T},
		{"std range inside", "{std: {axis: velocity_y, gt: 1, lt: 3}}", []ctxOpt{std(4, 2)}, T},
		{"std range outside", "{std: {axis: velocity_y, gt: 1, lt: 3}}", []ctxOpt{std(4, 3)}, F},
		{"std none is above any bound", "{std: {axis: position_x, gt: 1e300}}", []ctxOpt{std(0, math.NaN())}, T},
		{"std none is below no bound", "{std: {axis: position_x, lt: 1e300}}", []ctxOpt{std(0, math.NaN())}, F},
		{"std negative zero", "{std: {axis: position_x, ge: 0}}", []ctxOpt{std(0, math.Copysign(0, -1))}, T},
		{"std missing", "{std: {axis: position_x, gt: 1}}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }}, "missing_assessment"},
		{"effective reads overall", "{effective_level: uncertain}", []ctxOpt{overall(uncertain)}, T},
		{"effective prefers calibration", "{effective_level: uncertain}", []ctxOpt{overall(uncertain), calibrated(known)}, F},
		{"effective calibration alone", "{effective_level: unknown}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }, calibrated(unknown)}, T},
		{"effective missing", "{effective_level: known}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }}, "missing_assessment"},
		{"calibrated is", "{calibrated_level: {at_least: uncertain}}", []ctxOpt{calibrated(unknown)}, T},
		{"calibrated below", "{calibrated_level: {at_least: uncertain}}", []ctxOpt{calibrated(known)}, F},
		{"calibrated missing", "{calibrated_level: known}", nil, "missing_calibration"},
		{"armed true", "{armed: true}", []ctxOpt{armed(true)}, T},
		{"armed true disarmed", "{armed: true}", nil, F},
		{"armed false", "{armed: false}", nil, T},
		{"flight mode", "{flight_mode: rtl}", []ctxOpt{flight(decisions.FlightModeRTL)}, T},
		{"flight mode other", "{flight_mode: rtl}", []ctxOpt{flight(decisions.FlightModeLand)}, F},
		{"flight mode in", "{flight_mode: {in: [init, kill]}}", []ctxOpt{flight(decisions.FlightModeKill)}, T},
		{"flight mode out of range", "{flight_mode: {in: [init, kill]}}", []ctxOpt{flight(200)}, F},
		{"mission mode", "{mission_mode: abort}", []ctxOpt{mission(decisions.MissionModeAbort)}, T},
		{"mission mode other", "{mission_mode: {in: [explore, navigate]}}", []ctxOpt{mission(decisions.MissionModeDone)}, F},
		{"perception mode", "{perception_mode: low_light}", []ctxOpt{perception(decisions.PerceptionLowLight)}, T},
		{"perception other", "{perception_mode: low_light}", []ctxOpt{perception(decisions.PerceptionNominal)}, F},
		{"perception missing", "{perception_mode: nominal}", nil, "missing_perception"},
		{"battery_pct lt", "{battery_pct: {lt: 0.15}}", []ctxOpt{battery(0.1499, math.NaN())}, T},
		{"battery_pct lt equal", "{battery_pct: {lt: 0.15}}", []ctxOpt{battery(0.15, math.NaN())}, F},
		{"battery_pct le equal", "{battery_pct: {le: 0.15}}", []ctxOpt{battery(0.15, math.NaN())}, T},
		{"battery_pct gt", "{battery_pct: {gt: 0.5}}", []ctxOpt{battery(0.5, math.NaN())}, F},
		{"battery_pct ge", "{battery_pct: {ge: 0.5}}", []ctxOpt{battery(0.5, math.NaN())}, T},
		{"battery_pct missing", "{battery_pct: {lt: 0.15}}", nil, "missing_battery_pct"},
		{"battery_v lt", "{battery_v: {lt: 14.0}}", []ctxOpt{battery(math.NaN(), 13.9)}, T},
		{"battery_v lt above", "{battery_v: {lt: 14.0}}", []ctxOpt{battery(math.NaN(), 14.1)}, F},
		{"battery_v missing", "{battery_v: {lt: 14.0}}", []ctxOpt{battery(0.5, math.NaN())}, "missing_battery_v"},
		{"missing assessment", "{missing: assessment}", []ctxOpt{func(c *decisions.Context) { c.SelfAssessment = nil }}, T},
		{"missing assessment present", "{missing: assessment}", nil, F},
		{"missing calibration", "{missing: calibration}", nil, T},
		{"missing perception", "{missing: perception}", []ctxOpt{perception(decisions.PerceptionNominal)}, F},
		{"missing battery_pct", "{missing: battery_pct}", nil, T},
		{"missing battery_v", "{missing: battery_v}", []ctxOpt{battery(math.NaN(), 12)}, F},
		{"not true", "{not: {armed: true}}", []ctxOpt{armed(true)}, F},
		{"not false", "{not: {armed: true}}", nil, T},
		{"not unknown", "{not: {perception_mode: nominal}}", nil, "missing_perception"},
		{"all true", "{all: [{armed: true}, {flight_mode: init}]}", []ctxOpt{armed(true)}, T},
		{"all false", "{all: [{armed: true}, {flight_mode: rtl}]}", []ctxOpt{armed(true)}, F},
		{"all false beats unknown", "{all: [{perception_mode: nominal}, {armed: true}]}", nil, F},
		{"all true and unknown", "{all: [{armed: false}, {perception_mode: nominal}]}", nil, "missing_perception"},
		{"all names first missing", "{all: [{battery_v: {lt: 1}}, {perception_mode: nominal}]}", nil, "missing_battery_v"},
		{"any true beats unknown", "{any: [{perception_mode: nominal}, {armed: false}]}", nil, T},
		{"any false and unknown", "{any: [{armed: true}, {calibrated_level: known}]}", nil, "missing_calibration"},
		{"any false", "{any: [{armed: true}, {flight_mode: rtl}]}", nil, F},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := single(t, tt.cond, "")
			d, err := p.Decide(ctx(1, append(append([]ctxOpt{}, base...), tt.opts...)...))
			if err != nil {
				t.Fatal(err)
			}
			wantKind := decisions.KindHold
			switch tt.want {
			case F:
				wantKind = decisions.KindProceed
			case T:
			default:
				wantKind = decisions.KindAbstainUncertain
			}
			if d.Kind != wantKind || d.Reason != tt.want {
				t.Fatalf("decided %v, want %s/%s", d, wantKind, tt.want)
			}
		})
	}
}

// The decision is the most severe fired rule; ties go to the earlier rule;
// the severity order is the documented one, not the catalog's numbering.
func TestSeverity(t *testing.T) {
	order := []string{"proceed", "abstain_uncertain", "hold", "yield_to_pilot", "engage_rtl", "engage_land", "engage_kill"}
	for i, k := range SeverityOrder() {
		if k.String() != order[i] || Severity(k) != i {
			t.Fatalf("severity order %v, want %v", SeverityOrder(), order)
		}
	}
	if Severity(decisions.Kind(99)) <= Severity(decisions.KindEngageKill) {
		t.Fatal("an invalid kind must rank above every kind")
	}
	rule := func(name, action string) string {
		return "  - {name: " + name + ", when: {armed: true}, action: " + action + ", reason: " + name + "}\n"
	}
	for lo := range order {
		for hi := lo + 1; hi < len(order); hi++ {
			for _, flip := range []bool{false, true} {
				rules := rule("low", order[lo]) + rule("high", order[hi])
				if flip {
					rules = rule("high", order[hi]) + rule("low", order[lo])
				}
				p, err := Parse("s.yaml", []byte(policyWith(rules)))
				if err != nil {
					t.Fatal(err)
				}
				d, _ := p.Decide(ctx(0, armed(true)))
				if d.Kind.String() != order[hi] || d.Reason != "high" {
					t.Errorf("%s vs %s (flip %v): decided %v", order[lo], order[hi], flip, d)
				}
			}
		}
	}
	// Ties: the first rule in the file.
	p, err := Parse("s.yaml", []byte(policyWith(rule("first", "hold")+rule("second", "hold"))))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := p.Decide(ctx(0, armed(true))); d.Reason != "first" {
		t.Fatalf("tie decided %v, want first", d)
	}
	// A missing field asks for abstain_uncertain: a more severe fired rule
	// wins over it, a less severe one (proceed) does not, and a fired
	// abstain_uncertain earlier in the file wins the tie.
	mixed := []struct {
		rules, want string
	}{
		{rule("land", "engage_land") + "  - {name: bat, when: {battery_pct: {lt: 0.1}}, action: hold, reason: bat}\n", "engage_land/land"},
		{"  - {name: bat, when: {battery_pct: {lt: 0.1}}, action: hold, reason: bat}\n" + rule("go", "proceed"), "abstain_uncertain/missing_battery_pct"},
		{rule("abstain", "abstain_uncertain") + "  - {name: bat, when: {battery_pct: {lt: 0.1}}, action: engage_kill, reason: bat}\n", "abstain_uncertain/abstain"},
		{"  - {name: bat, when: {battery_pct: {lt: 0.1}}, action: engage_kill, reason: bat}\n" + rule("abstain", "abstain_uncertain"), "abstain_uncertain/missing_battery_pct"},
	}
	for i, m := range mixed {
		p, err := Parse("m.yaml", []byte(policyWith(m.rules)))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := p.Decide(ctx(0, armed(true)))
		if got := d.Kind.String() + "/" + d.Reason; got != m.want {
			t.Errorf("mixed %d: decided %s, want %s", i, got, m.want)
		}
	}
}

// step decides c and returns "kind/reason".
func step(t *testing.T, p *Policy, c decisions.Context) string {
	t.Helper()
	d, err := p.Decide(c)
	if err != nil {
		t.Fatal(err)
	}
	return d.Kind.String() + "/" + d.Reason
}

const (
	fired   = "hold/fired"
	nominal = "proceed/nominal"
)

// `for` fires exactly at the duration, not one nanosecond before; a break
// in the condition restarts the wait.
func TestForBoundary(t *testing.T) {
	const d = 2_000_000_000
	p := single(t, "{armed: true}", "    for: 2s\n")
	for _, s := range []struct {
		stamp int64
		armed bool
		want  string
	}{
		{100, true, nominal},
		{100 + d - 1, true, nominal},
		{100 + d, true, fired},
		{100 + d + 1, true, fired},
		{100 + d + 2, false, nominal},
		{100 + d + 3, true, nominal}, // the wait starts again
		{100 + 2*d + 2, true, nominal},
		{100 + 2*d + 3, true, fired},
	} {
		if got := step(t, p, ctx(s.stamp, armed(s.armed))); got != s.want {
			t.Fatalf("stamp %d armed %v: %s, want %s", s.stamp, s.armed, got, s.want)
		}
	}
	// An unevaluable condition also restarts the wait.
	q := single(t, "{battery_pct: {lt: 0.1}}", "    for: 1ns\n")
	for _, s := range []struct {
		stamp int64
		pct   float64
		want  string
	}{
		{0, 0.05, nominal},
		{1, math.NaN(), "abstain_uncertain/missing_battery_pct"},
		{2, 0.05, nominal},
		{3, 0.05, fired},
	} {
		if got := step(t, q, ctx(s.stamp, battery(s.pct, math.NaN()))); got != s.want {
			t.Fatalf("stamp %d pct %v: %s, want %s", s.stamp, s.pct, got, s.want)
		}
	}
}

// clear after D releases exactly D after the condition stopped holding,
// not one nanosecond before; clear on_disarm on the first disarmed
// context; never not at all.
func TestClearBoundary(t *testing.T) {
	const d = 1_000_000_000
	t.Run("after", func(t *testing.T) {
		p := single(t, "{flight_mode: manual}", "    clear: {after: 1s}\n")
		for _, s := range []struct {
			stamp int64
			mode  decisions.FlightMode
			want  string
		}{
			{0, decisions.FlightModeOffboard, nominal},
			{10, decisions.FlightModeManual, fired},
			{20, decisions.FlightModeOffboard, fired}, // stopped holding at 20
			{20 + d - 1, decisions.FlightModeOffboard, fired},
			{20 + d, decisions.FlightModeOffboard, nominal},
			{30 + d, decisions.FlightModeManual, fired},
			{40 + d, decisions.FlightModeOffboard, fired},
			{50 + d, decisions.FlightModeManual, fired}, // holds again: the release clock restarts
			{60 + d, decisions.FlightModeOffboard, fired},
			{60 + 2*d - 1, decisions.FlightModeOffboard, fired},
			{60 + 2*d, decisions.FlightModeOffboard, nominal},
		} {
			if got := step(t, p, ctx(s.stamp, flight(s.mode))); got != s.want {
				t.Fatalf("stamp %d %v: %s, want %s", s.stamp, s.mode, got, s.want)
			}
		}
	})
	t.Run("after counts unevaluable as not holding", func(t *testing.T) {
		p := single(t, "{perception_mode: vio_lost}", "    clear: {after: 1s}\n")
		steps := []struct {
			stamp int64
			opt   ctxOpt
			want  string
		}{
			{0, perception(decisions.PerceptionVIOLost), fired},
			{1, func(*decisions.Context) {}, fired},
			{d, func(*decisions.Context) {}, fired},
			{d + 1, func(*decisions.Context) {}, "abstain_uncertain/missing_perception"},
		}
		for _, s := range steps {
			if got := step(t, p, ctx(s.stamp, s.opt)); got != s.want {
				t.Fatalf("stamp %d: %s, want %s", s.stamp, got, s.want)
			}
		}
	})
	t.Run("default releases at once", func(t *testing.T) {
		p := single(t, "{armed: true}", "")
		for i, a := range []bool{true, false, true} {
			want := nominal
			if a {
				want = fired
			}
			if got := step(t, p, ctx(int64(i), armed(a))); got != want {
				t.Fatalf("step %d: %s, want %s", i, got, want)
			}
		}
	})
	t.Run("on_disarm", func(t *testing.T) {
		p := single(t, "{battery_pct: {lt: 0.1}}", "    clear: on_disarm\n")
		for _, s := range []struct {
			stamp int64
			armed bool
			pct   float64
			want  string
		}{
			{0, true, 0.5, nominal},
			{1, true, 0.05, fired},
			{2, true, 0.5, fired},
			{3 * d, true, 0.5, fired},
			{3*d + 1, false, 0.5, nominal},
			{3*d + 2, false, 0.05, fired}, // holds again: fires again
			{3*d + 3, true, 0.5, fired},
			{3*d + 4, false, 0.05, fired}, // released, but still holding
			{3*d + 5, false, 0.5, nominal},
		} {
			if got := step(t, p, ctx(s.stamp, armed(s.armed), battery(s.pct, math.NaN()))); got != s.want {
				t.Fatalf("stamp %d: %s, want %s", s.stamp, got, s.want)
			}
		}
	})
	t.Run("never", func(t *testing.T) {
		p := single(t, "{mission_mode: abort}", "    clear: never\n")
		if got := step(t, p, ctx(0, mission(decisions.MissionModeAbort))); got != fired {
			t.Fatal(got)
		}
		for i := int64(1); i < 5; i++ {
			if got := step(t, p, ctx(i*1e12, armed(false))); got != fired {
				t.Fatalf("step %d: %s", i, got)
			}
		}
		// A new instance starts released.
		if got := step(t, p.NewInstance().(*Policy), ctx(0)); got != nominal {
			t.Fatal(got)
		}
	})
	t.Run("for and clear together", func(t *testing.T) {
		p := single(t, "{armed: true}", "    for: 1s\n    clear: {after: 1s}\n")
		for _, s := range []struct {
			stamp int64
			armed bool
			want  string
		}{
			{0, true, nominal},
			{d, true, fired},
			{d + 1, false, fired},
			{d + 2, true, fired}, // latched: no new wait
			{d + 3, false, fired},
			{2*d + 3, false, nominal},
			{2*d + 4, true, nominal}, // released: the wait applies again
		} {
			if got := step(t, p, ctx(s.stamp, armed(s.armed))); got != s.want {
				t.Fatalf("stamp %d: %s, want %s", s.stamp, got, s.want)
			}
		}
	})
}

func TestStampOrder(t *testing.T) {
	p := single(t, "{armed: true}", "    for: 1s\n")
	if _, err := p.Decide(ctx(-1)); !errors.Is(err, ErrStampOrder) {
		t.Fatalf("negative stamp: %v", err)
	}
	if got := step(t, p, ctx(5, armed(true))); got != nominal {
		t.Fatal(got)
	}
	for _, s := range []int64{5, 4, 0} {
		_, err := p.Decide(ctx(s, armed(false)))
		var se *StampError
		if !errors.As(err, &se) || se.Previous != 5 || !strings.Contains(err.Error(), "after 5") {
			t.Fatalf("stamp %d: %v", s, err)
		}
	}
	// The refused contexts changed nothing: the wait that began at 5 fires at 5+1s.
	if got := step(t, p, ctx(1_000_000_005, armed(true))); got != fired {
		t.Fatal(got)
	}
}

func TestDecisionFields(t *testing.T) {
	p := single(t, "{armed: true}", "")
	d, err := p.Decide(ctx(123, armed(true)))
	if err != nil {
		t.Fatal(err)
	}
	want := decisions.Decision{Kind: decisions.KindHold, DecisionStampSimNs: 123, Reason: "fired", SchemaVersion: decisions.SchemaVersion}
	if d != want {
		t.Fatalf("%+v, want %+v", d, want)
	}
	c := ctx(124)
	_, r, err := decisions.DecideWithRationale(p, c, c.SelfAssessmentSHA256())
	if err != nil {
		t.Fatal(err)
	}
	if r.PolicyID != p.ID() || r.Decision.Reason != "nominal" {
		t.Fatalf("rationale %+v", r)
	}
}

func TestCheckpointRollback(t *testing.T) {
	p := single(t, "{armed: true}", "    for: 10ns\n    clear: {after: 10ns}\n")
	var sp decisions.StatefulPolicy = p
	step(t, p, ctx(0, armed(true)))
	sp.Checkpoint()
	if got := step(t, p, ctx(10, armed(true))); got != fired {
		t.Fatal(got)
	}
	sp.Rollback()
	// As if stamp 10 never happened: stamp 9 is accepted and not yet fired.
	if got := step(t, p, ctx(9, armed(true))); got != nominal {
		t.Fatalf("after rollback: %s", got)
	}
	if got := step(t, p, ctx(10, armed(true))); got != fired {
		t.Fatal(got)
	}
	// Rollback without a Checkpoint returns to the initial state.
	q := sp.NewInstance()
	q.(*Policy).Decide(ctx(50, armed(true)))
	q.Rollback()
	if got := step(t, q.(*Policy), ctx(0, armed(true))); got != nominal {
		t.Fatal(got)
	}
	// Instances share the definition, not the state.
	if q.ID() != p.ID() {
		t.Fatal("instance id differs")
	}
	if got := step(t, p, ctx(11, armed(true))); got != fired {
		t.Fatal("instance state leaked into p:", got)
	}
}
