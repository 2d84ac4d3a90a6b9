package rules

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

var leafPool = []string{
	"{level: {block: position, is: unknown}}",
	"{level: {block: overall, at_least: uncertain}}",
	"{axis: {name: orientation_z, at_most: uncertain}}",
	"{std: {axis: velocity_x, gt: 0.5}}",
	"{effective_level: {in: [uncertain, unknown]}}",
	"{calibrated_level: known}",
	"{armed: true}",
	"{armed: false}",
	"{flight_mode: {in: [manual, stabilize]}}",
	"{mission_mode: explore}",
	"{perception_mode: {in: [vio_lost, perception_dead]}}",
	"{battery_pct: {lt: 0.3}}",
	"{battery_v: {ge: 14.0}}",
	"{missing: assessment}",
	"{missing: perception}",
}

// actionLeafPool are the leaves over the action state; the random
// conditions draw from both pools (the benchmark from leafPool only).
var actionLeafPool = []string{
	"{action: {kind: engage_land, outcome: {in: [denied, not_reached]}}}",
	"{action: {kind: hold, outcome: pending}}",
	"{action: {kind: engage_kill, enabled: true}}",
	"{action: {kind: engage_rtl, outcome: refused, commands: {ge: 3}}}",
}

// healthLeafPool are the leaves over the belief's health.
var healthLeafPool = []string{
	"{gnss: {fix: lost}}",
	"{gnss: {fix: {at_least: 3d}, satellites: {ge: 6}}}",
	"{estimator: {gps_fused: false}}",
	"{estimator: {dead_reckoning: true}}",
	"{px4_failsafe: {flag: {in: [global_position_invalid, navigator_failure]}}}",
	"{missing: gnss}",
}

var kindPool = []string{"proceed", "abstain_uncertain", "hold", "yield_to_pilot", "engage_rtl", "engage_land", "engage_kill"}

func randCond(rng *rand.Rand, depth int) string {
	if depth > 2 || rng.IntN(3) == 0 {
		i := rng.IntN(len(leafPool) + len(actionLeafPool) + len(healthLeafPool))
		switch {
		case i >= len(leafPool)+len(actionLeafPool):
			return healthLeafPool[i-len(leafPool)-len(actionLeafPool)]
		case i >= len(leafPool):
			return actionLeafPool[i-len(leafPool)]
		}
		return leafPool[i]
	}
	switch rng.IntN(3) {
	case 0:
		return "{not: " + randCond(rng, depth+1) + "}"
	default:
		op := "all"
		if rng.IntN(2) == 0 {
			op = "any"
		}
		n := 1 + rng.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randCond(rng, depth+1)
		}
		return "{" + op + ": [" + strings.Join(parts, ", ") + "]}"
	}
}

// randRule returns one rule's YAML (a list item).
func randRule(rng *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  - name: r%d\n    when: %s\n    action: %s\n    reason: rule_%d\n", i, randCond(rng, 0), kindPool[rng.IntN(len(kindPool))], i)
	if rng.IntN(2) == 0 {
		fmt.Fprintf(&b, "    for: %dms\n", 500*rng.IntN(4))
	}
	switch rng.IntN(5) {
	case 0:
		fmt.Fprintf(&b, "    clear: {after: %dms}\n", 500*rng.IntN(4))
	case 1:
		b.WriteString("    clear: on_disarm\n")
	case 2:
		b.WriteString("    clear: never\n")
	case 3:
		b.WriteString("    clear: on_mode_change\n")
	}
	if rng.IntN(4) == 0 {
		fmt.Fprintf(&b, "    unless: %s\n", randCond(rng, 1))
	}
	return b.String()
}

func randContext(rng *rand.Rand, stamp int64) decisions.Context {
	levels := []decisions.Level{known, uncertain, unknown}
	c := ctx(stamp, armed(rng.IntN(3) > 0), flight(decisions.FlightMode(rng.IntN(7))), mission(decisions.MissionMode(rng.IntN(6))))
	if rng.IntN(5) > 0 {
		assessed(levels[rng.IntN(3)], rng.Float64())(&c)
		a := c.SelfAssessment
		for i := range a.AxisLevel {
			a.AxisLevel[i] = levels[rng.IntN(3)]
			if rng.IntN(8) == 0 {
				a.Std[i] = math.NaN()
			}
		}
		for b := range a.BlockLevel {
			a.BlockLevel[b] = levels[rng.IntN(3)]
		}
	}
	if rng.IntN(3) == 0 {
		calibrated(levels[rng.IntN(3)])(&c)
	}
	if rng.IntN(2) == 0 {
		perception(decisions.PerceptionMode(rng.IntN(8)))(&c)
	}
	pct, v := math.NaN(), math.NaN()
	if rng.IntN(4) > 0 {
		pct = rng.Float64()
	}
	if rng.IntN(4) > 0 {
		v = 10 + 8*rng.Float64()
	}
	battery(pct, v)(&c)
	if rng.IntN(2) == 0 {
		health(decisions.Health{
			Fix: decisions.GNSSFix(rng.IntN(int(decisions.NumGNSSFixes))), Satellites: uint8(rng.IntN(20)),
			EstimatorReported: rng.IntN(4) > 0, DeadReckoningReported: rng.IntN(2) == 0, Estimator: uint8(rng.IntN(64)),
			FailsafeReported: rng.IntN(4) > 0, NavigatorFailureReported: rng.IntN(2) == 0, Failsafe: rng.Uint32(),
		})(&c)
	}
	if rng.IntN(2) == 0 {
		for k := range decisions.NumKinds {
			if rng.IntN(2) == 0 {
				acted(decisions.Kind(k), decisions.ActionOutcome(rng.IntN(decisions.NumActionOutcomes)), rng.IntN(2) == 0)(&c)
			}
		}
	}
	return c
}

func randSequence(rng *rand.Rand, n int) []decisions.Context {
	out := make([]decisions.Context, n)
	stamp := int64(rng.IntN(1000))
	for i := range out {
		out[i] = randContext(rng, stamp)
		stamp += int64(1 + rng.IntN(1_500_000_000))
	}
	return out
}

func decideAll(t *testing.T, p decisions.Policy, seq []decisions.Context) []decisions.Decision {
	t.Helper()
	out := make([]decisions.Decision, len(seq))
	for i, c := range seq {
		d, _, err := decisions.DecideWithRationale(p, c, c.SelfAssessmentSHA256())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = d
	}
	return out
}

// Rules keep independent state, so each rule can be run alone: the full
// policy's decision must be the most severe of what the rules alone decide
// (their fired action, or abstain_uncertain/missing_<field>), ties to the
// earlier rule, or the default when none asks for anything. So it is never
// less severe than any fired rule, and never proceed when a rule needs a
// missing field.
func TestPropertyComposition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		nRules := 1 + rng.IntN(8)
		rules := make([]string, nRules)
		for i := range rules {
			rules[i] = randRule(rng, i)
		}
		full, err := Parse("p.yaml", []byte(policyWith(strings.Join(rules, ""))))
		if err != nil {
			t.Fatalf("%v\n%s", err, strings.Join(rules, ""))
		}
		alone := make([]*Policy, nRules)
		for i := range rules {
			if alone[i], err = Parse("a.yaml", []byte(policyWith(rules[i]))); err != nil {
				t.Fatal(err)
			}
		}
		seq := randSequence(rng, 40)
		got := decideAll(t, full, seq)
		for k, c := range seq {
			want := decisions.Decision{Kind: decisions.KindProceed, Reason: "nominal", DecisionStampSimNs: c.BeliefStampSimNs, SchemaVersion: 1}
			best := -1
			for i, a := range alone {
				d, err := a.Decide(c)
				if err != nil {
					t.Fatal(err)
				}
				if d.Reason == "nominal" {
					continue
				}
				if Severity(got[k].Kind) < Severity(d.Kind) {
					t.Fatalf("iter %d step %d: decided %v, less severe than rule %d's %v", iter, k, got[k], i, d)
				}
				if best < 0 || Severity(d.Kind) > Severity(want.Kind) {
					best, want = i, d
				}
			}
			if got[k] != want {
				t.Fatalf("iter %d step %d: decided %v, composition of the rules gives %v\n%s", iter, k, got[k], want, strings.Join(rules, ""))
			}
			if strings.HasPrefix(want.Reason, "missing_") && got[k].Kind == decisions.KindProceed {
				t.Fatalf("proceed with a missing field")
			}
		}
	}
}

// Determinism: the same sequence gives the same decisions, from a fresh
// instance or from the parsed policy, and Checkpoint/Rollback around a
// detour restores the state exactly.
func TestPropertyDeterminismAndRollback(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 100; iter++ {
		nRules := 1 + rng.IntN(6)
		var rules strings.Builder
		for i := 0; i < nRules; i++ {
			rules.WriteString(randRule(rng, i))
		}
		p, err := Parse("p.yaml", []byte(policyWith(rules.String())))
		if err != nil {
			t.Fatal(err)
		}
		seq := randSequence(rng, 30)
		first := decideAll(t, p.NewInstance(), seq)
		if second := decideAll(t, p.NewInstance(), seq); fmt.Sprint(first) != fmt.Sprint(second) {
			t.Fatalf("iter %d: two runs differ\n%v\n%v", iter, first, second)
		}
		q := p.NewInstance().(*Policy)
		for k, c := range seq {
			q.Checkpoint()
			// A detour: contexts at later stamps, some refused, then undone.
			for j := 0; j < rng.IntN(4); j++ {
				q.Decide(randContext(rng, c.BeliefStampSimNs+int64(rng.IntN(3_000_000_000))))
			}
			q.Rollback()
			d, err := q.Decide(c)
			if err != nil {
				t.Fatal(err)
			}
			if d != first[k] {
				t.Fatalf("iter %d step %d: after rollback %v, want %v", iter, k, d, first[k])
			}
		}
	}
}
