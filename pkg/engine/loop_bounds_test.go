package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/internal/testscale"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// million is the length of the long event sequences: a million in the full
// run (GHOST_TEST_FULL=1), a tenth of it otherwise: the default bounds are
// about a thousand entries, so the sample still passes them a hundredfold.
func million(t *testing.T) int {
	t.Helper()
	return testscale.Count(t, 1_000_000, 100_000, "events")
}

// TestLoopBoundedAssessmentsWithoutBeliefs feeds a million assessments and
// no belief: the held buffer stays at its bound, every overflow is reported,
// and nothing is decided.
func TestLoopBoundedAssessmentsWithoutBeliefs(t *testing.T) {
	n := million(t)
	l := mustLoop(t, LoopOptions{})
	a := assessment(t, 0, known)
	var out Output
	dropped := 0
	for i := 0; i < n; i++ {
		a.BeliefStampSimNs = int64(i)
		if err := l.Step(AssessmentEvent{ArrivalNs: int64(i), Assessment: a}, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Commands) != 0 {
			t.Fatalf("assessment %d decided something", i)
		}
		for _, r := range out.Rejections {
			if r.Reason != RejectAssessmentBufferFull || r.Stamp != int64(dropped) {
				t.Fatalf("assessment %d: rejection %v, want assessment_buffer_full of stamp %d", i, r, dropped)
			}
			dropped++
		}
		if i%1024 == 0 {
			checkSizes(t, l)
		}
	}
	checkSizes(t, l)
	if s := l.Sizes(); s.HeldAssessments != DefaultMaxPendingAssessments {
		t.Errorf("held %d, want %d", s.HeldAssessments, DefaultMaxPendingAssessments)
	}
	if dropped != n-DefaultMaxPendingAssessments {
		t.Errorf("dropped %d, want %d", dropped, n-DefaultMaxPendingAssessments)
	}
}

// TestLoopBoundedRandomBeliefs feeds a million beliefs with random stamps,
// then random stamps in a narrow window mixed with every other input: no
// buffer exceeds its bound and decisions stay strictly increasing.
func TestLoopBoundedRandomBeliefs(t *testing.T) {
	n := million(t)
	rng := rand.New(rand.NewPCG(1, 2))
	l := mustLoop(t, LoopOptions{})
	inv := newInvariants(l)
	var out Output
	var at int64
	b := belief(0)
	for i := 0; i < n; i++ {
		at += rng.Int64N(200_000)
		b.StampSimNs = rng.Int64()
		if err := l.Step(BeliefEvent{ArrivalNs: at, Belief: b}, &out); err != nil {
			t.Fatal(err)
		}
		inv.check(t, &out)
		if i%1024 == 0 {
			checkSizes(t, l)
		}
	}
	if inv.decisions == 0 {
		t.Fatal("nothing decided")
	}

	small := mustLoop(t, LoopOptions{MaxPendingBeliefs: 8, MaxPendingAssessments: 8, MaxPerceptionReports: 8, MaxDecidedMemory: 8})
	inv = newInvariants(small)
	gen := newEventGen(t, rng, 64)
	for i := 0; i < n/4; i++ {
		if err := small.Step(gen.next(), &out); err != nil {
			t.Fatal(err)
		}
		inv.check(t, &out)
		checkSizes(t, small)
	}
	if inv.decisions == 0 || inv.withAssessment == 0 || inv.rejections == 0 || inv.duplicates == 0 {
		t.Errorf("random mix did not exercise the loop: %+v", inv)
	}
}

// TestLoopDeterministic runs one long random event sequence through two
// loops and compares the output bytes.
func TestLoopDeterministic(t *testing.T) {
	n := million(t) / 5
	encode := func() []byte {
		rng := rand.New(rand.NewPCG(7, 11))
		gen := newEventGen(t, rng, 4096)
		l := mustLoop(t, LoopOptions{MaxPendingBeliefs: 64, MaxPendingAssessments: 64, MaxPerceptionReports: 32, MaxDecidedMemory: 128})
		var buf bytes.Buffer
		var out Output
		for i := 0; i < n; i++ {
			if err := l.Step(gen.next(), &out); err != nil {
				t.Fatal(err)
			}
			encodeOutput(&buf, &out)
		}
		return buf.Bytes()
	}
	first, second := encode(), encode()
	if len(first) < n {
		t.Fatalf("only %d bytes of output for %d events", len(first), n)
	}
	if !bytes.Equal(first, second) {
		i := 0
		for i < len(first) && i < len(second) && first[i] == second[i] {
			i++
		}
		t.Fatalf("runs differ at byte %d of %d/%d", i, len(first), len(second))
	}
}

// encodeOutput writes everything an Output says, contexts included.
func encodeOutput(buf *bytes.Buffer, out *Output) {
	for _, c := range out.Commands {
		buf.Write(c.Rationale.AppendCanonicalJSON(nil))
		fmt.Fprintf(buf, " %s %v %v", c.WithoutAssessment, c.Context.Flight, c.Context.Mission.Progress)
		if c.Context.SelfAssessment != nil {
			buf.Write(c.Context.SelfAssessment.AppendCanonicalJSON(nil))
		}
		if c.Context.Perception != nil {
			fmt.Fprintf(buf, " %v", *c.Context.Perception)
		}
		buf.WriteByte('\n')
	}
	for _, r := range out.Rejections {
		buf.WriteString(r.String())
		buf.WriteByte('\n')
	}
	for _, d := range out.Duplicates {
		buf.WriteString("dup " + d.Input.String() + " " + strconv.FormatInt(d.Stamp, 10) + "\n")
	}
}

// eventGen draws random event sequences over a window of stamps: beliefs,
// assessments and perception reports mostly in order with jitter, identical
// and conflicting repeats, invalid inputs, ticks and ends.
type eventGen struct {
	rng      *rand.Rand
	window   int64
	at, base int64
	levels   [3]decisions.SelfAssessment
}

func newEventGen(t testing.TB, rng *rand.Rand, window int64) *eventGen {
	g := &eventGen{rng: rng, window: window}
	for i, lvl := range []decisions.Level{known, uncertain, unknown} {
		g.levels[i] = assessment(t, 0, lvl)
	}
	return g
}

func (g *eventGen) stamp() int64 {
	g.base += g.rng.Int64N(3)
	return max(0, g.base+g.rng.Int64N(g.window)-g.window/2)
}

func (g *eventGen) next() Event {
	g.at += g.rng.Int64N(40 * ms)
	if g.rng.IntN(50) == 0 {
		g.at -= g.rng.Int64N(20 * ms) // clock going backwards
	}
	switch k := g.rng.IntN(100); {
	case k < 40:
		b := belief(g.stamp())
		switch g.rng.IntN(20) {
		case 0:
			b.Flight.BatteryPct = float64(g.rng.IntN(2)) / 2 // conflicting repeats
		case 1:
			b.OrientationQ[1] = nan
		}
		return BeliefEvent{ArrivalNs: g.at, Belief: b}
	case k < 80:
		a := g.levels[g.rng.IntN(3)]
		a.BeliefStampSimNs = g.stamp()
		if g.rng.IntN(30) == 0 {
			a.SchemaVersion = 2
		}
		return AssessmentEvent{ArrivalNs: g.at, Assessment: a}
	case k < 90:
		return PerceptionEvent{ArrivalNs: g.at, Report: decisions.PerceptionReport{
			StampSimNs: g.stamp(), Mode: decisions.PerceptionMode(g.rng.IntN(9))}}
	case k < 99:
		return TickEvent{ArrivalNs: g.at}
	default:
		return EndEvent{ArrivalNs: g.at}
	}
}

// invariants checks, across steps, what must hold for any event sequence:
// decisions strictly increasing in stamp (so at most one per stamp), every
// command valid for the Runner, and an assessment stamp newer than a
// belief decided for that reason.
type invariants struct {
	l              *Loop
	r              *Provenance
	last           int64
	decisions      int
	withAssessment int
	rejections     int
	duplicates     int
}

func newInvariants(l *Loop) *invariants {
	return &invariants{l: l, r: &Provenance{ExpectedPolicyID: l.PolicyID()}, last: -1}
}

func (v *invariants) check(t testing.TB, out *Output) {
	t.Helper()
	for _, c := range out.Commands {
		s := c.Decision.DecisionStampSimNs
		if s <= v.last {
			t.Fatalf("decision at %d after %d", s, v.last)
		}
		v.last = s
		if err := v.r.Check(&c); err != nil {
			t.Fatalf("command %s: %v", c.Decision, err)
		}
		if c.WithoutAssessment == WithoutNewerAssessment && v.l.newestAssessment <= s {
			t.Fatalf("decision %s without assessment for a newer one, but the newest is %d", c.Decision, v.l.newestAssessment)
		}
		v.decisions++
		if c.Context.SelfAssessment != nil {
			v.withAssessment++
		}
	}
	v.rejections += len(out.Rejections)
	v.duplicates += len(out.Duplicates)
	if got, ok := v.l.LastDecided(); ok != (v.last >= 0) || got != v.last {
		t.Fatalf("LastDecided %d %v, commands say %d", got, ok, v.last)
	}
}

// TestLoopDecidedMemoryReservedOnce: at the default bounds the decided
// memory takes its settled size with the first decision and keeps it
// (growing by doubling cost a short flight's verify a fifth of its CPU)
// through a steady flight with, between its stretches, a full pending
// buffer decided in one step.
func TestLoopDecidedMemoryReservedOnce(t *testing.T) {
	l := mustLoop(t, LoopOptions{})
	a := assessment(t, 0, known)
	var out Output
	step := func(ev Event) {
		t.Helper()
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
	}
	stamp := int64(0)
	for round := range 4 {
		// Beliefs whose assessments come later, decided by timeout in
		// one step: the pending buffer's worth at once.
		for range DefaultMaxPendingBeliefs {
			stamp++
			step(BeliefEvent{ArrivalNs: stamp * 1000, Belief: belief(stamp)})
		}
		stamp += int64(DefaultAssessmentTimeout) / 1000
		for range 3 * DefaultMaxDecidedMemory {
			stamp++
			step(BeliefEvent{ArrivalNs: stamp * 1000, Belief: belief(stamp)})
			a.BeliefStampSimNs = stamp
			step(AssessmentEvent{ArrivalNs: stamp*1000 + 1, Assessment: a})
		}
		if got := cap(l.decided.buf); got != maxDecidedReserve {
			t.Fatalf("round %d: decided memory capacity %d, reserved %d", round, got, maxDecidedReserve)
		}
		checkSizes(t, l)
	}
}
