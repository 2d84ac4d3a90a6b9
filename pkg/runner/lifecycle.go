package runner

import (
	"github.com/ghost-robotics/ghost/pkg/ros2/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// KeyTransitionEvent is the input key of the node's lifecycle transition
// events (lifecycle_msgs/msg/TransitionEvent on ~/transition_event).
const KeyTransitionEvent = "transition_event"

// lifecycleActive is lifecycle_msgs/msg/State PRIMARY_STATE_ACTIVE.
const lifecycleActive = 3

// LifecycleEvent delivers one step of the node's managed lifecycle, as the
// node published it. A Session with SessionOptions.Lifecycle decides only
// while the newest event's goal state is active; the Loop itself only lets
// time pass with it.
type LifecycleEvent struct {
	ArrivalNs int64
	// Goal is the state id the step went to (lifecycle_msgs/msg/State).
	Goal uint8
}

// Arrival returns the arrival time in ns.
func (e LifecycleEvent) Arrival() int64 { return e.ArrivalNs }

func (LifecycleEvent) isEvent() {}

// Active reports whether the step went to the active state.
func (e LifecycleEvent) Active() bool { return e.Goal == lifecycleActive }

// TransitionEventInput is the input of the node's own lifecycle transition
// events, on its private "~/transition_event" topic.
func TransitionEventInput() InputSpec {
	return InputSpec{
		Key: KeyTransitionEvent, Topic: "~/transition_event", Type: "lifecycle_msgs/msg/TransitionEvent",
		QoS: qos.DefaultInput(), Kind: InputLifecycle,
		Role:      "lifecycle transitions (the node publishes its own with lifecycle true, and decides only while active)",
		NewDecode: decodeTransitionEvent,
	}
}

func decodeTransitionEvent() DecodeFunc {
	var m ros2msg.LifecycleTransitionEvent
	return func(data []byte, arrivalNs int64) (Event, error) {
		if err := m.UnmarshalCDR(data); err != nil {
			return nil, err
		}
		return LifecycleEvent{ArrivalNs: arrivalNs, Goal: m.GoalState.ID}, nil
	}
}
