package bridge

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var testThresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: decisions.SchemaVersion,
}

func newBridge(t testing.TB) *Bridge {
	t.Helper()
	b, err := New(Options{Thresholds: testThresholds})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// px4Defs reads the test layouts of a PX4 release.
func px4Defs(t testing.TB, rel px4.Release) *px4.Definitions {
	t.Helper()
	d, err := px4.NewDefinitions(rel, px4fixture.Texts(t, string(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// encode writes a fixed-size PX4 message field by field.
func encode(t testing.TB, d *px4.Definitions, name string, set func(w *dynamic.Writer) error) []byte {
	t.Helper()
	p, err := d.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	if err := set(w); err != nil {
		t.Fatal(err)
	}
	return w.Bytes()
}

func setAll(w *dynamic.Writer, floats map[string]float64, uints map[string]uint64, bools map[string]bool) error {
	for k, v := range floats {
		if err := w.SetFloat(k, v); err != nil {
			return err
		}
	}
	for k, v := range uints {
		if err := w.SetUint(k, v); err != nil {
			return err
		}
	}
	for k, v := range bools {
		if err := w.SetBool(k, v); err != nil {
			return err
		}
	}
	return nil
}

// TestPX4SourceMakesBeliefsAndAssessments drives the PX4 source with
// status, battery and odometry messages of release 1.15: each odometry
// sample gives a ghost VehicleState and its assessment, stamped with the
// sample time, carrying the latest status and battery.
func TestPX4SourceMakesBeliefsAndAssessments(t *testing.T) {
	defs := px4Defs(t, px4.Release115)
	b := newBridge(t)
	src, err := NewPX4(b, PX4Options{Definitions: defs, Namespace: "/uav_1"})
	if err != nil {
		t.Fatal(err)
	}
	topics := map[string]string{}
	for _, s := range src.Subscriptions() {
		topics[s.Type] = s.Topic
	}
	if topics["px4_msgs/msg/VehicleOdometry"] != "/uav_1/fmu/out/vehicle_odometry" {
		t.Fatalf("subscriptions %v", topics)
	}
	status := encode(t, defs, px4.MsgVehicleStatus, func(w *dynamic.Writer) error {
		return setAll(w, nil, map[string]uint64{"timestamp": 900, "arming_state": 2, "nav_state": 14}, nil)
	})
	battery := encode(t, defs, px4.MsgBatteryStatus, func(w *dynamic.Writer) error {
		return setAll(w, map[string]float64{"voltage_v": 15.5, "remaining": 0.6}, map[string]uint64{"timestamp": 950}, map[string]bool{"connected": true})
	})
	odom := func(sample uint64, posVar float64) []byte {
		return encode(t, defs, px4.MsgVehicleOdometry, func(w *dynamic.Writer) error {
			f := map[string]float64{"q[0]": 1, "q[1]": 0, "q[2]": 0, "q[3]": 0}
			for i := range 3 {
				k := "[" + string(rune('0'+i)) + "]"
				f["position_variance"+k] = posVar
				f["velocity_variance"+k] = 0.01
				f["orientation_variance"+k] = 0.0001
			}
			return setAll(w, f, map[string]uint64{"timestamp": sample + 10, "timestamp_sample": sample, "pose_frame": 1, "velocity_frame": 1}, nil)
		})
	}
	for _, m := range []struct {
		topic string
		data  []byte
	}{
		{topics["px4_msgs/msg/VehicleStatus"], status}, {topics["px4_msgs/msg/BatteryStatus"], battery},
	} {
		if out, err := src.Handle(m.topic, m.data, 0); err != nil || len(out) != 0 {
			t.Fatalf("%s: %v %v", m.topic, out, err)
		}
	}
	for i, tt := range []struct {
		posVar float64
		level  decisions.Level
	}{{0.01, decisions.LevelKnown}, {1, decisions.LevelUncertain}, {9, decisions.LevelUnknown}, {math.NaN(), decisions.LevelUnknown}} {
		sample := uint64(1000 + 20*i)
		out, err := src.Handle(topics["px4_msgs/msg/VehicleOdometry"], odom(sample, tt.posVar), 0)
		if err != nil || len(out) != 2 {
			t.Fatalf("odometry %d: %v %v", i, out, err)
		}
		var vs ros2msg.VehicleState
		if err := vs.UnmarshalCDR(out[0].Data); err != nil || out[0].Topic != "/state/nav" {
			t.Fatalf("belief: %v on %s", err, out[0].Topic)
		}
		var sa ros2msg.BeliefSelfAssessment
		if err := sa.UnmarshalCDR(out[1].Data); err != nil || out[1].Topic != "/self_assessment" {
			t.Fatalf("assessment: %v on %s", err, out[1].Topic)
		}
		belief, err := ros2msg.BeliefFromWire(&vs)
		if err != nil {
			t.Fatal(err)
		}
		a := ros2msg.SelfAssessmentFromWire(&sa)
		if belief.StampSimNs != int64(sample)*1000 || a.BeliefStampSimNs != belief.StampSimNs {
			t.Fatalf("stamps %d / %d, want the sample time %d µs in ns", belief.StampSimNs, a.BeliefStampSimNs, sample)
		}
		if !belief.Flight.Armed || belief.Flight.Mode != decisions.FlightModeOffboard || belief.Flight.BatteryPct != float64(float32(0.6)) {
			t.Fatalf("flight %+v: want armed, offboard, 60%%", belief.Flight)
		}
		if a.BlockLevel[0] != tt.level {
			t.Fatalf("position variance %v: level %s, want %s", tt.posVar, a.BlockLevel[0], tt.level)
		}
		if want, _ := decisions.Assess(belief.StampSimNs, belief.Covariance, testThresholds); want.SHA256() != a.SHA256() {
			t.Fatal("the published assessment is not the assessment of the published belief")
		}
	}
}

// TestPX4SourceRejectsAnotherReleasesLayout: a payload of release 1.14's
// VehicleStatus layout read with 1.16's definitions is rejected naming the
// release it fits, and what was accepted before stays.
func TestPX4SourceRejectsAnotherReleasesLayout(t *testing.T) {
	old := px4Defs(t, px4.Release114)
	src, err := NewPX4(newBridge(t), PX4Options{Definitions: px4Defs(t, px4.Release116)})
	if err != nil {
		t.Fatal(err)
	}
	status := encode(t, old, px4.MsgVehicleStatus, func(w *dynamic.Writer) error {
		return setAll(w, nil, map[string]uint64{"timestamp": 1, "arming_state": 2}, nil)
	})
	topic := ""
	for _, s := range src.Subscriptions() {
		if s.Type == "px4_msgs/msg/VehicleStatus" {
			topic = s.Topic
		}
	}
	_, err = src.Handle(topic, status, 0)
	if !errors.Is(err, px4.ErrLayoutMismatch) || !strings.Contains(err.Error(), "1.14") {
		t.Fatalf("error %v, want a layout mismatch naming release 1.14", err)
	}
	if _, err := src.Handle("/fmu/out/other", status, 0); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("unknown topic: %v", err)
	}
}

// odometryDefs installs the test definitions as an ament prefix.
func odometryDefs(t testing.TB) OdometryDefinitions {
	t.Helper()
	prefix := t.TempDir()
	src := filepath.Join("..", "..", "wire", "dynamic", "testdata", "msgs")
	pkgs, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		dst := filepath.Join(prefix, "share", p.Name(), "msg")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(src, p.Name(), "*.msg"))
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
	d, err := LoadOdometryDefinitions(string(os.PathListSeparator) + prefix)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cdr is a minimal little-endian XCDR1 writer for the test messages.
type cdr struct{ b []byte }

func newCDR() *cdr { return &cdr{b: []byte{0, 1, 0, 0}} }
func (c *cdr) align(n int) {
	for (len(c.b)-4)%n != 0 {
		c.b = append(c.b, 0)
	}
}
func (c *cdr) u32(v uint32)  { c.align(4); c.b = binary.LittleEndian.AppendUint32(c.b, v) }
func (c *cdr) f32(v float32) { c.u32(math.Float32bits(v)) }
func (c *cdr) f64(v float64) {
	c.align(8)
	c.b = binary.LittleEndian.AppendUint64(c.b, math.Float64bits(v))
}
func (c *cdr) str(s string) { c.u32(uint32(len(s) + 1)); c.b = append(append(c.b, s...), 0) }

func odometryCDR(sec int32, covDiag float64) []byte {
	c := newCDR()
	c.u32(uint32(sec))
	c.u32(0)
	c.str("map")
	c.str("base_link")
	for _, v := range []float64{1, 2, 3, 0, 0, 0, 1} { // position, orientation x y z w
		c.f64(v)
	}
	for i := range 36 {
		v := 0.0
		if i%7 == 0 {
			v = covDiag
		}
		c.f64(v)
	}
	for range 6 { // twist linear, angular
		c.f64(0)
	}
	for i := range 36 {
		v := 0.0
		if i%7 == 0 {
			v = covDiag
		}
		c.f64(v)
	}
	return c.b
}

// TestOdometrySource: nav_msgs/Odometry gives a belief whose levels follow
// its covariances; an all-zero covariance (as MAVROS publishes without a
// covariance) is unknown; BatteryState reaches the next belief.
func TestOdometrySource(t *testing.T) {
	src, err := NewOdometry(newBridge(t), odometryDefs(t), "/odom", "/battery")
	if err != nil {
		t.Fatal(err)
	}
	bat := newCDR()
	bat.u32(1)
	bat.u32(0)
	bat.str("")
	for _, v := range []float32{15.1, 20, -1, 1, 5, 5} { // voltage temperature current charge capacity design_capacity
		bat.f32(v)
	}
	bat.f32(0.42) // percentage
	bat.b = append(bat.b, 2, 0, 0, 1)
	for range 2 { // cell_voltage, cell_temperature
		bat.u32(0)
	}
	bat.str("")
	bat.str("")
	if _, err := src.Handle("/battery", bat.b, 0); err != nil {
		t.Fatalf("battery: %v", err)
	}
	for i, tt := range []struct {
		diag  float64
		level decisions.Level
	}{{0.0001, decisions.LevelKnown}, {0.01, decisions.LevelUncertain}, {0, decisions.LevelUnknown}} {
		out, err := src.Handle("/odom", odometryCDR(int32(2+i), tt.diag), 0)
		if err != nil || len(out) != 2 {
			t.Fatalf("odometry: %v %v", out, err)
		}
		var sa ros2msg.BeliefSelfAssessment
		if err := sa.UnmarshalCDR(out[1].Data); err != nil {
			t.Fatal(err)
		}
		var vs ros2msg.VehicleState
		if err := vs.UnmarshalCDR(out[0].Data); err != nil {
			t.Fatal(err)
		}
		if sa.BeliefStampSimNs != int64(2+i)*1_000_000_000 || sa.OverallLevel != uint8(tt.level) {
			t.Fatalf("diag %v: stamp %d level %d, want %s", tt.diag, sa.BeliefStampSimNs, sa.OverallLevel, tt.level)
		}
		if vs.Flight.BatteryPct != float64(float32(0.42)) {
			t.Fatalf("battery %v", vs.Flight.BatteryPct)
		}
	}
	if _, err := src.Handle("/odom", []byte{0, 1, 0, 0, 1}, 0); err == nil {
		t.Fatal("a truncated Odometry was accepted")
	}
}
