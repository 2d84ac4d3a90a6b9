//go:build rclgo

package node_test

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TestLiveOverROS2 runs the node on a real ROS 2 graph: a peer publishes a
// simulated flight on the input topics, and every decision the node
// publishes must equal what the same messages give in replay. It needs a
// sourced ROS 2 Humble and this package's built interfaces (colcon build,
// then source install/setup.bash); without them it skips.
//
//	source <workspace>/install/setup.bash
//	go test -tags rclgo -run LiveOverROS2 ./pkg/node
func TestLiveOverROS2(t *testing.T) {
	cfg, _, peer, logger := liveGraph(t, "live", "ghost_test_peer")
	pubs := map[string]transport.Publisher{}
	for topic, typ := range map[string]string{
		cfg.Topics[session.KeyState]:          "ghost/msg/VehicleState",
		cfg.Topics[session.KeySelfAssessment]: "ghost/msg/BeliefSelfAssessment",
		cfg.Topics[session.KeyPerceptionMode]: "ghost/msg/PerceptionMode",
	} {
		p, err := peer.Advertise(topic, typ, qos.DefaultInput())
		if err != nil {
			if strings.Contains(err.Error(), "type support") {
				t.Skipf("ghost interfaces not built or not sourced: %v", err)
			}
			t.Fatal(err)
		}
		pubs[topic] = p
	}
	var mu sync.Mutex
	var got []decisions.Rationale
	recvQoS := qos.DefaultDecisions()
	recvQoS.Depth = 10000
	err := peer.Subscribe(cfg.Topics[session.KeyDecisions], "ghost/msg/DecisionRationale", recvQoS, func(data []byte, _ time.Time) {
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(data); err != nil {
			t.Errorf("published decision does not decode: %v", err)
			return
		}
		mu.Lock()
		got = append(got, ros2msg.RationaleFromWire(&w))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}

	stopNode, stopPeer := startLive(t, nil, cfg, peer, logger, time.Minute)

	// The flight, and what replay decides for it.
	vehicle, err := sim.NewVehicle(sim.Options{Duration: 10 * time.Second, RateHz: 20, Thresholds: cfg.Thresholds})
	if err != nil {
		t.Fatal(err)
	}
	src := sim.NewPublisher(vehicle, cfg.Inputs())
	sess, err := session.NewSession(session.SessionOptions{Inputs: cfg.Inputs()})
	if err != nil {
		t.Fatal(err)
	}
	var wantRecords []decisions.Rationale
	want := session.FuncSink(func(cmd engine.Command) error {
		wantRecords = append(wantRecords, cmd.Rationale)
		return nil
	})
	if err := sess.Runner().Register("memory", want); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Feed(m.Topic, int64(m.LogTime), m.Data); err != nil {
			t.Fatal(err)
		}
		if err := pubs[m.Topic].Publish(m.Data); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := sess.End(sess.Now()); err != nil {
		t.Fatal(err)
	}

	// Wait for the node to decide the last beliefs (by timeout), then stop it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(wantRecords) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := stopNode(); err != nil {
		t.Fatalf("node.Run: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	stopPeer()

	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(wantRecords) {
		t.Fatalf("the node published %d decisions, replay decides %d", len(got), len(wantRecords))
	}
	for i, w := range wantRecords {
		if got[i] != w {
			t.Fatalf("decision %d: node published %+v, replay decides %+v", i, got[i], w)
		}
	}
}
