package node

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/ros2/lifecycle"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// serveLifecycle, with the lifecycle parameter, serves the lifecycle
// services and publishes the transition events the session follows when
// they come back on the transition events input.
func (n *node) serveLifecycle(t transport.Transport) error {
	if !n.cfg.Lifecycle {
		return nil
	}
	topic := n.cfg.Topics[session.KeyTransitionEvent]
	pub, err := t.Advertise(topic, lifecycle.TypeTransitionEvent, n.cfg.QoS[session.KeyTransitionEvent])
	if err != nil {
		return fmt.Errorf("advertise transition events: %w", err)
	}
	n.lc = lifecycle.New(pub.Publish, n.now)
	for _, s := range n.lc.Services() {
		if err := t.Serve(s.Name, s.Type, transport.ServiceQoS(), s.Handle); err != nil {
			return fmt.Errorf("lifecycle services: %w", err)
		}
	}
	return nil
}

// transitionEvent logs a lifecycle step the session followed.
func (n *node) transitionEvent(data []byte) {
	var m ros2msg.LifecycleTransitionEvent
	if m.UnmarshalCDR(data) != nil || !n.cfg.Lifecycle {
		return
	}
	n.log.Info("lifecycle transition", "from", m.StartState.Label, "to", m.GoalState.Label, "deciding", n.s.Active())
}
