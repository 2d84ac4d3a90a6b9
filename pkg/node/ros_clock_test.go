//go:build rclgo

package node_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/ros2/clock"
	"github.com/ghost-robotics/ghost/pkg/ros2/rosout"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TestSimTimeOverROS2 runs the node with use_sim_time on a real ROS 2
// graph: a peer publishes /clock, a belief without its assessment does not
// time out while /clock is paused (for many timeouts of wall time) and does
// once /clock runs past the timeout; the node's log lines arrive on /rosout
// stamped with the sim time. It skips without a sourced ROS 2 and ghost's
// built interfaces, like TestLiveOverROS2.
func TestSimTimeOverROS2(t *testing.T) {
	cfg, prefix, peer, _ := liveGraph(t, "clock", "ghost_clock_test_peer")
	cfg.UseSimTime = true
	cfg.AssessmentTimeout = 200 * time.Millisecond
	clockTopic, rosoutTopic := prefix+clock.Topic, prefix+rosout.Topic
	advertise := func(topic, typ string, qos qos.Profile) transport.Publisher {
		p, err := peer.Advertise(topic, typ, qos)
		if err != nil {
			if strings.Contains(err.Error(), "type support") {
				t.Skipf("interfaces not built or not sourced: %v", err)
			}
			t.Fatal(err)
		}
		return p
	}
	statePub := advertise(cfg.Topics[session.KeyState], "ghost/msg/VehicleState", qos.DefaultInput())
	assessPub := advertise(cfg.Topics[session.KeySelfAssessment], "ghost/msg/BeliefSelfAssessment", qos.DefaultInput())
	clockPub := advertise(clockTopic, clock.TypeName, clock.QoS())

	var mu sync.Mutex
	var got []decisions.Rationale
	var logs []ros2msg.RosLog
	if err := peer.Subscribe(cfg.Topics[session.KeyDecisions], "ghost/msg/DecisionRationale", qos.DefaultDecisions(), func(data []byte, _ time.Time) {
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(data); err != nil {
			t.Errorf("published decision does not decode: %v", err)
			return
		}
		mu.Lock()
		got = append(got, ros2msg.RationaleFromWire(&w))
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := peer.Subscribe(rosoutTopic, rosout.TypeName, rosout.QoS(), func(data []byte, _ time.Time) {
		var m ros2msg.RosLog
		if err := m.UnmarshalCDR(data); err != nil {
			t.Errorf("/rosout message does not decode: %v", err)
			return
		}
		mu.Lock()
		logs = append(logs, m)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}

	// The node's /clock and /rosout are remapped as a user would.
	args := []string{"--ros-args", "-r", clock.Topic + ":=" + clockTopic, "-r", rosout.Topic + ":=" + rosoutTopic}
	ro := rosout.New(rosout.Options{Name: cfg.LoggerName(), Level: slog.LevelInfo})
	logger := slog.New(ro)
	stopNode, stopPeer := startLive(t, args, cfg, peer, logger, time.Minute, node.WithRosout(ro))

	publish := func(p transport.Publisher, m interface{ MarshalCDR() ([]byte, error) }) {
		t.Helper()
		data, err := m.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Publish(data); err != nil {
			t.Fatal(err)
		}
	}
	clockAt := func(sec int32, nsec uint32) {
		publish(clockPub, &ros2msg.RosClock{Clock: ros2msg.RosTime{Sec: sec, Nanosec: nsec}})
	}
	decided := func(n int, within time.Duration) int {
		deadline := time.Now().Add(within)
		for {
			mu.Lock()
			k := len(got)
			mu.Unlock()
			if k >= n || time.Now().After(deadline) {
				return k
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// firstClockLog returns the node's "first /clock message" line on
	// /rosout, waiting for it up to within.
	firstClockLog := func(within time.Duration) *ros2msg.RosLog {
		for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			for i := range logs {
				if strings.HasPrefix(logs[i].Msg, "first /clock message") {
					first := logs[i]
					mu.Unlock()
					return &first
				}
			}
			mu.Unlock()
			if time.Now().After(deadline) {
				return nil
			}
		}
	}
	belief := func(stamp int64) decisions.Belief {
		return decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0}}
	}
	assessment := func(stamp int64) decisions.SelfAssessment {
		cov := make([]float64, decisions.CovarianceLen)
		for i := 0; i < 15; i++ {
			cov[i*15+i] = 1e-4
		}
		a, err := decisions.Assess(stamp, cov, cfg.Thresholds)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// Nothing is decided before the node has its first /clock message,
	// which it reports on /rosout.
	clockAt(100, 0)
	first := firstClockLog(5 * time.Second)
	if first == nil {
		t.Fatal("no 'first /clock message' line on /rosout within 5 s")
	}
	b1, b2 := belief(1_000_000), belief(2_000_000)
	a1 := assessment(b1.StampSimNs)
	publish(statePub, new(ros2msg.BeliefToWire(&b1)))
	publish(assessPub, new(ros2msg.SelfAssessmentToWire(&a1)))
	if n := decided(1, 5*time.Second); n != 1 {
		t.Fatalf("%d decisions for a belief with its assessment", n)
	}
	publish(statePub, new(ros2msg.BeliefToWire(&b2)))
	// Paused for ten timeouts of wall time, the simulator republishing
	// the same time.
	for i := 0; i < 20; i++ {
		clockAt(100, 0)
		time.Sleep(100 * time.Millisecond)
	}
	if n := decided(2, 0); n != 1 {
		t.Fatalf("%d decisions while /clock is paused, want 1", n)
	}
	clockAt(100, 300_000_000)
	if n := decided(2, 5*time.Second); n != 2 {
		t.Fatalf("%d decisions after /clock passed the timeout, want 2", n)
	}
	mu.Lock()
	if got[1].BeliefStampSimNs != b2.StampSimNs || got[1].SelfAssessmentSHA256 != "" {
		t.Errorf("second decision %+v, want b2 without assessment", got[1])
	}
	mu.Unlock()

	if err := stopNode(); err != nil {
		t.Fatalf("node.Run: %v", err)
	}
	stopPeer()

	if first.Stamp != (ros2msg.RosTime{Sec: 100}) || first.Level != ros2msg.RosLogInfo || first.Name != "decision_node" {
		t.Errorf("/rosout line %+v", *first)
	}
}
