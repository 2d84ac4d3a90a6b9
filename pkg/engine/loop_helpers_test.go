package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/decisions/decisionstest"
)

const ms = int64(time.Millisecond)

var testThresholds = decisionstest.Thresholds

func belief(stamp int64) decisions.Belief { return decisionstest.Belief(stamp) }

func assessment(t testing.TB, stamp int64, lvl decisions.Level) decisions.SelfAssessment {
	t.Helper()
	return decisionstest.Assessment(t, stamp, lvl)
}

func bEv(at, stamp int64) Event { return BeliefEvent{ArrivalNs: at, Belief: belief(stamp)} }

func aEv(t testing.TB, at, stamp int64, lvl decisions.Level) Event {
	return AssessmentEvent{ArrivalNs: at, Assessment: assessment(t, stamp, lvl)}
}

func pEv(at, stamp int64, m decisions.PerceptionMode) Event {
	return PerceptionEvent{ArrivalNs: at, Report: decisions.PerceptionReport{StampSimNs: stamp, Mode: m}}
}

func mustLoop(t testing.TB, opts LoopOptions) *Loop {
	t.Helper()
	l, err := NewLoop(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// describe renders an output as short lines, in the order commands,
// rejections, duplicates, notes:
//
//	decide <stamp> <kind> with|without:<reason> [perception <mode>@<stamp>]
//	reject <reason> <stamp>
//	dup <input> <stamp>
//	note <stamp> <field>
func describe(out *Output) []string {
	var s []string
	for _, c := range out.Commands {
		line := fmt.Sprintf("decide %d %s ", c.Decision.DecisionStampSimNs, c.Decision.Kind)
		if c.Context.SelfAssessment != nil {
			line += "with"
		} else {
			line += "without:" + c.WithoutAssessment.String()
		}
		if p := c.Context.Perception; p != nil {
			line += fmt.Sprintf(" perception %s@%d", p.Mode, p.StampSimNs)
		}
		s = append(s, line)
	}
	for _, r := range out.Rejections {
		s = append(s, fmt.Sprintf("reject %s %d", r.Reason, r.Stamp))
	}
	for _, d := range out.Duplicates {
		s = append(s, fmt.Sprintf("dup %s %d", d.Input, d.Stamp))
	}
	return s
}

// run steps every event and returns all described output lines, failing on
// any step error.
func run(t testing.TB, l *Loop, evs []Event) ([]string, []Output) {
	t.Helper()
	var lines []string
	var outs []Output
	for i, ev := range evs {
		var out Output
		if err := l.Step(ev, &out); err != nil {
			t.Fatalf("event %d (%T): %v", i, ev, err)
		}
		lines = append(lines, describe(&out)...)
		outs = append(outs, out)
	}
	return lines, outs
}

// checkSizes fails when a buffer exceeds its bound or its backing array
// grew beyond a small multiple of it.
func checkSizes(t testing.TB, l *Loop) {
	t.Helper()
	s := l.Sizes()
	if s.PendingBeliefs > l.maxPending || s.HeldAssessments > l.maxHeld || s.PerceptionHistory > l.maxPerception ||
		s.PerceptionMemory > l.maxPerception || s.DecidedMemory > l.maxDecided {
		t.Fatalf("sizes %+v exceed bounds pending %d held %d perception %d decided %d",
			s, l.maxPending, l.maxHeld, l.maxPerception, l.maxDecided)
	}
	// Backing arrays: live entries plus at most as many dead ones, doubled
	// by growth, with one step's transient overflow.
	for _, c := range []struct {
		name     string
		cap, max int
	}{
		{"pending", cap(l.pending.buf), l.maxPending},
		{"held", cap(l.held.buf), l.maxHeld},
		{"history", cap(l.history.buf), l.maxPerception},
		{"pastPerception", cap(l.pastPerception.buf), 2 * l.maxPerception},
		{"decided", cap(l.decided.buf), l.maxDecided + l.maxPending},
	} {
		if c.cap > 4*(c.max+1)+8 {
			t.Fatalf("%s backing array has capacity %d for a bound of %d", c.name, c.cap, c.max)
		}
	}
}

// stateDump renders the whole session state, to compare before and after a
// failed step.
func stateDump(l *Loop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "started=%v now=%d last=%d newestA=%d forgotten=%d\n", l.started, l.now, l.lastDecided, l.newestAssessment, l.forgottenUpTo)
	fmt.Fprintf(&b, "first=%d anchored=%v ref=%d@%d jump=%+v\n", l.firstArrival, l.anchored, l.refStamp, l.refArrival, l.jump)
	for _, p := range l.pending.items() {
		fmt.Fprintf(&b, "pending %d@%d %v\n", p.key(), p.arrival, p.belief.Flight)
	}
	for _, h := range l.held.items() {
		fmt.Fprintf(&b, "held %s@%d\n", h.a.AppendCanonicalJSON(nil), h.arrival)
	}
	for _, p := range l.history.items() {
		fmt.Fprintf(&b, "history %v\n", p.r)
	}
	for _, p := range l.pastPerception.items() {
		fmt.Fprintf(&b, "past %v\n", p.r)
	}
	for _, d := range l.decided.items() {
		fmt.Fprintf(&b, "decided %d %s %v %v %v %v\n", d.key(), d.kind, d.without, d.hasAssessment, d.hasPerception, d.perception)
	}
	return b.String()
}

// failingPolicy is the reference policy, except that it fails for the
// stamps in fail while armed.
type failingPolicy struct {
	fail  map[int64]bool
	armed bool
}

func (p *failingPolicy) ID() string { return decisions.ReferencePolicyID }

func (p *failingPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	if p.armed && p.fail[c.BeliefStampSimNs] {
		return decisions.Decision{}, fmt.Errorf("injected failure at %d", c.BeliefStampSimNs)
	}
	return decisions.ReferencePolicy{}.Decide(c)
}

var nan = math.NaN()
