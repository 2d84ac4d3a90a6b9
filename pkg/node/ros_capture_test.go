//go:build rclgo

package node

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/ros2cli"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// capturing passes everything to a real transport and keeps the bytes the
// middleware handed over: each service request and each message received.
type capturing struct {
	transport.Transport
	mu   sync.Mutex
	recs []capturedRecord
}

func (c *capturing) keep(kind, name, typ string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, capturedRecord{Kind: kind, Name: name, Type: typ, CDR: hex.EncodeToString(data)})
}

func (c *capturing) Subscribe(topic, typeName string, p qos.Profile, h transport.Handler) error {
	return c.Transport.Subscribe(topic, typeName, p, func(data []byte, recv time.Time) {
		c.keep("topic", topic, typeName, data)
		h(data, recv)
	})
}

func (c *capturing) Serve(name, typeName string, p qos.Profile, h transport.ServiceHandler) error {
	return c.Transport.Serve(name, typeName, p, func(req []byte) ([]byte, error) {
		c.keep("service", name, typeName, req)
		return h(req)
	})
}

// TestRMWBytesOverROS2 drives the node's parameter and lifecycle services
// and its ghost inputs with the ros2 command-line tools, whose rclpy
// serializes through the middleware in use, and checks every answer. With
// GHOST_CAPTURE_DIR set it writes what the middleware delivered to
// <dir>/<RMW_IMPLEMENTATION>.jsonl, the vectors TestCapturedRMWBytes
// replays without ROS 2. It needs a sourced ROS 2 with ros2cli and this
// package's interfaces, and RMW_IMPLEMENTATION set, so the record says
// which middleware wrote the bytes.
func TestRMWBytesOverROS2(t *testing.T) {
	if os.Getenv("AMENT_PREFIX_PATH") == "" {
		t.Skip("ROS 2 is not sourced (AMENT_PREFIX_PATH is empty)")
	}
	rmw := os.Getenv("RMW_IMPLEMENTATION")
	if rmw == "" {
		t.Skip("RMW_IMPLEMENTATION is not set: the captured bytes must name their middleware")
	}
	ros2path, err := exec.LookPath("ros2")
	if err != nil {
		t.Skip("ros2 command-line tools not in PATH")
	}
	t.Logf("middleware: %s", rmw)
	cfg := config.Default()
	cfg.NodeName = fmt.Sprintf("ghost_rmw_test_%d", os.Getpid())
	cfg.Lifecycle = true
	for k, v := range cfg.Topics {
		if strings.HasPrefix(v, "/") {
			cfg.Topics[k] = "/" + cfg.NodeName + v
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rcl, err := transport.NewRCLTransport(nil, cfg.NodeName, "", logger)
	if err != nil {
		t.Skipf("no ROS 2 context: %v", err)
	}
	defer rcl.Close()
	tr := &capturing{Transport: rcl}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, tr, logger) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	fqn := "/" + cfg.NodeName
	run := func(want string, args ...string) {
		t.Helper()
		c, stop := context.WithTimeout(context.Background(), 60*time.Second)
		defer stop()
		out, err := ros2cli.Run(c, ros2path, args...)
		if err != nil {
			t.Fatalf("ros2 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("ros2 %s: %q, want it to say %q", strings.Join(args, " "), out, want)
		}
	}
	run("Double value is: 0.1", "param", "get", "--no-daemon", fqn, "assessment_timeout_s")
	run("Set parameter successful", "param", "set", "--no-daemon", fqn, "assessment_timeout_s", "0.2")
	run("Double value is: 0.2", "param", "get", "--no-daemon", fqn, "assessment_timeout_s")
	run("read-only", "param", "set", "--no-daemon", fqn, "policy", "x")
	run("successful=True", "service", "call", fqn+"/set_parameters_atomically", "rcl_interfaces/srv/SetParametersAtomically",
		"{parameters: [{name: assessment_timeout_s, value: {type: 3, double_value: 0.25}}, {name: log_level, value: {type: 4, string_value: info}}]}")
	run("successful=True", "service", "call", fqn+"/set_parameters", "rcl_interfaces/srv/SetParameters",
		"{parameters: [{name: assessment_timeout_s, value: {type: 3, double_value: 0.3}}, {name: qos.decisions.depth, value: {type: 2, integer_value: 30}}]}")
	run("Double value is: 0.3", "param", "get", "--no-daemon", fqn, "assessment_timeout_s")
	run("qos.decisions.depth", "param", "describe", "--no-daemon", fqn, "qos.decisions.depth")
	run("use_sim_time", "param", "list", "--no-daemon", fqn)
	run("unconfigured", "lifecycle", "get", "--no-daemon", fqn)
	run("Transitioning successful", "lifecycle", "set", "--no-daemon", fqn, "configure")
	run("inactive", "lifecycle", "get", "--no-daemon", fqn)
	run("activate", "lifecycle", "list", "--no-daemon", fqn)
	run("Transitioning successful", "lifecycle", "set", "--no-daemon", fqn, "activate")
	// The ghost inputs, as rclpy serializes them on this middleware, in an
	// order the node takes whole: a perception mode, an assessment, the
	// belief it assesses with an empty covariance (an empty sequence of
	// float64s), and a later belief with a full covariance.
	cov := strings.TrimSuffix(strings.Repeat("0.01, ", 225), ", ")
	for _, in := range []struct{ topic, typ, yaml string }{
		{"/perception/mode", "ghost/msg/PerceptionMode", "{stamp_sim_ns: 1000, mode: 1}"},
		{"/self_assessment", "ghost/msg/BeliefSelfAssessment", assessmentYAML(testAssessment(t, 1000, 0.3))},
		{"/state/nav", "ghost/msg/VehicleState",
			"{stamp_sim_ns: 1000, nav: {position_enu_m: [1.0, 2.0, 3.0], orientation_q: [1.0, 0.0, 0.0, 0.0]}}"},
		{"/state/nav", "ghost/msg/VehicleState",
			"{stamp_sim_ns: 2000, nav: {position_enu_m: [1.0, 2.0, 3.0], orientation_q: [1.0, 0.0, 0.0, 0.0], covariance_15x15: [" + cov + "]}}"},
	} {
		run("publishing", "topic", "pub", "--once", "-w", "1", cfg.NodeName+in.topic, in.typ, in.yaml)
	}
	if dir := os.Getenv("GHOST_CAPTURE_DIR"); dir != "" {
		writeCaptured(t, filepath.Join(dir, rmw+".jsonl"), rmw, "/"+cfg.NodeName, tr)
	}
}

// assessmentYAML writes a as the YAML ros2 topic pub reads.
func assessmentYAML(a decisions.SelfAssessment) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	fmt.Fprintf(&b, "{belief_stamp_sim_ns: %d", a.BeliefStampSimNs)
	blocks, units := [3]string{"position", "velocity", "orientation"}, [3]string{"m", "mps", "rad"}
	for i := range a.Std {
		axis := blocks[i/3] + "_axis_" + string(rune('x'+i%3))
		fmt.Fprintf(&b, ", %s_std_%s: %s, %s_level: %d", axis, units[i/3], f(a.Std[i]), axis, a.AxisLevel[i])
	}
	for i, name := range []string{"position", "velocity", "orientation"} {
		fmt.Fprintf(&b, ", %s_overall_level: %d", name, a.BlockLevel[i])
	}
	th := a.ThresholdsUsed
	fmt.Fprintf(&b, ", overall_level: %d, thresholds_used: {position_known_std_m: %s, position_unknown_std_m: %s, "+
		"velocity_known_std_mps: %s, velocity_unknown_std_mps: %s, orientation_known_std_rad: %s, orientation_unknown_std_rad: %s}, "+
		"thresholds_sha256: '%s', covariance_available: %t}",
		a.OverallLevel, f(th.PositionKnownStdM), f(th.PositionUnknownStdM), f(th.VelocityKnownStdMps), f(th.VelocityUnknownStdMps),
		f(th.OrientationKnownStdRad), f(th.OrientationUnknownStdRad), a.ThresholdsSHA256, a.CovarianceAvailable)
	return b.String()
}

// writeCaptured writes the records with the test's prefix taken off their
// names, so they read as the node's default topics and services.
func writeCaptured(t *testing.T, path, rmw, prefix string, tr *capturing) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var b strings.Builder
	for _, r := range tr.recs {
		r.RMW = rmw
		r.Name = strings.TrimPrefix(r.Name, prefix)
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records to %s", len(tr.recs), path)
}

// TestPX4BytesOverROS2 keeps what the middleware delivers of PX4's own
// topics, through the XRCE-DDS agent, to a node with input.source px4: run
// it beside a PX4 SITL and its agent (GHOST_PX4_LIVE=1 says they are up).
// With GHOST_CAPTURE_DIR it writes <dir>/<RMW_IMPLEMENTATION>.px4.jsonl,
// which TestCapturedPX4Bytes replays without ROS 2.
func TestPX4BytesOverROS2(t *testing.T) {
	if os.Getenv("AMENT_PREFIX_PATH") == "" || os.Getenv("GHOST_PX4_LIVE") == "" {
		t.Skip("needs a sourced ROS 2 with px4_msgs and a PX4 SITL with its agent running (GHOST_PX4_LIVE=1)")
	}
	rmw := os.Getenv("RMW_IMPLEMENTATION")
	if rmw == "" {
		t.Skip("RMW_IMPLEMENTATION is not set: the captured bytes must name their middleware")
	}
	cfg := config.Default()
	cfg.NodeName = fmt.Sprintf("ghost_px4_capture_%d", os.Getpid())
	cfg.Input.Source = config.SourcePX4
	cfg.Input.PX4Release = "1.15"
	for k, v := range cfg.Topics {
		// The ghost topics apart from other graphs; PX4's stay where the agent has them.
		if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "/fmu/") {
			cfg.Topics[k] = "/" + cfg.NodeName + v
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rcl, err := transport.NewRCLTransport(nil, cfg.NodeName, "", logger)
	if err != nil {
		t.Skipf("no ROS 2 context: %v", err)
	}
	defer rcl.Close()
	tr := &capturing{Transport: rcl}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := Run(ctx, cfg, tr, logger); err != nil {
		t.Fatalf("Run: %v", err)
	}
	tr.mu.Lock()
	var px4 []capturedRecord
	seen := map[string]int{}
	for _, r := range tr.recs {
		// A few samples of each PX4 topic are enough to check a decoder.
		if strings.HasPrefix(r.Name, "/fmu/") && seen[r.Name] < 5 {
			seen[r.Name]++
			px4 = append(px4, r)
		}
	}
	tr.recs = px4
	tr.mu.Unlock()
	t.Logf("middleware %s: PX4 topics heard: %v", rmw, seen)
	for _, topic := range []string{"/fmu/out/vehicle_odometry", "/fmu/out/vehicle_status", "/fmu/out/vehicle_gps_position", "/fmu/out/failsafe_flags"} {
		if seen[topic] == 0 {
			t.Errorf("nothing heard on %s", topic)
		}
	}
	if dir := os.Getenv("GHOST_CAPTURE_DIR"); dir != "" {
		writeCaptured(t, filepath.Join(dir, rmw+".px4.jsonl"), rmw, "", tr)
	}
}
