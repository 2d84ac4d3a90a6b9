package standin

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/px4link"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
)

// Options configure a StandIn.
type Options struct {
	// Definitions are the px4_msgs of the release to speak (required).
	Definitions *px4.Definitions
	// Namespace prefixes the topics ("" for /fmu/...).
	Namespace string
	// SystemID is the vehicle's MAV_SYS_ID; default 1.
	SystemID uint8
	// Deny lists decision kinds whose commands (the px4 executor's mapping)
	// are answered DENIED, to show a denial.
	Deny []decisions.Kind
}

// Stats count what the stand-in did.
type Stats struct {
	// Commands counts the commands read; Undecodable those that did not
	// decode; Ignored those addressed to another system or component.
	Commands, Undecodable, Ignored uint64
	// Accepted and Denied count the acknowledgements by result (others
	// are UNSUPPORTED); Statuses the statuses published.
	Accepted, Denied, Other, Statuses uint64
}

// StandIn answers VehicleCommands. Its methods are safe for concurrent
// use; Handle calls are serialized.
type StandIn struct {
	opts      Options
	cmdTopic  string
	ackPub    transport.Publisher
	statusPub transport.Publisher

	mu      sync.Mutex
	px4     *px4sim.PX4
	actions uint64
	last    px4.Command
	status  px4.Status // last published, or the initial state
	stats   Stats
	ack     *encoder
	stat    *encoder
}

// New advertises the ack and status topics and subscribes to the command
// topic on t (before t runs). The vehicle starts armed, in OFFBOARD.
func New(t transport.Transport, opts Options) (*StandIn, error) {
	d := opts.Definitions
	if d == nil {
		return nil, errors.New("px4standin: no px4_msgs definitions")
	}
	if opts.SystemID == 0 {
		opts.SystemID = 1
	}
	for _, k := range opts.Deny {
		if _, _, err := executor.PX4Command(k); err != nil {
			return nil, fmt.Errorf("px4standin: deny %s: %w", k, err)
		}
	}
	s := &StandIn{opts: opts, px4: px4sim.New(px4sim.Options{SystemID: opts.SystemID, Script: []px4sim.Behaviour{px4sim.Accept}})}
	s.status = px4.Status{NavState: px4.NavStateOffboard, NavStateUserIntention: px4.NavStateOffboard,
		ArmingState: px4.ArmedState(d.Release()), Armed: true, SystemID: opts.SystemID, ComponentID: 1, PreFlightChecksPass: true}
	var ackTopic, statusTopic string
	for _, x := range []struct {
		msg string
		dst *string
	}{{px4.MsgVehicleCommand, &s.cmdTopic}, {px4.MsgVehicleCommandAck, &ackTopic}, {px4.MsgVehicleStatus, &statusTopic}} {
		name, err := d.TopicName(x.msg, opts.Namespace)
		if err != nil {
			return nil, fmt.Errorf("px4standin: %w", err)
		}
		*x.dst = name
	}
	var err error
	if s.ack, err = newEncoder(d, px4.MsgVehicleCommandAck); err != nil {
		return nil, err
	}
	if s.stat, err = newEncoder(d, px4.MsgVehicleStatus); err != nil {
		return nil, err
	}
	// PX4's writers are best effort, transient local; its readers best
	// effort, volatile.
	wq := px4link.QoSProfile(px4.PX4WriterQoS)
	wq.Depth = 5
	if s.ackPub, err = t.Advertise(ackTopic, px4link.TypeName(px4.MsgVehicleCommandAck), wq); err != nil {
		return nil, fmt.Errorf("px4standin: advertise %s: %w", ackTopic, err)
	}
	if s.statusPub, err = t.Advertise(statusTopic, px4link.TypeName(px4.MsgVehicleStatus), wq); err != nil {
		return nil, fmt.Errorf("px4standin: advertise %s: %w", statusTopic, err)
	}
	if err := t.Subscribe(s.cmdTopic, px4link.TypeName(px4.MsgVehicleCommand), px4link.QoSProfile(px4.PublishQoS),
		func(data []byte, recv time.Time) { _ = s.Handle(data, recv) }); err != nil {
		return nil, fmt.Errorf("px4standin: subscribe %s: %w", s.cmdTopic, err)
	}
	return s, nil
}

// CommandTopic is the topic the stand-in reads.
func (s *StandIn) CommandTopic() string { return s.cmdTopic }

// Stats returns the counts so far.
func (s *StandIn) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// PublishStatus publishes the current state stamped now, as PX4 does
// periodically.
func (s *StandIn) PublishStatus(now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.TimestampUs = uint64(max(now.UnixMicro(), 0))
	return s.publishStatus(st)
}

// Handle answers one serialized VehicleCommand received at recv: an
// acknowledgement to its source, then, when accepted, the status it
// leads to. A command that does not decode is counted and returned as an
// error; one for another system is ignored, as Commander does.
func (s *StandIn) Handle(data []byte, recv time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.opts.Definitions.Command(data)
	if err != nil {
		s.stats.Undecodable++
		return fmt.Errorf("px4standin: %s: %w", s.cmdTopic, err)
	}
	s.stats.Commands++
	if c.TargetSystem != s.opts.SystemID && c.TargetSystem != 0 || c.TargetComponent != 1 && c.TargetComponent != 0 {
		s.stats.Ignored++
		return nil
	}
	nowUs := uint64(max(recv.UnixMicro(), 0))
	if s.denied(c) {
		return s.publishAck(px4.CommandAck{TimestampUs: nowUs, Command: c.Command, Result: decisions.AckDenied,
			TargetSystem: c.SourceSystem, TargetComponent: c.SourceComponent})
	}
	// A new command is a new action of the simulated PX4; a retry (the
	// same command, confirmation above 0) is the same action.
	if c.Confirmation == 0 || !sameCommand(c, s.last) {
		s.actions++
	}
	s.last = c
	if err := s.px4.SendCommand(c, executor.SendInfo{ActionID: s.actions, Attempt: c.Confirmation + 1, TimeNs: recv.UnixNano()}); err != nil {
		return fmt.Errorf("px4standin: %w", err)
	}
	// The simulated PX4 schedules its answers with latencies; the
	// stand-in sends them at once, in their order.
	var errs []error
	for _, a := range s.px4.Receive(math.MaxInt64) {
		switch {
		case a.Ack != nil:
			ack := *a.Ack
			ack.TimestampUs = nowUs
			errs = append(errs, s.publishAck(ack))
		case a.Status != nil:
			st := *a.Status
			st.TimestampUs, st.NavStateTimestampUs = nowUs, nowUs
			st.ArmingState = px4.ArmingStateDisarmed
			if st.Armed {
				st.ArmingState = px4.ArmedState(s.opts.Definitions.Release())
			}
			s.status = st
			errs = append(errs, s.publishStatus(st))
		}
	}
	return errors.Join(errs...)
}

// denied reports whether c is the mapping of a kind the stand-in denies.
func (s *StandIn) denied(c px4.Command) bool {
	for _, k := range s.opts.Deny {
		want, _, err := executor.PX4Command(k)
		if err == nil && want.ID == c.Command && float32(want.Params[0]) == c.Param1 &&
			float32(want.Params[1]) == c.Param2 && float32(want.Params[2]) == c.Param3 {
			return true
		}
	}
	return false
}

func sameCommand(a, b px4.Command) bool {
	return a.Command == b.Command && a.Param1 == b.Param1 && a.Param2 == b.Param2 && a.Param3 == b.Param3 &&
		a.SourceSystem == b.SourceSystem && a.SourceComponent == b.SourceComponent
}

func (s *StandIn) publishAck(a px4.CommandAck) error {
	data, err := s.ack.encode(map[string]uint64{"timestamp": a.TimestampUs, "command": uint64(a.Command), "result": uint64(a.Result),
		"target_system": uint64(a.TargetSystem), "target_component": uint64(a.TargetComponent)}, map[string]bool{"from_external": false})
	if err == nil {
		err = s.ackPub.Publish(data)
	}
	switch {
	case err != nil:
		return fmt.Errorf("px4standin: acknowledge command %d: %w", a.Command, err)
	case a.Result == decisions.AckAccepted:
		s.stats.Accepted++
	case a.Result == decisions.AckDenied:
		s.stats.Denied++
	default:
		s.stats.Other++
	}
	return nil
}

func (s *StandIn) publishStatus(st px4.Status) error {
	data, err := s.stat.encode(map[string]uint64{"timestamp": st.TimestampUs, "arming_state": uint64(st.ArmingState),
		"nav_state": uint64(st.NavState), "nav_state_user_intention": uint64(st.NavStateUserIntention),
		"nav_state_timestamp": st.NavStateTimestampUs, "system_id": uint64(st.SystemID), "component_id": uint64(st.ComponentID)},
		map[string]bool{"pre_flight_checks_pass": st.PreFlightChecksPass})
	if err == nil {
		err = s.statusPub.Publish(data)
	}
	if err != nil {
		return fmt.Errorf("px4standin: status: %w", err)
	}
	s.stats.Statuses++
	return nil
}
