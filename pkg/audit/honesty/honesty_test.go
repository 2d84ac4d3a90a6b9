package honesty

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/quat"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

const ms = int64(time.Millisecond)

func TestInterpolation(t *testing.T) {
	var b stream
	for _, s := range []int64{0, 20, 100, 200, 400} {
		b.add(truth.Sample{Stream: truth.StreamPosition, StampNs: s * ms, Value: [3]float64{float64(s), 0, -float64(s)}})
	}
	tests := []struct {
		name  string
		stamp int64
		gap   Gap
		want  float64
	}{
		{"before the first sample", -1, GapBefore, 0},
		{"on the first sample", 0, GapNone, 0},
		{"between two close samples", 5 * ms, GapNone, 5},
		{"40 ms from both", 60 * ms, GapNone, 60},
		{"50 ms from both: still within", 150 * ms, GapNone, 150},
		{"51 ms from one", 151 * ms, GapFar, 0},
		{"one side 100 ms away", 250 * ms, GapFar, 0},
		{"on a sample after a wide gap", 400 * ms, GapNone, 400},
		{"after the last sample", 400*ms + 1, GapAfter, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, gap := b.at(tc.stamp, 50*ms)
			if gap != tc.gap {
				t.Fatalf("gap %v, want %v", gap, tc.gap)
			}
			if gap == GapNone && (!near(s.Value[0], tc.want*float64(ms)/1e6, 1e-9) || !near(s.Value[2], -s.Value[0], 1e-9) || s.StampNs != tc.stamp) {
				t.Errorf("sample %+v, want %v", s, tc.want)
			}
		})
	}
	// Out of order and repeated samples are put in their place.
	b.add(truth.Sample{Stream: truth.StreamPosition, StampNs: 300 * ms, Value: [3]float64{300, 0, -300}})
	b.add(truth.Sample{Stream: truth.StreamPosition, StampNs: 300 * ms, Value: [3]float64{300, 0, -300}})
	if s, gap := b.at(250*ms, 50*ms); gap != GapNone || !near(s.Value[0], 250, 1e-9) {
		t.Errorf("after an out-of-order sample: %+v %v", s, gap)
	}
	// Pruning keeps the last sample at or before stamp-maxGap.
	b.prune(330*ms, 50*ms)
	if b.samples[0].StampNs != 200*ms || len(b.samples) != 3 {
		t.Errorf("pruned to %v", b.samples)
	}
}

func TestAttitudeInterpolation(t *testing.T) {
	var b stream
	q0, q1 := yaw(0.2), yaw(0.4)
	b.add(truth.Sample{Stream: truth.StreamAttitude, StampNs: 0, Q: q0})
	// The same rotation written in the other hemisphere must not swing
	// the interpolation through the long way.
	b.add(truth.Sample{Stream: truth.StreamAttitude, StampNs: 20 * ms, Q: [4]float64{-q1[0], -q1[1], -q1[2], -q1[3]}})
	s, gap := b.at(10*ms, 50*ms)
	if gap != GapNone {
		t.Fatal(gap)
	}
	rv := quat.RotationVector(quat.Mul(quat.Conj(yaw(0.3)), s.Q))
	if n := math.Sqrt(rv[0]*rv[0] + rv[1]*rv[1] + rv[2]*rv[2]); n > 1e-4 {
		t.Errorf("midway attitude is %v rad from yaw 0.3", n)
	}
}

func TestChiSquareQuantile(t *testing.T) {
	// Tabulated quantiles (NIST/SEMATECH e-Handbook, table of the
	// chi-square distribution's critical values).
	tests := []struct {
		p    float64
		k    int
		want float64
	}{
		{0.025, 3, 0.216}, {0.975, 3, 9.348}, {0.05, 1, 0.00393}, {0.95, 1, 3.841},
		{0.025, 30, 16.791}, {0.975, 30, 46.979}, {0.975, 100, 129.561}, {0.025, 100, 74.222},
	}
	for _, tc := range tests {
		if got := ChiSquareQuantile(tc.p, tc.k); !near(got, tc.want, 1e-3*tc.want+1e-5) {
			t.Errorf("ChiSquareQuantile(%v, %d) = %v, want %v", tc.p, tc.k, got, tc.want)
		}
	}
	// Large degrees of freedom: the normal approximation.
	k := 300000
	z := 1.959963984540054
	want := float64(k) + z*math.Sqrt(2*float64(k))
	if got := ChiSquareQuantile(0.975, k); !near(got, want, 1e-3*want) {
		t.Errorf("ChiSquareQuantile(0.975, %d) = %v, want about %v", k, got, want)
	}
	for _, bad := range []struct {
		p float64
		k int
	}{{0, 3}, {1, 3}, {0.5, 0}, {math.NaN(), 3}} {
		if got := ChiSquareQuantile(bad.p, bad.k); !math.IsNaN(got) {
			t.Errorf("ChiSquareQuantile(%v, %d) = %v, want NaN", bad.p, bad.k, got)
		}
	}
}

func TestNEES(t *testing.T) {
	cov := covOf(uniform(0.5, 0.1, 0.01))
	// A correlated position block: the NEES must use the whole block.
	cov[0*15+1], cov[1*15+0] = 0.1, 0.1
	e := [3]float64{0.5, -0.5, 1}
	// P = [[.25 .1 0] [.1 .25 0] [0 0 .25]]: by hand, e'P^-1e.
	det := 0.25*0.25 - 0.01
	want := (0.25*0.25+0.25*0.25+2*0.1*0.25)/det + 4
	p, ok := covBlock(cov, 0)
	got, ok2 := nees(p, e)
	if !ok || !ok2 || !near(got, want, 1e-9) {
		t.Errorf("nees = %v %v %v, want %v", got, ok, ok2, want)
	}
	cov[2*15+2] = -1
	if p, _ := covBlock(cov, 0); func() bool { _, ok := nees(p, e); return ok }() {
		t.Error("a block that is not positive definite gave a NEES")
	}
	if _, ok := covBlock(nil, 1); ok {
		t.Error("no covariance gave a block")
	}
	cov[1*15+1] = math.NaN()
	if _, ok := covBlock(cov, 0); ok {
		t.Error("a block that is not finite was taken")
	}
}

// TestConsequences: decisions on an overconfident belief, needless holds
// and abstentions, with their times and episodes.
func TestConsequences(t *testing.T) {
	r := newRecording(t, true, truth.FrameSim)
	for stamp := int64(0); stamp <= 1000*ms; stamp += 10 * ms {
		r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp})
		r.truth(truth.Sample{Stream: truth.StreamVelocity, StampNs: stamp})
		r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: [4]float64{1, 0, 0, 0}})
	}
	for i := int64(0); i <= 40; i++ {
		stamp := i * 20 * ms
		pos, std, kind := [3]float64{}, uniform(0.2, 0.1, 0.01), decisions.KindProceed
		switch {
		case i >= 5 && i < 10: // knows its position within 0.2 m, is 0.8 m off: overconfident
			pos[2] = 0.8
		case i >= 10 && i < 15: // doubts its position (uncertain), is within: needless hold
			std[0] = 1
			kind = decisions.KindHold
		case i >= 15 && i < 18: // no deviation at all (unknown), is within: needless abstention
			std = uniform(math.NaN(), math.NaN(), math.NaN())
			kind = decisions.KindAbstainUncertain
		case i >= 18 && i < 20: // doubts and is in fact 1 m off: a hold that was needed
			std[1], pos[1] = 1, 1
			kind = decisions.KindHold
		}
		r.belief(stamp, pos, [3]float64{}, [4]float64{1, 0, 0, 0}, std, kind)
	}
	res := r.audit(Options{})
	c := res.Consequences
	check := func(name string, g *Group, decisions uint64, seconds float64, kind string, axes string) {
		t.Helper()
		if g.Decisions != decisions || !near(g.Seconds, seconds, 1e-9) || len(g.Episodes) != 1 || g.ByKind[kind] == nil {
			t.Fatalf("%s: %+v", name, g)
		}
		e := g.Episodes[0]
		if e.Kind != kind || e.Decisions != decisions || strings.Join(e.Axes, ",") != axes || !near(e.Seconds, seconds, 1e-9) {
			t.Errorf("%s: episode %+v", name, e)
		}
	}
	check("overconfident", c.Overconfident, 5, 0.1, "proceed", "position_z")
	check("needless holds", c.NeedlessHolds, 5, 0.1, "hold", "position_x")
	check("needless abstentions", c.NeedlessAbstentions, 3, 0.06, "abstain_uncertain",
		"position_x,position_y,position_z,velocity_x,velocity_y,velocity_z,orientation_x,orientation_y,orientation_z")
	a := res.Axes["position_z"]
	if a.KnownViolations != 5 || !near(a.KnownViolationsS, 0.1, 1e-9) {
		t.Errorf("position_z: %+v", a)
	}
	if a := res.Axes["position_x"]; a.UnknownClaims != 8 || a.UnknownButWithin != 8 || a.ByLevel["uncertain"].Claims != 5 || a.ByLevel["unknown"].Claims != 3 {
		t.Errorf("position_x: %d doubted, %d within; by level %+v %+v", a.UnknownClaims, a.UnknownButWithin, a.ByLevel["uncertain"], a.ByLevel["unknown"])
	}
	// The doubt the truth bears out is not underconfidence.
	if a := res.Axes["position_y"]; a.UnknownClaims != 5 || a.UnknownButWithin != 3 || a.ByLevel["uncertain"].BeyondKnown != 2 {
		t.Errorf("position_y: %d doubted, %d within; uncertain %+v", a.UnknownClaims, a.UnknownButWithin, a.ByLevel["uncertain"])
	}
}

func TestNoVerdict(t *testing.T) {
	// No truth at all.
	r := newRecording(t, false, "")
	r.belief(0, [3]float64{}, [3]float64{}, [4]float64{1, 0, 0, 0}, uniform(0.1, 0.1, 0.01), decisions.KindProceed)
	res := r.audit(Options{})
	if res.Verdict != VerdictNone || res.Truth.Source != "none" || !strings.Contains(res.Reason, "circular") {
		t.Errorf("no truth: %+v", res)
	}
	// Position without attitude: one half of a simulator's truth.
	r = newRecording(t, true, truth.FrameSim)
	var kept []int
	for i, c := range r.chans {
		if c.Topic != truth.TopicAttitude {
			kept = append(kept, i)
		}
	}
	chans := r.chans
	r.chans = nil
	for _, i := range kept {
		r.chans = append(r.chans, chans[i])
	}
	res = r.audit(Options{})
	if res.Verdict != VerdictNone || !strings.Contains(res.Reason, "needs both") {
		t.Errorf("position alone: %+v", res)
	}
	// Truth channels without samples.
	r = newRecording(t, true, truth.FrameSim)
	r.belief(0, [3]float64{}, [3]float64{}, [4]float64{1, 0, 0, 0}, uniform(0.1, 0.1, 0.01), decisions.KindProceed)
	if res := r.audit(Options{}); res.Verdict != VerdictNone || res.Truth.Source != "simulator" {
		t.Errorf("empty truth: %+v", res)
	}
	// Truth, but no belief near it.
	r = newRecording(t, true, truth.FrameSim)
	r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: 0})
	r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: 0, Q: [4]float64{1, 0, 0, 0}})
	r.belief(time.Second.Nanoseconds(), [3]float64{}, [3]float64{}, [4]float64{1, 0, 0, 0}, uniform(0.1, 0.1, 0.01), decisions.KindProceed)
	if res := r.audit(Options{}); res.Verdict != VerdictNone || !strings.Contains(res.Reason, "nothing was compared") {
		t.Errorf("no belief near the truth: %+v", res)
	}
}

// TestDeterministic: the same recording gives the same JSON, whatever the
// horizon (which bounds memory, not the numbers).
func TestDeterministic(t *testing.T) {
	r := newRecording(t, true, truth.FramePX4)
	for stamp := int64(0); stamp <= 3000*ms; stamp += 7 * ms {
		x := float64(stamp) / 1e9
		r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp, Value: [3]float64{math.Sin(x), x, 0}})
		r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: yaw(x)})
	}
	for stamp := int64(0); stamp <= 3000*ms; stamp += 20 * ms {
		x := float64(stamp)/1e9 + 0.01
		r.belief(stamp, [3]float64{math.Sin(x), x, 0}, [3]float64{}, yaw(x), uniform(0.05, 0.1, 0.01), decisions.KindProceed)
	}
	var out []string
	for _, h := range []time.Duration{0, 50 * time.Millisecond, time.Hour} {
		b, err := json.Marshal(r.audit(Options{Horizon: h}))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if out[0] != out[1] || out[0] != out[2] {
		t.Errorf("the horizon changed the numbers:\n%s\n%s\n%s", out[0], out[1], out[2])
	}
	if !strings.Contains(out[0], `"velocity":"`) && !strings.Contains(out[0], `"verdict":"honest"`) && !strings.Contains(out[0], `"verdict":"overconfident"`) {
		t.Errorf("no verdict: %s", out[0])
	}
}
