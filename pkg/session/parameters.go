package session

import (
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// KeyParameterEvents is the input key of the parameter change events
// (rcl_interfaces/msg/ParameterEvent on /parameter_events).
const KeyParameterEvents = "parameter_events"

// ParameterEventInput is the input of parameter change events.
func ParameterEventInput() InputSpec {
	return InputSpec{
		Key: KeyParameterEvents, Topic: "/parameter_events", Type: "rcl_interfaces/msg/ParameterEvent",
		QoS: qos.ParameterEvents(), Kind: engine.InputParameters,
		Role:      "parameter changes (the node publishes its own and follows those naming it)",
		NewDecode: decodeParameterEvent,
	}
}

func decodeParameterEvent() DecodeFunc {
	var m ros2msg.ParameterEvent
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := m.UnmarshalCDR(data); err != nil {
			return err
		}
		out.Set(ParameterEventFromWire(&m, arrivalNs))
		return nil
	}
}

// ParameterEventFromWire converts a ParameterEvent message to the event;
// the event shares nothing with m.
func ParameterEventFromWire(m *ros2msg.ParameterEvent, arrivalNs int64) engine.ParameterEvent {
	ev := engine.ParameterEvent{ArrivalNs: arrivalNs, Node: m.Node}
	for _, list := range [][]ros2msg.Parameter{m.NewParameters, m.ChangedParameters} {
		for _, p := range list {
			v := p.Value
			ev.Changes = append(ev.Changes, engine.ParameterChange{Name: p.Name, Type: v.Type, Bool: v.BoolValue,
				Integer: v.IntegerValue, Double: v.DoubleValue, String: v.StringValue})
		}
	}
	return ev
}
