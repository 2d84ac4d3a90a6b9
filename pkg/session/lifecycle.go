package session

import (
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// KeyTransitionEvent is the input key of the node's lifecycle transition
// events (lifecycle_msgs/msg/TransitionEvent on ~/transition_event).
const KeyTransitionEvent = "transition_event"

// TransitionEventInput is the input of the node's own lifecycle transition
// events, on its private "~/transition_event" topic.
func TransitionEventInput() InputSpec {
	return InputSpec{
		Key: KeyTransitionEvent, Topic: "~/transition_event", Type: "lifecycle_msgs/msg/TransitionEvent",
		QoS: qos.DefaultInput(), Kind: engine.InputLifecycle,
		Role:      "lifecycle transitions (the node publishes its own with lifecycle true, and decides only while active)",
		NewDecode: decodeTransitionEvent,
	}
}

func decodeTransitionEvent() DecodeFunc {
	var m ros2msg.LifecycleTransitionEvent
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := m.UnmarshalCDR(data); err != nil {
			return err
		}
		out.Set(engine.LifecycleEvent{ArrivalNs: arrivalNs, Goal: m.GoalState.ID})
		return nil
	}
}
