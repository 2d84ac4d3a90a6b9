package node

import (
	"fmt"
	"os"

	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// vehicleSource is the node's side of input.source px4 or odometry: the
// bridge that maps the vehicle's own topics to ghost beliefs and
// assessments, and the publishers that put those on the ghost topics.
type vehicleSource struct {
	src    bridge.Source
	bridge *bridge.Bridge
	subs   []bridge.Subscription
	pubs   map[string]transport.Publisher // ghost topic (resolved) -> publisher
	// rejected counts vehicle messages the source refused (layout, fields,
	// stamps), for diagnostics.
	rejected uint64
}

// newVehicleSource builds the source cfg names; amentPrefixPath locates the
// px4_msgs or nav_msgs definitions. It returns nil for input.source ghost.
func newVehicleSource(cfg config.Config, inputs []session.InputSpec, amentPrefixPath string) (*vehicleSource, error) {
	if cfg.Input.Source == config.SourceGhost || cfg.Input.Source == "" {
		return nil, nil
	}
	b, err := bridge.New(bridge.Options{StateTopic: session.TopicOf(inputs, session.KeyState),
		AssessmentTopic: session.TopicOf(inputs, session.KeySelfAssessment), Thresholds: cfg.Thresholds})
	if err != nil {
		return nil, err
	}
	vs := &vehicleSource{bridge: b, pubs: map[string]transport.Publisher{}}
	switch cfg.Input.Source {
	case config.SourcePX4:
		defs, err := px4.LoadFromAmentIndex(amentPrefixPath)
		if err != nil {
			return nil, fmt.Errorf("input.source px4: %w", err)
		}
		if rel := cfg.Input.PX4Release; rel != "" && string(defs.Release()) != rel {
			return nil, fmt.Errorf("input.source px4: px4.release is %s but the installed px4_msgs (%s) have release %s's layouts",
				rel, defs.Source(), defs.Release())
		}
		if vs.src, err = bridge.NewPX4(b, bridge.PX4Options{Definitions: defs, Namespace: cfg.Input.PX4Namespace, Position: cfg.Input.PX4Position}); err != nil {
			return nil, err
		}
	case config.SourceOdometry:
		defs, err := bridge.LoadOdometryDefinitions(amentPrefixPath)
		if err != nil {
			return nil, fmt.Errorf("input.source odometry: %w", err)
		}
		if vs.src, err = bridge.NewOdometry(b, defs, cfg.Input.OdometryTopic, cfg.Input.BatteryTopic); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("input.source %q: want ghost, px4 or odometry", cfg.Input.Source)
	}
	vs.subs = vs.src.Subscriptions()
	return vs, nil
}

// amentPrefixPath is where the node looks for message definitions.
func amentPrefixPath() string { return os.Getenv("AMENT_PREFIX_PATH") }

// handleVehicle maps one message of the vehicle's own topics and passes
// what it gives on as the ghost inputs it is: published, recorded and
// decided, in that order, so every recording holds the belief and the
// assessment a decision rests on.
func (n *node) handleVehicle(in input) {
	sub := n.vehicle.subs[in.kind]
	tr := n.vehicle.bridge.Tracker()
	changes := tr.Counters().TimeBaseChanges
	out, err := n.vehicle.src.Handle(sub.Topic, in.data, in.recv.UnixNano())
	if tr.Counters().TimeBaseChanges != changes {
		c, _ := tr.LastTimeBaseChange()
		n.warn("vehicle_time_base", "the vehicle's clock changed its time base (a reset of PX4's time synchronisation? PX4 parameter UXRCE_DDS_SYNCT 0 keeps PX4's own clock): beliefs continue from the last stamp",
			"topic", sub.Topic, "stamp_ns", c.RawNs, "last_belief_ns", c.FromNs, "placed_at_ns", c.ToNs, "offset_ns", c.OffsetNs)
	}
	if err != nil {
		n.vehicle.rejected++
		n.warn("vehicle_input", "vehicle message rejected", "topic", sub.Topic, "err", err)
		return
	}
	for _, m := range out {
		if p := n.vehicle.pubs[m.Topic]; p != nil {
			if err := p.Publish(m.Data); err != nil {
				n.warn("publish_"+m.Topic, "cannot publish", "topic", m.Topic, "err", err)
			}
		}
		k := n.inputIndex(m.Topic)
		if k < 0 {
			n.warn("vehicle_input", "bridge produced a message for no input", "topic", m.Topic)
			continue
		}
		n.handle(input{kind: k, data: m.Data, recv: in.recv, wall: in.wall})
	}
}

func (n *node) inputIndex(topic string) int {
	for k, in := range n.inputs {
		if in.Topic == topic {
			return k
		}
	}
	return -1
}
