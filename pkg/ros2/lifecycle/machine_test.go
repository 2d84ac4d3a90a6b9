package lifecycle

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

type step struct {
	id    uint8
	label string
	ok    bool
	state uint8
}

func TestTransitions(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"configure activate deactivate cleanup", []step{
			{TransitionConfigure, "", true, StateInactive},
			{TransitionActivate, "", true, StateActive},
			{TransitionDeactivate, "", true, StateInactive},
			{TransitionCleanup, "", true, StateUnconfigured},
		}},
		{"by label, as ros2 lifecycle set sends them", []step{
			{0, "configure", true, StateInactive},
			{0, "activate", true, StateActive},
			{0, "shutdown", true, StateFinalized},
		}},
		{"not from this state", []step{
			{TransitionActivate, "", false, StateUnconfigured},
			{0, "deactivate", false, StateUnconfigured},
			{TransitionInactiveShutdown, "", false, StateUnconfigured},
			{0, "", false, StateUnconfigured},
			{10, "", false, StateUnconfigured}, // a callback outcome is not a request
			{TransitionUnconfiguredShutdown, "", true, StateFinalized},
			{0, "configure", false, StateFinalized},
		}},
		{"shutdown while active", []step{
			{TransitionConfigure, "", true, StateInactive},
			{TransitionActivate, "", true, StateActive},
			{TransitionActiveShutdown, "", true, StateFinalized},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(nil, nil)
			for i, s := range tt.steps {
				ok, err := m.Transition(s.id, s.label)
				if err != nil || ok != s.ok || m.State() != s.state {
					t.Fatalf("step %d (%d %q): ok %v err %v state %s, want ok %v state %s",
						i, s.id, s.label, ok, err, Label(m.State()), s.ok, Label(s.state))
				}
			}
		})
	}
}

func TestEventsAndServices(t *testing.T) {
	var events []ros2msg.LifecycleTransitionEvent
	m := New(func(b []byte) error {
		var e ros2msg.LifecycleTransitionEvent
		if err := e.UnmarshalCDR(b); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
		return nil
	}, func() time.Time { return time.Unix(3, 0) })

	req, err := (&ros2msg.LifecycleChangeStateRequest{Transition: ros2msg.LifecycleTransition{Label: "configure"}}).MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.ChangeState(req)
	if err != nil {
		t.Fatal(err)
	}
	var resp ros2msg.LifecycleChangeStateResponse
	if err := resp.UnmarshalCDR(out); err != nil || !resp.Success {
		t.Fatalf("change_state: %+v %v", resp, err)
	}
	// Two events: into the transition state, then to the goal.
	want := [][2]uint8{{StateUnconfigured, StateConfiguring}, {StateConfiguring, StateInactive}}
	if len(events) != 2 {
		t.Fatalf("events = %+v", events)
	}
	for i, e := range events {
		if e.StartState.ID != want[i][0] || e.GoalState.ID != want[i][1] || e.Timestamp != 3e9 || e.GoalState.Label != Label(want[i][1]) {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	if events[1].Transition.ID != 10 || events[1].Transition.Label != "transition_success" {
		t.Errorf("second event transition %+v", events[1].Transition)
	}

	out, _ = m.GetState(nil)
	var st ros2msg.LifecycleGetStateResponse
	if err := st.UnmarshalCDR(out); err != nil || st.CurrentState.ID != StateInactive || st.CurrentState.Label != "inactive" {
		t.Errorf("get_state = %+v %v", st, err)
	}
	out, _ = m.GetAvailableTransitions(nil)
	var av ros2msg.LifecycleGetAvailableTransitionsResponse
	if err := av.UnmarshalCDR(out); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, d := range av.AvailableTransitions {
		labels = append(labels, d.Transition.Label)
	}
	if !slices.Equal(labels, []string{"cleanup", "activate", "shutdown"}) {
		t.Errorf("available from inactive: %q", labels)
	}
	out, _ = m.GetTransitionGraph(nil)
	if err := av.UnmarshalCDR(out); err != nil || len(av.AvailableTransitions) != len(graph) {
		t.Errorf("graph: %d transitions, %v", len(av.AvailableTransitions), err)
	}
	out, _ = m.GetAvailableStates(nil)
	var states ros2msg.LifecycleGetAvailableStatesResponse
	if err := states.UnmarshalCDR(out); err != nil || len(states.AvailableStates) != 11 {
		t.Errorf("states: %+v %v", states, err)
	}
	if _, err := m.ChangeState([]byte{1}); err == nil {
		t.Error("a malformed request was answered")
	}
}

func TestPublishFailure(t *testing.T) {
	boom := errors.New("boom")
	m := New(func([]byte) error { return boom }, nil)
	if _, err := m.Transition(TransitionConfigure, ""); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func FuzzChangeState(f *testing.F) {
	b, _ := (&ros2msg.LifecycleChangeStateRequest{Transition: ros2msg.LifecycleTransition{ID: 1}}).MarshalCDR()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := New(nil, nil)
		_, _ = m.ChangeState(data)
		if _, ok := labels[m.State()]; !ok {
			t.Fatalf("state %d", m.State())
		}
	})
}
