package audit

import (
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2msg"
	"github.com/ghost-robotics/ghost/pkg/ros2msg/stdmsgs"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

const (
	transitionTopic   = "/decision_node/transition_event"
	transitionType    = "lifecycle_msgs/msg/TransitionEvent"
	transitionChannel = 999
)

// withTransitions adds the node's transition events (goal state ids) at
// the given log times to a source.
type withTransitions struct {
	src    Source
	at     []int64
	goals  []uint8
	queued *bag.Message
}

func (w *withTransitions) Next() (bag.Message, error) {
	if w.queued == nil {
		m, err := w.src.Next()
		if err != nil {
			return m, err
		}
		w.queued = &m
	}
	if len(w.at) > 0 && w.at[0] <= int64(w.queued.LogTime) {
		e := ros2msg.LifecycleTransitionEvent{GoalState: ros2msg.LifecycleState{ID: w.goals[0]}}
		data, err := e.MarshalCDR()
		if err != nil {
			return bag.Message{}, err
		}
		m := bag.Message{Topic: transitionTopic, SchemaName: transitionType, ChannelID: transitionChannel,
			LogTime: uint64(w.at[0]), PublishTime: uint64(w.at[0]), Data: data}
		w.at, w.goals = w.at[1:], w.goals[1:]
		return m, nil
	}
	m := *w.queued
	w.queued = nil
	return m, nil
}

// Channels gives replay the standard definition of the transition events.
func (w *withTransitions) Channels() []bag.Channel {
	set, err := stdmsgs.Set()
	if err != nil {
		return nil
	}
	text, err := set.SchemaText(transitionType)
	if err != nil {
		return nil
	}
	return []bag.Channel{{ID: transitionChannel, Topic: transitionTopic, SchemaName: transitionType, SchemaText: text}}
}

func lifecycleInputs() []runner.InputSpec {
	inputs := runner.DefaultInputs()
	for i := range inputs {
		if inputs[i].Key == runner.KeyTransitionEvent {
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
	// Log times of the sim source start at its first stamp.
	src := &withTransitions{src: simSource(t, 30*time.Second, 20),
		at: []int64{2 * s, 3 * s, 10 * s, 11 * s, 20 * s, 21 * s}, goals: []uint8{13, 3, 14, 2, 13, 3}}
	data, res, err := replayBytes(t, src, ReplayOptions{Session: runner.SessionOptions{Inputs: lifecycleInputs(), Lifecycle: true}})
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
			r, err := Verify(openBytes(t, data), VerifyOptions{Inputs: lifecycleInputs(), Lifecycle: tc.lifecycle, LifecycleFromEvents: tc.fromEvts})
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
