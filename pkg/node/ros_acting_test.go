//go:build rclgo

package node_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/standin"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// TestActingOverROS2 runs the acting node on a real ROS 2 graph beside the
// PX4 stand-in: a simulated flight decided by the PX4-like policy becomes
// VehicleCommands, the stand-in acknowledges them and changes mode, and the
// node's own recording re-verifies with the same executor configuration.
// It needs a sourced ROS 2 Humble with this package's interfaces and
// px4_msgs; without them it skips.
//
//	source <workspace>/install/setup.bash
//	go test -tags rclgo -run ActingOverROS2 ./pkg/node
func TestActingOverROS2(t *testing.T) {
	ament := os.Getenv("AMENT_PREFIX_PATH")
	if ament == "" {
		t.Skip("ROS 2 is not sourced (AMENT_PREFIX_PATH is empty)")
	}
	defs, err := px4.LoadFromAmentIndex(ament)
	if err != nil {
		t.Skipf("no px4_msgs in the workspace: %v", err)
	}
	cfg, prefix, peer, logger := liveGraph(t, "act", "ghost_test_vehicle")
	cfg.Input.PX4Namespace = prefix
	cfg.PolicyFile = filepath.Join("..", "..", "config", "policies", "px4_failsafe_like.yaml")
	cfg.Executors.Executor = config.ExecutorPX4
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	standin, err := standin.New(peer, standin.Options{Definitions: defs, Namespace: prefix})
	if err != nil {
		t.Fatal(err)
	}
	pubs := map[string]transport.Publisher{}
	for _, in := range cfg.Inputs() {
		if in.Kind != engine.InputBelief && in.Kind != engine.InputAssessment && in.Kind != engine.InputPerception {
			continue
		}
		p, err := peer.Advertise(in.Topic, in.Type, qos.DefaultInput())
		if err != nil {
			if strings.Contains(err.Error(), "type support") {
				t.Skipf("ghost interfaces not built or not sourced: %v", err)
			}
			t.Fatal(err)
		}
		pubs[in.Topic] = p
	}

	stopNode, stopPeer := startLive(t, nil, cfg, peer, logger, 2*time.Minute)

	v, err := sim.NewVehicle(sim.Options{Duration: 40 * time.Second, RateHz: 10, Thresholds: cfg.Thresholds})
	if err != nil {
		t.Fatal(err)
	}
	src := sim.NewPublisher(v, cfg.Inputs())
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p, ok := pubs[m.Topic]
		if !ok {
			continue
		}
		if err := p.Publish(m.Data); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // commands and acks go back and forth meanwhile
	}
	time.Sleep(2 * time.Second) // the last acknowledgements and statuses
	if err := stopNode(); err != nil {
		t.Fatalf("node.Run: %v", err)
	}
	stopPeer()

	st := standin.Stats()
	if st.Commands == 0 || st.Accepted == 0 {
		t.Fatalf("the stand-in answered no command: %+v", st)
	}
	so, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := audit.Verify(r, audit.VerifyOptions{Policies: []decisions.Policy{so.Loop.Policy},
		DecisionsTopic: cfg.Topics[session.KeyDecisions], ActionsTopic: cfg.Topics[session.KeyActions],
		Session: so}) // its Loop's Policy is ignored: Policies are supplied
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed() || rep.Actions["sent"] == 0 || rep.Actions["reached"] == 0 {
		t.Fatalf("the node's recording: verdict %s, actions %v, findings %v, notes %v", rep.Verdict, rep.Actions, rep.Findings, rep.Notes)
	}
	if rep.Actions["sent"] != st.Commands {
		t.Errorf("%d commands recorded as sent, the stand-in read %d", rep.Actions["sent"], st.Commands)
	}
}
