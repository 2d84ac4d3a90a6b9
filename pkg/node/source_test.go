package node

import (
	"context"
	"encoding/binary"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// amentPrefix installs .msg definitions as an ament prefix: each package
// name maps to the directory holding its .msg files.
func amentPrefix(t *testing.T, pkgs map[string]string) string {
	t.Helper()
	prefix := t.TempDir()
	for pkg, src := range pkgs {
		dst := filepath.Join(prefix, "share", pkg, "msg")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(src, "*.msg"))
		if len(files) == 0 {
			t.Fatalf("no definitions in %s", src)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return prefix
}

// px4Prefix holds the test layouts of PX4 release 1.15 as px4_msgs.
func px4Prefix(t *testing.T) string {
	return amentPrefix(t, map[string]string{"px4_msgs": px4fixture.Dir(t, "1.15")})
}

func px4Message(t *testing.T, defs *px4.Definitions, name string, floats map[string]float64, uints map[string]uint64) []byte {
	t.Helper()
	p, err := defs.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range floats {
		if err := w.SetFloat(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range uints {
		if err := w.SetUint(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return w.Bytes()
}

// TestNodeDecidesPX4Topics: with input.source px4 the node subscribes to
// PX4's topics with best-effort QoS, publishes the belief and assessment it
// makes of every vehicle_odometry sample on the ghost topics, and decides
// them: a PX4 vehicle gets decisions with no glue code.
func TestNodeDecidesPX4Topics(t *testing.T) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Input.Source = config.SourcePX4
	cfg.Input.PX4Release = "1.15"
	ft := transport.NewFakeTransport()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, cfg, ft, slog.New(slog.DiscardHandler), runOptions{waitWhenFull: true, now: func() time.Time { return base },
			tick: make(chan time.Time), diag: make(chan time.Time), ament: prefix})
	}()
	deliver := func(topic string, data []byte, at time.Duration) {
		t.Helper()
		if err := ft.Deliver(ctx, topic, data, base.Add(at)); err != nil {
			t.Fatalf("deliver %s: %v", topic, err)
		}
	}
	deliver("/fmu/out/vehicle_status", px4Message(t, defs, px4.MsgVehicleStatus, nil,
		map[string]uint64{"timestamp": 900, "arming_state": 2, "nav_state": 14}), 0)
	const samples = 5
	for i := range samples {
		deliver("/fmu/out/vehicle_odometry", px4Message(t, defs, px4.MsgVehicleOdometry,
			map[string]float64{"q[0]": 1, "position_variance[0]": 0.01, "position_variance[1]": 0.01, "position_variance[2]": 0.01,
				"velocity_variance[0]": 0.01, "velocity_variance[1]": 0.01, "velocity_variance[2]": 0.01,
				"orientation_variance[0]": 1e-4, "orientation_variance[1]": 1e-4, "orientation_variance[2]": 1e-4},
			map[string]uint64{"timestamp": uint64(1000 + 20*i), "timestamp_sample": uint64(1000 + 20*i), "pose_frame": 1, "velocity_frame": 1}),
			time.Duration(i)*20*time.Millisecond)
	}
	got, err := ft.WaitPublished(ctx, cfg.Topics[session.KeyDecisions], samples)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	states := ft.Published(cfg.Topics[session.KeyState])
	assessments := ft.Published(cfg.Topics[session.KeySelfAssessment])
	if len(states) != samples || len(assessments) != samples {
		t.Fatalf("published %d beliefs and %d assessments, want %d", len(states), len(assessments), samples)
	}
	for i, data := range got {
		var r ros2msg.DecisionRationale
		if err := r.UnmarshalCDR(data); err != nil {
			t.Fatal(err)
		}
		if r.SelfAssessmentSHA256 == "" || r.BeliefStampSimNs != int64(1000+20*i)*1000 || r.Decision.Reason != "overall_known" {
			t.Fatalf("decision %d: %+v", i, r)
		}
	}
	if typ, q, ok := ft.Subscription("/fmu/out/vehicle_odometry"); !ok || q.Reliability != qos.ReliabilityBestEffort || typ != "px4_msgs/msg/VehicleOdometry" {
		t.Fatalf("vehicle_odometry subscribed as %s with %+v, want best effort", typ, q)
	}
}

func TestNodeRefusesAMismatchedPX4Release(t *testing.T) {
	cfg := testConfig()
	cfg.Input.Source = config.SourcePX4
	cfg.Input.PX4Release = "1.16"
	_, err := newNode(context.Background(), cfg, transport.NewFakeTransport(), slog.New(slog.DiscardHandler), time.Now, px4Prefix(t))
	if err == nil || !strings.Contains(err.Error(), "release 1.15") {
		t.Fatalf("err %v: want a release mismatch naming the installed 1.15", err)
	}
	cfg.Input.PX4Release = ""
	if _, err := newNode(context.Background(), cfg, transport.NewFakeTransport(), slog.New(slog.DiscardHandler), time.Now, t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), "px4_msgs") {
		t.Fatalf("err %v: want px4_msgs not found", err)
	}
}

// odometryPrefix holds the nav_msgs, geometry_msgs, std_msgs,
// builtin_interfaces and sensor_msgs test definitions.
func odometryPrefix(t *testing.T) string {
	src := filepath.Join("..", "wire", "dynamic", "testdata", "msgs")
	pkgs := map[string]string{}
	for _, p := range []string{"builtin_interfaces", "std_msgs", "geometry_msgs", "nav_msgs", "sensor_msgs"} {
		pkgs[p] = filepath.Join(src, p)
	}
	return amentPrefix(t, pkgs)
}

// odometryCDR is a nav_msgs/Odometry at stamp sec with the same variance on
// every diagonal entry of both covariances.
func odometryCDR(sec uint32, variance float64) []byte {
	b := []byte{0, 1, 0, 0}
	align := func(n int) {
		for (len(b)-4)%n != 0 {
			b = append(b, 0)
		}
	}
	u32 := func(v uint32) { align(4); b = binary.LittleEndian.AppendUint32(b, v) }
	f64 := func(v float64) { align(8); b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	str := func(s string) { u32(uint32(len(s) + 1)); b = append(append(b, s...), 0) }
	u32(sec)
	u32(0)
	str("map")
	str("base_link")
	for _, v := range []float64{1, 2, 3, 0, 0, 0, 1} {
		f64(v)
	}
	cov := func() {
		for i := range 36 {
			v := 0.0
			if i%7 == 0 {
				v = variance
			}
			f64(v)
		}
	}
	cov()
	for range 6 {
		f64(0)
	}
	cov()
	return b
}

// TestNodeDecidesOdometry: with input.source odometry the node reads
// nav_msgs/Odometry, publishes the belief and assessment it makes of each
// message, and decides them.
func TestNodeDecidesOdometry(t *testing.T) {
	prefix := odometryPrefix(t)
	cfg := testConfig()
	cfg.Input.Source = config.SourceOdometry
	ft := transport.NewFakeTransport()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, cfg, ft, slog.New(slog.DiscardHandler), runOptions{waitWhenFull: true, now: func() time.Time { return base },
			tick: make(chan time.Time), diag: make(chan time.Time), ament: prefix})
	}()
	for i, v := range []float64{1e-4, 0.01, 0} { // known, uncertain (orientation), unknown (MAVROS' zeros)
		if err := ft.Deliver(ctx, "/odom", odometryCDR(uint32(10+i), v), base.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ft.WaitPublished(ctx, cfg.Topics[session.KeyDecisions], 3)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"overall_known", "overall_uncertain", "overall_unknown"} {
		var r ros2msg.DecisionRationale
		if err := r.UnmarshalCDR(got[i]); err != nil {
			t.Fatal(err)
		}
		if r.Decision.Reason != want || r.BeliefStampSimNs != int64(10+i)*1_000_000_000 || r.SelfAssessmentSHA256 == "" {
			t.Fatalf("decision %d: %+v, want %s", i, r, want)
		}
	}
	if n := len(ft.Published(cfg.Topics[session.KeySelfAssessment])); n != 3 {
		t.Fatalf("%d assessments published, want 3", n)
	}
}
