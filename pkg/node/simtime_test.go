package node

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/clock"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/rosout"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func simConfig() config.Config {
	cfg := testConfig()
	cfg.UseSimTime = true
	return cfg
}

// clockAt is a /clock message holding ns.
func clockAt(t testing.TB, ns int64) []byte {
	t.Helper()
	m := ros2msg.RosClock{Clock: ros2msg.RosTime{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)}}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// wall is a wall-clock receive time far from any sim time, to show it is
// not used: an hour per step.
func wall(step int) time.Time { return base.Add(time.Duration(step) * time.Hour) }

func (h *harness) clockMsg(ns int64, step int) {
	h.t.Helper()
	h.deliver(clock.Topic, clockAt(h.t, ns), wall(step))
}

// Before the first /clock message nothing is decided, the wait is logged
// once and diagnostics say so; after it the node decides.
func TestSimTimeWaitsForClock(t *testing.T) {
	cfg := simConfig()
	h := startNode(t, cfg)
	b1 := testBelief(1_000_000)
	a1 := testAssessment(t, b1.StampSimNs, 0.1)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b1), wall(1))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a1), wall(2))
	h.tickAt(wall(3))
	d := h.sync(wall(4))
	if n := len(h.decisionsOut()); n != 0 {
		t.Fatalf("%d decisions before the first /clock", n)
	}
	if d.Status[0].Level != ros2msg.DiagnosticStatusWarn || !strings.HasPrefix(d.Status[0].Message, "waiting for /clock") ||
		value(t, d, "clock") != "waiting_for_clock" || count(t, d, "clock.inputs_before_clock") != 2 ||
		count(t, d, "received.state") != 0 {
		t.Errorf("diagnostics while waiting: level %d %q %+v", d.Status[0].Level, d.Status[0].Message, d.Status[0].Values)
	}
	if d.Header.Stamp != (ros2msg.RosTime{}) {
		t.Errorf("stamp before any /clock %+v, want zero", d.Header.Stamp)
	}
	if typ, qos, ok := h.ft.Subscription(clock.Topic); !ok || typ != "rosgraph_msgs/msg/Clock" || qos != clock.QoS() {
		t.Errorf("/clock subscription %q %+v %v", typ, qos, ok)
	}
	h.sync(wall(5))

	h.clockMsg(20e9, 6)
	b2 := testBelief(2_000_000)
	a2 := testAssessment(t, b2.StampSimNs, 0.1)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b2), wall(7))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a2), wall(8))
	if _, err := h.ft.WaitPublished(h.ctx, cfg.Topics[session.KeyDecisions], 1); err != nil {
		t.Fatal(err)
	}
	d = h.sync(wall(9))
	if got := h.decisionsOut(); len(got) != 1 || got[0] != expected(t, b2, &a2, nil) {
		t.Errorf("decisions after /clock: %+v", got)
	}
	if d.Status[0].Level != ros2msg.DiagnosticStatusOK || value(t, d, "clock") != "sim" ||
		count(t, d, "clock.ros_time_ns") != 20e9 || count(t, d, "clock.messages") != 1 {
		t.Errorf("diagnostics with a clock: level %d %q %+v", d.Status[0].Level, d.Status[0].Message, d.Status[0].Values)
	}
	if d.Header.Stamp != (ros2msg.RosTime{Sec: 20}) {
		t.Errorf("diagnostics stamp %+v, want the sim time", d.Header.Stamp)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.logs.String(), "waiting for /clock:"); n != 1 {
		t.Errorf("'waiting for /clock' logged %d times, want once:\n%s", n, h.logs)
	}
}

// With a paused /clock no belief times out, however much wall time passes
// and however many wall ticks come; the timeout follows /clock when it
// runs again.
func TestSimTimePausedClockNoTimeout(t *testing.T) {
	cfg := simConfig() // assessment timeout 100 ms, sim ticks every 25 ms
	h := startNode(t, cfg)
	const t0 = int64(50e9)
	h.clockMsg(t0, 0)
	first := testBelief(4_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, first), wall(1))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, first.StampSimNs, 0.1)), wall(1))
	b := testBelief(5_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), wall(2))

	// Paused: the simulator keeps publishing the same time, wall time runs
	// for days, wall ticks come.
	for step := 3; step < 50; step++ {
		h.clockMsg(t0, step)
		h.tickAt(wall(step))
	}
	d := h.sync(wall(50))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions while /clock is paused, want 1 (the first belief)", n)
	}
	if count(t, d, "without_assessment.timeout") != 0 || count(t, d, "clock.paused") != 47 || count(t, d, "pending_beliefs") != 1 {
		t.Errorf("paused diagnostics %+v", d.Status[0].Values)
	}

	// Running: 99 ms of sim time is not the timeout; 125 ms is past it
	// and past the next sim tick.
	h.clockMsg(t0+99e6, 51)
	h.sync(wall(51))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions 99 ms after the belief", n)
	}
	h.clockMsg(t0+125e6, 52)
	d = h.sync(wall(52))
	got := h.decisionsOut()
	if len(got) != 2 || got[1] != expected(t, b, nil, nil) {
		t.Fatalf("after the sim-time timeout: %+v", got)
	}
	if count(t, d, "without_assessment.timeout") != 1 {
		t.Errorf("without_assessment.timeout = %s", value(t, d, "without_assessment.timeout"))
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}

// A jump backwards is logged and counted; the timeline holds, so a belief
// pending across the reset waits the sim time before and after it, and the
// recording's log times never run backwards: verify re-decides it exactly.
func TestSimTimeJumpBack(t *testing.T) {
	cfg := simConfig()
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	h := startNode(t, cfg)
	h.clockMsg(10e9, 0)
	b1 := testBelief(1_000_000)
	a1 := testAssessment(t, b1.StampSimNs, 0.1)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b1), wall(1))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a1), wall(1))
	h.clockMsg(10.05e9, 2)
	b2 := testBelief(2_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b2), wall(3)) // timeline 10.05 s

	h.clockMsg(2e9, 4)    // reset: timeline stays 10.05 s
	h.clockMsg(2.03e9, 5) // timeline 10.08 s: b2 waited 30 ms
	d := h.sync(wall(6))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions 30 ms after the reset, want 1", n)
	}
	if count(t, d, "clock.jumps_back") != 1 || count(t, d, "clock.ros_time_ns") != 2.03e9 || d.Header.Stamp != (ros2msg.RosTime{Sec: 2, Nanosec: 3e7}) {
		t.Errorf("after the reset: stamp %+v, %+v", d.Header.Stamp, d.Status[0].Values)
	}
	h.clockMsg(2.15e9, 7) // timeline 10.2 s: 150 ms since b2
	d = h.sync(wall(8))
	if got := h.decisionsOut(); len(got) != 2 || got[1] != expected(t, b2, nil, nil) || count(t, d, "without_assessment.timeout") != 1 {
		t.Fatalf("after the timeout across the reset: %+v", got)
	}
	// Inputs after the reset arrive on the timeline too.
	b3 := testBelief(3_000_000)
	a3 := testAssessment(t, b3.StampSimNs, 0.1)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b3), wall(9))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a3), wall(9))
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.logs.String(), "/clock jumped backwards") {
		t.Errorf("the reset was not logged:\n%s", h.logs)
	}

	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var logTimes []uint64
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != "/decisions" {
			logTimes = append(logTimes, m.LogTime)
		}
	}
	want := []uint64{10e9, 10e9, 10.05e9, 10.2e9, 10.2e9}
	if len(logTimes) != len(want) {
		t.Fatalf("recorded input log times %v, want %v", logTimes, want)
	}
	for i := range want {
		if logTimes[i] != want[i] {
			t.Errorf("input %d logged at %d, want %d (the timeline, not wall or raw sim time)", i, logTimes[i], want[i])
		}
	}
	r2, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	rep, err := audit.Verify(r2, audit.VerifyOptions{Session: session.SessionOptions{Loop: engine.LoopOptions{AssessmentTimeout: cfg.AssessmentTimeout}}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed() || rep.Decisions != 3 {
		t.Errorf("verify: %s, %d decisions, reasons %v", rep.Verdict, rep.Decisions, rep.Reasons)
	}
}

// Wall time: nothing changes, and /clock is not subscribed.
func TestWallTimeIgnoresClock(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)
	d := h.sync(base)
	if _, _, ok := h.ft.Subscription(clock.Topic); ok {
		t.Error("/clock subscribed with use_sim_time false")
	}
	if value(t, d, "clock") != "wall" || d.Header.Stamp != ros2msg.RosTimeOf(base) {
		t.Errorf("wall clock diagnostics: stamp %+v %+v", d.Header.Stamp, d.Status[0].Values)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}

// Log lines reach /rosout as rcl_interfaces/Log with the node's logger
// name, the ROS time and the configured level; the last line is published
// before Run returns.
func TestRosout(t *testing.T) {
	for _, tt := range []struct {
		name  string
		level slog.Level
		debug bool // whether debug lines are published
	}{
		{"info", slog.LevelInfo, false},
		{"debug", slog.LevelDebug, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := simConfig()
			cfg.Namespace = "/drone1"
			cfg.LogLevel = tt.level
			ft := transport.NewFakeTransport()
			ro := rosout.New(rosout.Options{Name: cfg.LoggerName(), Level: cfg.LogLevel})
			var stderr bytes.Buffer
			logger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&lockedWriter{w: &stderr}, &slog.HandlerOptions{Level: cfg.LogLevel}), ro))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			runCtx, stop := context.WithCancel(ctx)
			tick, diag := make(chan time.Time), make(chan time.Time)
			done := make(chan error, 1)
			go func() {
				done <- run(runCtx, cfg, ft, logger, runOptions{waitWhenFull: true, now: func() time.Time { return base }, tick: tick, diag: diag, rosout: ro})
			}()
			deliver := func(topic string, data []byte) {
				if err := ft.Deliver(ctx, topic, data, base); err != nil {
					t.Fatal(err)
				}
			}
			deliver(cfg.Topics[session.KeyState], beliefCDR(t, testBelief(1_000_000))) // dropped: no clock yet (a debug line)
			deliver(clock.Topic, clockAt(t, 7.5e9))
			deliver(cfg.Topics[session.KeyState], []byte("junk")) // a warning
			diag <- base
			stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}

			if p := ft.Publisher(rosout.Topic); p == nil || p.TypeName != "rcl_interfaces/msg/Log" || p.QoS != rosout.QoS() {
				t.Fatalf("/rosout publisher %+v", p)
			}
			var logs []ros2msg.RosLog
			for _, data := range ft.Published(rosout.Topic) {
				var m ros2msg.RosLog
				if err := m.UnmarshalCDR(data); err != nil {
					t.Fatalf("/rosout message does not decode: %v", err)
				}
				logs = append(logs, m)
			}
			find := func(prefix string) *ros2msg.RosLog {
				for i := range logs {
					if strings.HasPrefix(logs[i].Msg, prefix) {
						return &logs[i]
					}
				}
				return nil
			}
			zero := ros2msg.RosTime{}
			sim := ros2msg.RosTime{Sec: 7, Nanosec: 5e8}
			for _, w := range []struct {
				prefix string
				level  uint8
				stamp  ros2msg.RosTime
			}{
				{"decision node ready", ros2msg.RosLogInfo, zero},
				{"waiting for /clock", ros2msg.RosLogInfo, zero},
				{"first /clock message", ros2msg.RosLogInfo, sim},
				{"dropped a malformed message", ros2msg.RosLogWarn, sim},
				{"decision node stopped", ros2msg.RosLogInfo, sim},
			} {
				m := find(w.prefix)
				switch {
				case m == nil:
					t.Errorf("no /rosout line %q in %d lines", w.prefix, len(logs))
				case m.Level != w.level || m.Stamp != w.stamp || m.Name != "drone1.decision_node" || m.Line == 0 ||
					!strings.HasSuffix(m.File, ".go") || !strings.Contains(m.Function, "pkg/node."):
					t.Errorf("/rosout line %+v, want level %d stamp %+v", *m, w.level, w.stamp)
				}
			}
			if m := find("decision node ready"); m != nil && !strings.Contains(m.Msg, "node=/drone1/decision_node") {
				t.Errorf("attributes missing from %q", m.Msg)
			}
			if got := find("input dropped: waiting for /clock") != nil; got != tt.debug {
				t.Errorf("debug line published: %v, want %v", got, tt.debug)
			}
			for _, m := range logs {
				if m.Level < ros2msg.RosLogInfo && !tt.debug {
					t.Errorf("level %d published at --log-level info: %q", m.Level, m.Msg)
				}
			}
			// Every line on /rosout went to stderr too.
			if lines := strings.Count(stderr.String(), "\n"); lines != len(logs) {
				t.Errorf("%d lines on stderr, %d on /rosout", lines, len(logs))
			}
			if st := ro.Stats(); st.Published != uint64(len(logs)) || st.Failed != 0 {
				t.Errorf("rosout stats %+v", st)
			}
		})
	}
}
