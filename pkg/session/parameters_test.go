package session

import (
	"math"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func timeoutEvent(at int64, node string, v ros2msg.ParameterValue) engine.ParameterEvent {
	m := ros2msg.ParameterEvent{Node: node, ChangedParameters: []ros2msg.Parameter{{Name: engine.ParameterAssessmentTimeout, Value: v}}}
	data, err := m.MarshalCDR()
	if err != nil {
		panic(err)
	}
	var d Decoded
	if err := decodeParameterEvent()(data, at, nil, &d); err != nil {
		panic(err)
	}
	return d.Event().(engine.ParameterEvent)
}

func seconds(s float64) ros2msg.ParameterValue {
	return ros2msg.ParameterValue{Type: engine.ParameterDouble, DoubleValue: s}
}

// TestParameterEventChangesTheTimeout: a belief without assessment waits
// the configured 100 ms until an event of this node shortens the timeout;
// the event's own step then decides it, without assessment, for timeout.
func TestParameterEventChangesTheTimeout(t *testing.T) {
	const node = "/decision_node"
	tests := []struct {
		name        string
		ev          engine.ParameterEvent
		decidedAtEv bool
		want        time.Duration
	}{
		{"shorter timeout", timeoutEvent(60*ms, node, seconds(0.05)), true, 50 * time.Millisecond},
		{"integer seconds", timeoutEvent(60*ms, node, ros2msg.ParameterValue{Type: engine.ParameterInteger, IntegerValue: 1}), false, time.Second},
		{"longer timeout", timeoutEvent(60*ms, node, seconds(0.5)), false, 500 * time.Millisecond},
		{"another node", timeoutEvent(60*ms, "/other", seconds(0.05)), false, 100 * time.Millisecond},
		{"negative", timeoutEvent(60*ms, node, seconds(-1)), false, 100 * time.Millisecond},
		{"NaN", timeoutEvent(60*ms, node, seconds(math.NaN())), false, 100 * time.Millisecond},
		{"string", timeoutEvent(60*ms, node, ros2msg.ParameterValue{Type: engine.ParameterString, StringValue: "0.05"}), false, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLoop(t, engine.LoopOptions{Node: node})
			var out engine.Output
			// Two beliefs that agree anchor the stream: timeouts apply.
			for _, ev := range []engine.Event{bEv(0, 1000), bEv(1*ms, 1000+1*ms)} {
				if err := l.Step(ev, &out); err != nil || len(out.Commands) != 0 {
					t.Fatalf("belief: %v %+v", err, out.Commands)
				}
			}
			if err := l.Step(tt.ev, &out); err != nil {
				t.Fatal(err)
			}
			if got := len(out.Commands) == 2; got != tt.decidedAtEv {
				t.Fatalf("decided at the event: %v, want %v (%+v)", got, tt.decidedAtEv, out.Commands)
			}
			if tt.decidedAtEv && out.Commands[0].WithoutAssessment != engine.WithoutTimeout {
				t.Errorf("decided %s, want timeout", out.Commands[0].WithoutAssessment)
			}
			if l.AssessmentTimeout() != tt.want {
				t.Errorf("timeout = %s, want %s", l.AssessmentTimeout(), tt.want)
			}
		})
	}
}

// TestParameterEventNeedsANode: a Loop without a node name follows no
// event, so sessions built without one (tests, tools) keep their options.
func TestParameterEventNeedsANode(t *testing.T) {
	l := mustLoop(t, engine.LoopOptions{})
	var out engine.Output
	if err := l.Step(timeoutEvent(0, "", seconds(0.05)), &out); err != nil {
		t.Fatal(err)
	}
	if l.AssessmentTimeout() != engine.DefaultAssessmentTimeout {
		t.Errorf("timeout = %s", l.AssessmentTimeout())
	}
}

// TestParameterEventThroughSession: the event is an input like any other,
// read from its topic by the session's decoder.
func TestParameterEventThroughSession(t *testing.T) {
	s, err := NewSession(SessionOptions{Loop: engine.LoopOptions{Node: "/decision_node"}})
	if err != nil {
		t.Fatal(err)
	}
	m := ros2msg.ParameterEvent{Node: "/decision_node", ChangedParameters: []ros2msg.Parameter{{Name: engine.ParameterAssessmentTimeout, Value: seconds(0.25)}}}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Feed("/parameter_events", 5, data); err != nil {
		t.Fatal(err)
	}
	if s.Loop().AssessmentTimeout() != 250*time.Millisecond || s.Stats().Input(KeyParameterEvents).Messages != 1 {
		t.Errorf("timeout %s, stats %+v", s.Loop().AssessmentTimeout(), s.Stats())
	}
	if err := s.Feed("/parameter_events", 6, data[:7]); err == nil {
		t.Error("a truncated event was accepted")
	}
}

func lifecycleCDR(t *testing.T, goal uint8) []byte {
	t.Helper()
	m := ros2msg.LifecycleTransitionEvent{GoalState: ros2msg.LifecycleState{ID: goal}}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSessionLifecycle: a managed session decides only between an event
// to the active state and the next one away from it; what arrives in
// between is counted, not decided, and no time passes for it.
func TestSessionLifecycle(t *testing.T) {
	const topic = "/decision_node/transition_event"
	inputs := DefaultInputs()
	for i := range inputs {
		if inputs[i].Key == KeyTransitionEvent {
			inputs[i].Topic = topic
		}
	}
	beliefCDR := func(stamp int64) []byte {
		w := ros2msg.BeliefToWire(&[]engine.BeliefEvent{{Belief: belief(stamp)}}[0].Belief)
		data, err := w.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, managed := range []bool{false, true} {
		s, err := NewSession(SessionOptions{Inputs: inputs, Lifecycle: managed})
		if err != nil {
			t.Fatal(err)
		}
		feed := func(topic string, at int64, data []byte) {
			if err := s.Feed(topic, at, data); err != nil {
				t.Fatal(err)
			}
		}
		feed("/state/nav", 0, beliefCDR(1000))
		if err := s.End(1); err != nil {
			t.Fatal(err)
		}
		decided := int(decisionsOf(s))
		if want := map[bool]int{false: 1, true: 0}[managed]; decided != want || s.Active() == managed {
			t.Fatalf("managed %v, before activation: %d decided, active %v", managed, decided, s.Active())
		}
		feed(topic, 2, lifecycleCDR(t, 13)) // activating
		feed(topic, 3, lifecycleCDR(t, 3))  // active
		feed("/state/nav", 4, beliefCDR(2000))
		feed(topic, 5, lifecycleCDR(t, 14)) // deactivating
		feed("/state/nav", 6, beliefCDR(3000))
		if err := s.End(7); err != nil {
			t.Fatal(err)
		}
		decided = int(decisionsOf(s))
		if managed {
			if decided != 0 || s.Active() || s.Stats().Inactive != 2 {
				t.Errorf("managed: %d decided, active %v, %d ignored; want 0, false, 2", decided, s.Active(), s.Stats().Inactive)
			}
			feed(topic, 8, lifecycleCDR(t, 3))
			if err := s.End(9); err != nil {
				t.Fatal(err)
			}
			if n := decisionsOf(s); n != 1 {
				t.Errorf("managed, active again: End decided %d, want the one belief admitted while active", n)
			}
		} else if decided != 3 || s.Stats().Inactive != 0 {
			t.Errorf("unmanaged: %d decided, %d ignored; want 3, 0 (transition events ignored)", decided, s.Stats().Inactive)
		}
	}
}

func decisionsOf(s *Session) uint64 {
	c := s.Runner().Counters()
	return c.DecisionsTotal()
}

// TestSessionLifecycleFromEvents: replay and verify follow a recording's
// transition events from the first one on, without being told the node
// was managed.
func TestSessionLifecycleFromEvents(t *testing.T) {
	const topic = "/decision_node/transition_event"
	inputs := DefaultInputs()
	for i := range inputs {
		if inputs[i].Key == KeyTransitionEvent {
			inputs[i].Topic = topic
		}
	}
	s, err := NewSession(SessionOptions{Inputs: inputs, LifecycleFromEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	feed := func(topic string, at int64, data []byte) {
		t.Helper()
		if err := s.Feed(topic, at, data); err != nil {
			t.Fatal(err)
		}
	}
	beliefCDR := func(stamp int64) []byte {
		w := ros2msg.BeliefToWire(&[]engine.BeliefEvent{{Belief: belief(stamp)}}[0].Belief)
		data, err := w.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	feed("/state/nav", 0, beliefCDR(1000))
	if err := s.End(1); err != nil {
		t.Fatal(err)
	}
	if n := decisionsOf(s); n != 1 || !s.Active() {
		t.Fatalf("before any transition event: %d decided, active %v; want 1, true", n, s.Active())
	}
	feed(topic, 2, lifecycleCDR(t, 3))  // active
	feed(topic, 3, lifecycleCDR(t, 14)) // deactivating
	feed("/state/nav", 4, beliefCDR(2000))
	if err := s.End(5); err != nil {
		t.Fatal(err)
	}
	if n := decisionsOf(s); n != 1 || s.Active() || s.Stats().Inactive != 1 {
		t.Fatalf("after deactivating: %d decided, active %v, %d ignored; want 1, false, 1", n, s.Active(), s.Stats().Inactive)
	}
	feed(topic, 6, lifecycleCDR(t, 3))
	feed("/state/nav", 7, beliefCDR(3000))
	if err := s.End(8); err != nil {
		t.Fatal(err)
	}
	if n := decisionsOf(s); n != 2 {
		t.Fatalf("active again: %d decided, want 2", n)
	}
}

// TestEnablesChangeAtRunTime: the executor enables follow the node's own
// parameter events from the next decided kind on; another node's events,
// and enables no executor can honour, change nothing.
func TestEnablesChangeAtRunTime(t *testing.T) {
	const node = "/decision_node"
	kinds := map[int64]decisions.Kind{100: decisions.KindHold, 300: decisions.KindHold, 500: decisions.KindHold,
		700: decisions.KindEngageKill, 900: decisions.KindEngageKill}
	ex := &fakeExec{id: "fake", kinds: []decisions.Kind{decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill}}
	s, err := NewSession(SessionOptions{
		Loop: engine.LoopOptions{Policy: scriptPolicy{kinds}, Node: node,
			Actions: engine.ActionOptions{AckTimeout: 300 * time.Millisecond, MaxRetries: 2, ReachTimeout: time.Second}},
		Executors: []Executor{ex}, TargetVehicle: vehicle, Enable: []decisions.Kind{decisions.KindEngageRTL},
	})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memoryActionSink{}
	if err := s.Runner().RegisterActionSink("memory", sink); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, ex: ex, sink: sink}
	change := func(atMs int64, from string, c engine.ParameterChange) {
		t.Helper()
		if err := s.Step(engine.ParameterEvent{ArrivalNs: atMs * ms, Node: from, Changes: []engine.ParameterChange{c}}); err != nil {
			t.Fatal(err)
		}
	}
	enable := func(v string) engine.ParameterChange {
		return engine.ParameterChange{Name: engine.ParameterEnable, Type: engine.ParameterString, String: v}
	}
	h.belief(100) // hold, not enabled: blocked
	change(150, "/other_node", enable("hold"))
	change(160, node, enable("hold,engage_kill")) // kill through enable: ignored whole
	h.belief(200)
	h.belief(300) // still blocked
	change(350, node, enable("hold, engage_rtl"))
	if !s.Loop().Enabled(decisions.KindHold) || !s.Loop().Enabled(decisions.KindEngageRTL) {
		t.Fatal("hold and engage_rtl not enabled after the node's event")
	}
	h.belief(400)
	h.belief(500) // sent
	h.belief(600)
	h.belief(700) // kill: blocked
	change(750, node, engine.ParameterChange{Name: engine.ParameterEnableKill, Type: engine.ParameterBool, Bool: true})
	h.belief(800)
	h.belief(900) // kill: sent
	h.want("1 failed/blocked_by_policy", "2 failed/blocked_by_policy", "3 sent", "3 superseded",
		"4 failed/blocked_by_policy", "5 sent")
}
