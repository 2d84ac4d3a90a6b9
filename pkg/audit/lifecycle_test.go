package audit

import (
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

const (
	testNode          = "/decision_node"
	transitionTopic   = testNode + "/transition_event"
	transitionType    = "lifecycle_msgs/msg/TransitionEvent"
	parameterType     = "rcl_interfaces/msg/ParameterEvent"
	firstExtraChannel = 900
)

// extra is a message a test adds to a source at its log time.
type extra struct {
	at          int64
	topic, typ  string
	marshalData func() ([]byte, error)
}

// withExtra adds messages of standard ROS 2 types to a source, each before
// the first source message logged at or after its time.
type withExtra struct {
	t      *testing.T
	src    Source
	extra  []extra
	queued *bag.Message
	chans  []bag.Channel // one per topic of extra, made at the first Next
}

func (w *withExtra) channel(topic string) uint16 {
	for _, c := range w.chans {
		if c.Topic == topic {
			return c.ID
		}
	}
	return 0
}

func (w *withExtra) Next() (bag.Message, error) {
	if w.chans == nil {
		w.declare()
	}
	if w.queued == nil {
		m, err := w.src.Next()
		if err != nil && len(w.extra) == 0 {
			return m, err
		}
		if err == nil {
			w.queued = &m
		}
	}
	if len(w.extra) > 0 && (w.queued == nil || w.extra[0].at <= int64(w.queued.LogTime)) {
		e := w.extra[0]
		data, err := e.marshalData()
		if err != nil {
			return bag.Message{}, err
		}
		m := bag.Message{Topic: e.topic, SchemaName: e.typ, ChannelID: w.channel(e.topic),
			LogTime: uint64(e.at), PublishTime: uint64(e.at), Data: data}
		w.extra = w.extra[1:]
		return m, nil
	}
	m := *w.queued
	w.queued = nil
	return m, nil
}

// declare makes the channels of the added messages, with their standard
// definitions.
func (w *withExtra) declare() {
	set, err := stdmsgs.Set()
	if err != nil {
		w.t.Fatal(err)
	}
	w.chans = []bag.Channel{}
	for _, e := range w.extra {
		if w.channel(e.topic) != 0 {
			continue
		}
		text, err := set.SchemaText(e.typ)
		if err != nil {
			w.t.Fatal(err)
		}
		w.chans = append(w.chans, bag.Channel{ID: uint16(firstExtraChannel + len(w.chans)), Topic: e.topic, SchemaName: e.typ, SchemaText: text})
	}
}

// Channels gives replay the standard definitions of the added messages.
func (w *withExtra) Channels() []bag.Channel { return w.chans }

func transition(at int64, goal uint8) extra {
	return extra{at: at, topic: transitionTopic, typ: transitionType, marshalData: func() ([]byte, error) {
		e := ros2msg.LifecycleTransitionEvent{GoalState: ros2msg.LifecycleState{ID: goal}}
		return e.MarshalCDR()
	}}
}

func parameterSet(at int64, node string, p ros2msg.Parameter) extra {
	return extra{at: at, topic: "/parameter_events", typ: parameterType, marshalData: func() ([]byte, error) {
		e := ros2msg.ParameterEvent{Node: node, ChangedParameters: []ros2msg.Parameter{p}}
		return e.MarshalCDR()
	}}
}

func lifecycleInputs() []session.InputSpec {
	inputs := session.DefaultInputs()
	for i := range inputs {
		if inputs[i].Key == session.KeyTransitionEvent {
			inputs[i].Topic = transitionTopic
		}
	}
	return inputs
}

// TestVerifyFollowsTransitionEvents: a managed node's recording, active in
// two windows, verifies when verify follows its transition events (told,
// or from the events themselves); re-deciding it as an unmanaged node
// finds the beliefs between the windows undecided.
func TestVerifyFollowsTransitionEvents(t *testing.T) {
	const s = int64(time.Second)
	src := &withExtra{t: t, src: simSource(t, 30*time.Second, 20), extra: []extra{
		transition(2*s, 13), transition(3*s, 3), transition(10*s, 14), transition(11*s, 2), transition(20*s, 13), transition(21*s, 3)}}
	data, res, err := replayBytes(t, src, ReplayOptions{Session: session.SessionOptions{Inputs: lifecycleInputs(), Lifecycle: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Inactive == 0 || res.Counters.DecisionsTotal() == 0 {
		t.Fatalf("the recording was not managed: %d ignored, %d decided", res.Stats.Inactive, res.Counters.DecisionsTotal())
	}
	tests := []struct {
		name                string
		lifecycle, fromEvts bool
		pass                bool
	}{
		{"told it was managed", true, false, true},
		{"following the recorded events", false, true, true},
		{"as an unmanaged node", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Verify(openBytes(t, data), VerifyOptions{Session: session.SessionOptions{
				Inputs: lifecycleInputs(), Lifecycle: tc.lifecycle, LifecycleFromEvents: tc.fromEvts}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed() != tc.pass {
				t.Fatalf("passed %v, want %v: %v %v", r.Passed(), tc.pass, r.Findings, r.Undecided)
			}
			if !tc.pass && r.FindingCount(FindingMissingDecision) == 0 {
				t.Fatalf("findings %v, want %s", r.Findings, FindingMissingDecision)
			}
		})
	}
}

// TestVerifyFollowsRecordedEnables: executor enables changed while the
// node ran are recorded parameter events; the trail re-derives with them,
// and without the event it diverges.
func TestVerifyFollowsRecordedEnables(t *testing.T) {
	policy, err := rules.ParseFile("../../config/policies/px4_failsafe_like.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const s = int64(time.Second)
	enableAll := parameterSet(20*s, testNode, ros2msg.Parameter{Name: engine.ParameterEnable,
		Value: ros2msg.ParameterValue{Type: engine.ParameterString, StringValue: "hold,yield_to_pilot,engage_rtl,engage_land"}})
	ex := executor.NewPX4(executor.PX4Options{Transport: px4sim.New(px4sim.Options{})})
	loop := engine.LoopOptions{Policy: policy, Node: testNode}
	data, res, err := replayBytes(t, &withExtra{t: t, src: simSource(t, 60*time.Second, 10), extra: []extra{enableAll}},
		ReplayOptions{Session: session.SessionOptions{Loop: loop, Executors: []session.Executor{ex}, TargetVehicle: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Counters.Actions; a.Sent == 0 || a.Failures[engine.FailBlockedByPolicy] == 0 {
		t.Fatalf("want actions blocked before the event and sent after it: %+v", a)
	}
	withoutEvent := rewriteMessages(t, data, func(m *bag.Message) bool { return m.Topic != "/parameter_events" })
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	for _, tc := range []struct {
		name string
		data []byte
		pass bool
	}{{"as recorded", data, true}, {"the event removed", withoutEvent, false}} {
		t.Run(tc.name, func(t *testing.T) {
			loop := loop
			loop.Policy = nil
			r, err := Verify(openBytes(t, tc.data), VerifyOptions{Policies: []decisions.Policy{policy},
				Session: session.SessionOptions{Loop: loop, Executors: execs, TargetVehicle: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed() != tc.pass {
				t.Fatalf("passed %v, want %v: %v %v", r.Passed(), tc.pass, r.Findings, r.Notes)
			}
			if !tc.pass && r.FindingCount(FindingActionDiverged) == 0 {
				t.Fatalf("findings %v, want %s", r.Findings, FindingActionDiverged)
			}
		})
	}
}
