//go:build rclgo

package node_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/ros2cli"
	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// TestParametersOverROS2 runs the node on a real ROS 2 graph and drives its
// parameter and lifecycle services with the ros2 command-line tools, as a
// user would. It needs a sourced ROS 2 (Humble or Jazzy) with ros2cli and this
// package's built interfaces; without them it skips.
func TestParametersOverROS2(t *testing.T) {
	if os.Getenv("AMENT_PREFIX_PATH") == "" {
		t.Skip("ROS 2 is not sourced (AMENT_PREFIX_PATH is empty)")
	}
	ros2path, err := exec.LookPath("ros2")
	if err != nil {
		t.Skip("ros2 command-line tools not in PATH")
	}
	cfg := config.Default()
	cfg.NodeName = fmt.Sprintf("ghost_param_test_%d", os.Getpid())
	cfg.Lifecycle = true
	for k, v := range cfg.Topics {
		if strings.HasPrefix(v, "/") {
			cfg.Topics[k] = "/" + cfg.NodeName + v // keeps parallel runs apart
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	tr, err := transport.NewRCLTransport(nil, cfg.NodeName, "", logger)
	if err != nil {
		t.Skipf("no ROS 2 context: %v", err)
	}
	defer tr.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- node.Run(ctx, cfg, tr, logger) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	fqn := "/" + cfg.NodeName
	run := func(args ...string) string {
		t.Helper()
		c, stop := context.WithTimeout(context.Background(), 60*time.Second)
		defer stop()
		out, err := ros2cli.Run(c, ros2path, args...)
		if err != nil {
			t.Fatalf("ros2 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// Discovery takes a moment: the first call waits for the service.
	if out := run("param", "get", "--no-daemon", fqn, "assessment_timeout_s"); !strings.Contains(out, "Double value is: 0.1") {
		t.Errorf("param get: %q", out)
	}
	if out := run("param", "set", "--no-daemon", fqn, "assessment_timeout_s", "0.2"); !strings.Contains(out, "Set parameter successful") {
		t.Errorf("param set: %q", out)
	}
	if out := run("param", "get", "--no-daemon", fqn, "assessment_timeout_s"); !strings.Contains(out, "Double value is: 0.2") {
		t.Errorf("param get after set: %q", out)
	}
	if out := run("param", "set", "--no-daemon", fqn, "policy", "x"); !strings.Contains(out, "read-only") {
		t.Errorf("param set read-only: %q", out)
	}
	if out := run("param", "list", "--no-daemon", fqn); !strings.Contains(out, "qos.decisions.depth") || !strings.Contains(out, "use_sim_time") {
		t.Errorf("param list: %q", out)
	}
	if out := run("lifecycle", "get", "--no-daemon", fqn); !strings.Contains(out, "unconfigured") {
		t.Errorf("lifecycle get: %q", out)
	}
	if out := run("lifecycle", "set", "--no-daemon", fqn, "configure"); !strings.Contains(out, "Transitioning successful") {
		t.Errorf("lifecycle set configure: %q", out)
	}
	if out := run("lifecycle", "get", "--no-daemon", fqn); !strings.Contains(out, "inactive") {
		t.Errorf("lifecycle get after configure: %q", out)
	}
}
