package node

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/param"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

// serveParameters serves the parameter services on t and advertises the
// node's /parameter_events publisher. A change accepted there reaches the
// decisions only when its event comes back on the parameter events input
// (see parameterEvent), as it would in replay.
func (n *node) serveParameters(t transport.Transport) error {
	topic := n.cfg.Topics[session.KeyParameterEvents]
	pub, err := t.Advertise(topic, new(ros2msg.ParameterEvent).SchemaName(), n.cfg.QoS[session.KeyParameterEvents])
	if err != nil {
		return fmt.Errorf("advertise parameter events: %w", err)
	}
	n.params = param.New(n.cfg, pub.Publish, n.now)
	for _, s := range n.params.Services() {
		if err := t.Serve(s.Name, s.Type, transport.ServiceQoS(), s.Handle); err != nil {
			return fmt.Errorf("parameter services: %w", err)
		}
	}
	return nil
}

// parameterEvent follows a ParameterEvent of this node outside the Loop:
// it logs the change and applies log_level. The Loop follows the same
// message for the assessment timeout.
func (n *node) parameterEvent(data []byte) {
	var m ros2msg.ParameterEvent
	if m.UnmarshalCDR(data) != nil || m.Node != n.cfg.FullyQualifiedName() {
		return
	}
	ev := session.ParameterEventFromWire(&m, 0)
	for _, c := range ev.Changes {
		n.log.Info("parameter changed", "change", c.Text())
		if c.Name == "log_level" && c.Type == engine.ParameterString && n.level != nil {
			if l, err := config.ParseLevel(c.String); err == nil {
				n.level.Set(l)
			}
		}
	}
	n.log.Info("assessment timeout in force", "timeout", n.s.Loop().AssessmentTimeout())
}

// addInputChannel adds the recording channel of one input: ghost types
// with the ghost definitions, standard ones (rcl_interfaces/msg/
// ParameterEvent) with the embedded standard definitions.
func addInputChannel(rec *bag.Recorder, in session.InputSpec) (bag.ChannelID, error) {
	set, err := stdmsgs.Set()
	if err != nil {
		return 0, err
	}
	if text, err := set.SchemaText(in.Type); err == nil {
		return rec.AddChannel(in.Topic, in.Type, text, in.QoS)
	}
	return rec.AddMessageChannel(in.Topic, in.Type, in.QoS)
}
