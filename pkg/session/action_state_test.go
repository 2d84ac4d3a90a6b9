package session

import (
	"fmt"
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// seeingPolicy decides as scriptPolicy and keeps what each context saw of
// the actions, by stamp in ms.
type seeingPolicy struct {
	scriptPolicy
	seen map[int64]*decisions.ActionStates
}

func (p *seeingPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	if c.Actions != nil {
		s := *c.Actions
		p.seen[c.BeliefStampSimNs/ms] = &s
	} else {
		p.seen[c.BeliefStampSimNs/ms] = nil
	}
	return p.scriptPolicy.Decide(c)
}

// view is one kind's action state as "outcome attempts since_ms", or
// "unrouted" when the context had no action state.
func view(s *decisions.ActionStates, k decisions.Kind) string {
	if s == nil {
		return "unrouted"
	}
	a := s[k]
	since := "-"
	if a.SinceStampSimNs >= 0 {
		since = fmt.Sprint(a.SinceStampSimNs / ms)
	}
	return fmt.Sprintf("%s %d %s", a.Outcome, a.Attempts, since)
}

func TestPolicySeesActionState(t *testing.T) {
	type see struct {
		at   int64
		kind decisions.Kind
		want string
	}
	h, rtl, kill := decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageKill
	tests := []struct {
		name   string
		kinds  map[int64]decisions.Kind
		script func(h *harness)
		see    []see
	}{
		{"accepted then reached", hold, func(x *harness) {
			x.queue(150, ack(1, 176, decisions.AckAccepted))
			x.queue(250, state(1, 4, true))
		}, []see{{100, h, "none 0 -"}, {200, h, "accepted 1 200"}, {300, h, "reached 1 300"}, {900, h, "reached 1 300"}, {900, rtl, "none 0 -"}}},
		{"dropped: sent, retried, transport", hold, func(*harness) {},
			[]see{{200, h, "sent 1 200"}, {400, h, "sent 2 200"}, {700, h, "sent 3 200"}, {1000, h, "transport 3 1000"}, {1500, h, "transport 3 1000"}}},
		{"denied", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckDenied)) },
			[]see{{200, h, "denied 1 200"}}},
		{"temporarily rejected", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckTemporarilyRejected)) },
			[]see{{200, h, "temporarily_rejected 1 200"}}},
		{"unsupported", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckUnsupported)) },
			[]see{{200, h, "unsupported 1 200"}}},
		{"failed", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckFailed)) },
			[]see{{200, h, "failed 1 200"}}},
		{"cancelled", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckCancelled)) },
			[]see{{200, h, "cancelled 1 200"}}},
		{"a result MAV_RESULT does not define", hold, func(x *harness) { x.queue(150, ack(1, 176, 9)) },
			[]see{{200, h, "unknown_result 1 200"}, {900, h, "unknown_result 1 200"}}},
		{"in progress, then reached", hold, func(x *harness) {
			x.queue(150, ack(1, 176, decisions.AckInProgress))
			x.queue(250, state(1, 4, true))
		}, []see{{200, h, "in_progress 1 200"}, {300, h, "reached 1 300"}}},
		{"in progress, never reached", hold, func(x *harness) { x.queue(150, ack(1, 176, decisions.AckInProgress)) },
			[]see{{1100, h, "in_progress 1 200"}, {1200, h, "not_reached 1 1200"}}},
		{"accepted, never reached", hold, func(x *harness) {
			x.queue(150, ack(1, 176, decisions.AckAccepted))
			x.queue(250, state(1, 2, true))
		}, []see{{1100, h, "accepted 1 200"}, {1200, h, "not_reached 1 1200"}}},
		{"superseded: a step's decisions see the state before them", map[int64]decisions.Kind{100: h, 200: rtl, 300: rtl}, func(*harness) {},
			[]see{{200, h, "sent 1 200"}, {200, rtl, "none 0 -"}, {300, h, "superseded 1 300"}, {300, rtl, "sent 1 300"}}},
		{"blocked by policy", map[int64]decisions.Kind{100: kill, 200: kill}, func(*harness) {},
			[]see{{100, kill, "none 0 -"}, {200, kill, "blocked_by_policy 0 200"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &seeingPolicy{scriptPolicy: scriptPolicy{tc.kinds}, seen: map[int64]*decisions.ActionStates{}}
			x := newHarnessWith(t, p, h, rtl, decisions.KindEngageLand)
			tc.script(x)
			for s := int64(100); s <= 1500; s += 100 {
				x.belief(s)
			}
			for _, w := range tc.see {
				if got := view(p.seen[w.at], w.kind); got != w.want {
					t.Errorf("at %d ms, %s: saw %q, want %q\n%s", w.at, w.kind, got, w.want, x.dump())
				}
			}
			s := p.seen[100]
			for k := range decisions.Kinds() {
				routed := k != int(decisions.KindProceed) && k != int(decisions.KindAbstainUncertain) && k != int(decisions.KindYieldToPilot)
				enabled := routed && k != int(kill)
				if s[k].Routed != routed || s[k].Enabled != enabled {
					t.Errorf("%s: routed %t enabled %t, want %t %t", decisions.Kind(k), s[k].Routed, s[k].Enabled, routed, enabled)
				}
			}
		})
	}
}

// TestEvidenceStepDecisionsSeeTheEvidence: a belief released by an
// evidence step (its assessment timed out) sees what that evidence did.
func TestEvidenceStepDecisionsSeeTheEvidence(t *testing.T) {
	p := &seeingPolicy{scriptPolicy: scriptPolicy{map[int64]decisions.Kind{100: decisions.KindHold, 200: decisions.KindHold}}, seen: map[int64]*decisions.ActionStates{}}
	x := newHarnessWith(t, p, decisions.KindHold)
	x.belief(100)
	if err := x.s.Step(engine.BeliefEvent{ArrivalNs: 200 * ms, Belief: belief(200 * ms)}); err != nil { // no assessment follows
		t.Fatal(err)
	}
	if err := x.s.Step(engine.EvidenceEvent{ArrivalNs: 350 * ms, Items: []engine.Evidence{ack(1, 176, decisions.AckDenied)}}); err != nil {
		t.Fatal(err)
	}
	if got := view(p.seen[200], decisions.KindHold); got != "denied 1 200" {
		t.Fatalf("saw %q\n%s", got, x.dump())
	}
}

func TestAdvisorySessionsCarryNoActionState(t *testing.T) {
	p := &seeingPolicy{scriptPolicy: scriptPolicy{hold}, seen: map[int64]*decisions.ActionStates{}}
	l := mustLoop(t, engine.LoopOptions{Policy: p})
	var out engine.Output
	for _, ev := range []engine.Event{aEv(t, 100*ms, 100*ms, decisions.LevelKnown), bEv(100*ms, 100*ms)} {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
	}
	if s, ok := p.seen[100]; !ok || s != nil || out.Commands[0].Context.Actions != nil {
		t.Fatalf("decided %t with action state %v", ok, s)
	}
}

func TestActionStatesValidate(t *testing.T) {
	base := func() decisions.Context {
		b := belief(500 * ms)
		return decisions.Context{BeliefStampSimNs: b.StampSimNs, Flight: b.Flight, Mission: b.Mission,
			Actions: &decisions.ActionStates{decisions.KindHold: {Routed: true, Enabled: true, ID: 1, Outcome: decisions.ActionSent, Attempts: 1, SinceStampSimNs: 100 * ms}}}
	}
	tests := []struct {
		name string
		edit func(a *decisions.ActionState)
		ok   bool
	}{
		{"valid", func(*decisions.ActionState) {}, true},
		{"unknown outcome", func(a *decisions.ActionState) { a.Outcome = decisions.NumActionOutcomes }, false},
		{"enabled, not routed", func(a *decisions.ActionState) { a.Routed = false; a.Outcome, a.ID = decisions.ActionNone, 0 }, false},
		{"an outcome without an id", func(a *decisions.ActionState) { a.ID = 0 }, false},
		{"an id without an outcome", func(a *decisions.ActionState) { a.Outcome = decisions.ActionNone }, false},
		{"a command of an unrouted kind", func(a *decisions.ActionState) { a.Routed, a.Enabled = false, false }, false},
		{"seen after the context", func(a *decisions.ActionState) { a.SinceStampSimNs = 600 * ms }, false},
		{"never seen", func(a *decisions.ActionState) { a.SinceStampSimNs = -1 }, false},
		{"none has no since", func(a *decisions.ActionState) {
			*a = decisions.ActionState{Routed: true, SinceStampSimNs: math.MaxInt64}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.edit(&c.Actions[decisions.KindHold])
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate: %v, want ok %t", err, tc.ok)
			}
		})
	}
}

func TestCloneOwnsTheActionStates(t *testing.T) {
	s := &decisions.ActionStates{decisions.KindHold: {Routed: true, Outcome: decisions.ActionSent, ID: 1}}
	c := engine.Command{Context: decisions.Context{Actions: s}}.Clone()
	s[decisions.KindHold].Outcome = decisions.ActionDenied
	if c.Context.Actions == s || c.Context.Actions[decisions.KindHold].Outcome != decisions.ActionSent {
		t.Fatal("the clone shares the action states")
	}
}
