package node

import (
	"context"
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/clock"
	"github.com/ghost-robotics/ghost/pkg/ros2/rosout"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// The node's time. With use_sim_time false, arrival times are the receive
// times the transport gives and ticks come from a wall-clock ticker, as
// before. With use_sim_time true, everything the node times follows /clock
// (pkg/ros2/clock):
//
//   - /clock messages travel through the node's input queue, so an input
//     arrives at the clock time of its place in the stream;
//   - an input's arrival time is the clock's timeline when the node takes
//     it: a paused clock gives every input the same time, so no belief
//     times out however long the wall-clock pause;
//   - ticks happen when /clock has advanced a tick interval since the last
//     one; wall-clock ticks do nothing;
//   - before the first /clock message nothing is decided: inputs are
//     dropped and counted (they never reach the Loop or the recording, so
//     replay and verify see the same stream), and diagnostics say WARN
//     "waiting for /clock";
//   - a jump backwards is logged and counted, and the timeline continues
//     monotonically (package clock), so recordings and timeouts never run
//     backwards;
//   - diagnostics keep their wall-clock period, so a paused or silent
//     /clock stays visible, and are stamped with the ROS time.

// simTime is the sim-time state of the node; zero with use_sim_time false.
type simTime struct {
	// ticked is the timeline time of the last sim tick.
	ticked int64
	// beforeClock counts inputs dropped while waiting for /clock.
	beforeClock uint64
}

// setupClock subscribes /clock when the node runs on sim time, and attaches
// the /rosout handler with the node's clock. Run on the goroutine that
// builds the node, before the transport runs.
func (n *node) setupClock(tctx context.Context, t transport.Transport, ro *rosout.Handler) error {
	if n.clock.Sim() {
		err := t.Subscribe(clock.Topic, clock.TypeName, clock.QoS(), func(data []byte, recv time.Time) {
			select {
			case n.in <- input{clock: true, data: data, recv: recv}:
			case <-tctx.Done():
			}
		})
		if err != nil {
			return fmt.Errorf("subscribe %s: %w", clock.Topic, err)
		}
	}
	if ro != nil {
		p, err := t.Advertise(rosout.Topic, rosout.TypeName, rosout.QoS())
		if err != nil {
			return fmt.Errorf("advertise %s: %w", rosout.Topic, err)
		}
		if err := ro.Attach(p, n.clock.Now); err != nil {
			return fmt.Errorf("%s: %w", rosout.Topic, err)
		}
		n.rosout = ro
	}
	return nil
}

// handleClock applies one /clock message and ticks the session when the
// clock advanced far enough.
func (n *node) handleClock(in input) {
	u, err := n.clock.HandleCDR(in.data)
	if err != nil {
		n.warn("clock", "/clock message rejected", "err", err)
		return
	}
	ns, _ := n.clock.Timeline()
	switch {
	case u.First:
		n.log.Info("first /clock message: deciding on sim time", "ros_time", fmtROSTime(u.Time))
		n.sim.ticked = ns
	case u.Back > 0:
		// Not throttled: each reset is worth a line, and diagnostics count
		// them. The timeline (arrival times, recording) holds still.
		n.log.Warn("/clock jumped backwards (simulator reset?): arrival times continue from the node's timeline",
			"back", u.Back, "ros_time", fmtROSTime(u.Time), "timeline_ns", ns)
	}
	if ns-n.sim.ticked >= int64(tickInterval(n.cfg.AssessmentTimeout)) {
		n.sim.ticked = ns
		if n.s.Loop().Sizes().PendingBeliefs > 0 && n.act.ticks() {
			n.stepped(n.s.Tick(ns))
		}
	}
}

// admitTime sets in.recv to the input's arrival time on the node's clock.
// It returns false for an input that arrived before the first /clock
// message, which is dropped and counted.
func (n *node) admitTime(in *input) bool {
	if !n.clock.Sim() {
		return true
	}
	ns, ok := n.clock.Timeline()
	if !ok {
		n.sim.beforeClock++
		n.log.Debug("input dropped: waiting for /clock", "bytes", len(in.data))
		return false
	}
	in.recv = time.Unix(0, ns)
	return true
}

// wallTick handles a tick of the wall-clock ticker; on sim time, /clock
// ticks instead. While acting, nothing ticks: a decision made at a moment
// no recorded message holds would act at a time replay cannot reproduce.
func (n *node) wallTick(t time.Time) {
	if n.clock.Sim() {
		return
	}
	if n.s.Loop().Sizes().PendingBeliefs > 0 && n.act.ticks() {
		n.stepped(n.s.Tick(t.UnixNano()))
	}
}

// endTime is the arrival time of the end of the stream: wall the wall-clock
// time on wall time, the timeline on sim time (0 before any /clock, when
// nothing was fed).
func (n *node) endTime(wall time.Time) int64 {
	if !n.clock.Sim() {
		return wall.UnixNano()
	}
	ns, _ := n.clock.Timeline()
	return ns
}

// stampTime is the time a report made at wall time carries: wall, or the
// ROS time on sim time.
func (n *node) stampTime(wall time.Time) time.Time {
	if !n.clock.Sim() {
		return wall
	}
	return n.clock.Now()
}

// waitingForClock reports whether the node runs on sim time and has had no
// /clock message yet.
func (n *node) waitingForClock() bool { return n.clock.Sim() && !n.clock.Ready() }

// clockDiagnostics appends the clock's and /rosout's keys: the clock mode
// always (wall, sim or waiting_for_clock), the sim-time counters on sim
// time, the /rosout counters when the node publishes there.
func (n *node) clockDiagnostics(kv func(string, uint64), status *ros2msg.DiagnosticStatus) {
	mode := "wall"
	if n.clock.Sim() {
		mode = "sim"
		if !n.clock.Ready() {
			mode = "waiting_for_clock"
		}
	}
	status.Values = append(status.Values, ros2msg.DiagnosticKeyValue{Key: "clock", Value: mode})
	if n.clock.Sim() {
		st := n.clock.Stats()
		kv("clock.ros_time_ns", uint64(max(n.clock.Now().UnixNano(), 0)))
		kv("clock.messages", st.Messages)
		kv("clock.rejected", st.Rejected)
		kv("clock.paused", st.Paused)
		kv("clock.jumps_back", st.JumpsBack)
		kv("clock.inputs_before_clock", n.sim.beforeClock)
	}
	if n.rosout != nil {
		st := n.rosout.Stats()
		kv("rosout.published", st.Published)
		kv("rosout.dropped", st.Dropped)
		kv("rosout.failed", st.Failed)
	}
}

// fmtROSTime writes a ROS time as seconds.nanoseconds, as ros2 topic echo
// shows stamps.
func fmtROSTime(t time.Time) string {
	ns := t.UnixNano()
	return fmt.Sprintf("%d.%09d", ns/1e9, ns%1e9)
}
