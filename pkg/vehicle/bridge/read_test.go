package bridge

import (
	"errors"
	"hash/fnv"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// fieldValue is the value the tests give a field: from its name alone, so
// the same field holds the same value in every release, and distinct
// fields hold distinct values.
func fieldValue(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func floatValue(name string) float32 { return float32(int64(fieldValue(name)%20001)-10000) / 8 }
func byteValue(name string) uint8    { return uint8(fieldValue(name)) }
func boolValue(name string) bool     { return fieldValue(name)%2 == 1 }

// encodeValues encodes message name of defs with every field the bridge
// reads set to its fieldValue (frames, the arming state and the timestamps
// to values the fields can hold); it reports whether the release has
// heading_var and tilt_var.
func encodeValues(tb testing.TB, defs *px4.Definitions, name string) (data []byte, headingTiltVar bool) {
	tb.Helper()
	p, err := defs.Plan(name)
	if err != nil {
		tb.Fatal(err)
	}
	_, errH := p.Field("heading_var")
	_, errT := p.Field("tilt_var")
	data = encode(tb, defs, name, func(w *dynamic.Writer) error {
		for _, f := range []string{"position[0]", "position[1]", "position[2]", "q[0]", "q[1]", "q[2]", "q[3]",
			"velocity[0]", "velocity[1]", "velocity[2]", "angular_velocity[0]", "angular_velocity[1]", "angular_velocity[2]",
			"position_variance[0]", "position_variance[1]", "position_variance[2]",
			"orientation_variance[0]", "orientation_variance[1]", "orientation_variance[2]",
			"velocity_variance[0]", "velocity_variance[1]", "velocity_variance[2]",
			"x", "y", "z", "vx", "vy", "vz", "heading", "eph", "epv", "evh", "evv", "heading_var", "tilt_var",
			"voltage_v", "remaining"} {
			_ = w.SetFloat(f, float64(floatValue(f)))
		}
		for _, f := range []string{"pose_frame", "velocity_frame", "reset_counter", "arming_state", "nav_state", "warning"} {
			_ = w.SetUint(f, uint64(byteValue(f)))
		}
		_ = w.SetInt("quality", int64(int8(fieldValue("quality"))))
		for _, f := range []string{"timestamp", "timestamp_sample"} {
			_ = w.SetUint(f, fieldValue(f))
		}
		for _, f := range []string{"xy_valid", "z_valid", "v_xy_valid", "v_z_valid", "connected"} {
			_ = w.SetBool(f, boolValue(f))
		}
		return nil
	})
	return data, errH == nil && errT == nil
}

func vec3Values(name string) [3]float32 {
	return [3]float32{floatValue(name + "[0]"), floatValue(name + "[1]"), floatValue(name + "[2]")}
}

// TestReadEveryRelease: the readers the node and the ULog path use give
// every field they map, by name, from the px4_msgs layout of every
// supported release.
func TestReadEveryRelease(t *testing.T) {
	q := [4]float32{floatValue("q[0]"), floatValue("q[1]"), floatValue("q[2]"), floatValue("q[3]")}
	ts, sample := fieldValue("timestamp"), fieldValue("timestamp_sample")
	for _, rel := range px4.Releases() {
		defs := px4Defs(t, rel)
		read := func(name string) (px4.Fields, bool) {
			data, htv := encodeValues(t, defs, name)
			var m dynamic.Message
			if err := defs.DecodeInto(name, &m, data); err != nil {
				t.Fatalf("%s %s: %v", rel, name, err)
			}
			return px4.FieldsOf(&m), htv
		}

		f, _ := read(px4.MsgVehicleOdometry)
		o, err := ReadOdometry(f)
		want := mapping.PX4Odometry{Timestamp: ts, TimestampSample: sample, PoseFrame: byteValue("pose_frame"),
			Position: vec3Values("position"), Q: q, VelocityFrame: byteValue("velocity_frame"), Velocity: vec3Values("velocity"),
			AngularVelocity: vec3Values("angular_velocity"), PositionVariance: vec3Values("position_variance"),
			OrientationVariance: vec3Values("orientation_variance"), VelocityVariance: vec3Values("velocity_variance"),
			ResetCounter: byteValue("reset_counter"), Quality: int8(fieldValue("quality"))}
		if err != nil || o != want {
			t.Errorf("%s odometry:\n got %+v, %v\nwant %+v", rel, o, err, want)
		}

		f, htv := read(px4.MsgVehicleLocalPosition)
		lp, err := ReadLocalPosition(f)
		wantLP := mapping.PX4LocalPosition{Timestamp: ts, TimestampSample: sample,
			XYValid: boolValue("xy_valid"), ZValid: boolValue("z_valid"), VXYValid: boolValue("v_xy_valid"), VZValid: boolValue("v_z_valid"),
			X: floatValue("x"), Y: floatValue("y"), Z: floatValue("z"), VX: floatValue("vx"), VY: floatValue("vy"), VZ: floatValue("vz"),
			Heading: floatValue("heading"), EPH: floatValue("eph"), EPV: floatValue("epv"), EVH: floatValue("evh"), EVV: floatValue("evv")}
		if htv {
			wantLP.HasHeadingTiltVar, wantLP.HeadingVar, wantLP.TiltVar = true, floatValue("heading_var"), floatValue("tilt_var")
		}
		if err != nil || lp != wantLP || htv != (rel != px4.Release114) {
			t.Errorf("%s local position (heading and tilt variances %v):\n got %+v, %v\nwant %+v", rel, htv, lp, err, wantLP)
		}

		f, _ = read(px4.MsgVehicleAttitude)
		if a, err := ReadAttitude(f); err != nil || a != (mapping.PX4Attitude{Timestamp: ts, TimestampSample: sample, Q: q}) {
			t.Errorf("%s attitude: %+v, %v", rel, a, err)
		}

		f, _ = read(px4.MsgVehicleStatus)
		s, err := ReadStatus(f)
		wantS := mapping.PX4Status{Timestamp: ts, ArmingState: byteValue("arming_state"), NavState: byteValue("nav_state"),
			Armed: byteValue("arming_state") == px4.ArmedState(rel)}
		if err != nil || s != wantS {
			t.Errorf("%s status: %+v, %v; want %+v", rel, s, err, wantS)
		}

		f, _ = read(px4.MsgBatteryStatus)
		b, err := ReadBattery(f)
		wantB := mapping.PX4Battery{Timestamp: ts, Connected: boolValue("connected"), VoltageV: floatValue("voltage_v"),
			Remaining: floatValue("remaining"), Warning: byteValue("warning")}
		if err != nil || b != wantB {
			t.Errorf("%s battery: %+v, %v; want %+v", rel, b, err, wantB)
		}
	}
}

// fieldMap is px4.Fields over a map, as a ULog data message of an older
// release gives them.
type fieldMap map[string]float64

func (m fieldMap) Float(name string) (float64, bool) { v, ok := m[name]; return v, ok }
func (m fieldMap) Uint(name string) (uint64, bool) {
	v, ok := m[name]
	return uint64(v), ok && v >= 0 && v == float64(uint64(v))
}
func (m fieldMap) Int(name string) (int64, bool) {
	v, ok := m[name]
	return int64(v), ok && v == float64(int64(v))
}
func (m fieldMap) Bool(name string) (bool, bool) {
	v, ok := m[name]
	return v != 0, ok && (v == 0 || v == 1)
}

// The optional fields default (an older log lacks timestamp_sample, and
// releases before 1.15 the heading and tilt variances); a field the
// mapping needs and the message lacks, or holds out of range, is an error
// naming it.
func TestReadOptionalAndMissingFields(t *testing.T) {
	att := fieldMap{"timestamp": 7, "q[0]": 1, "q[1]": 0, "q[2]": 0, "q[3]": 0}
	if a, err := ReadAttitude(att); err != nil || a.TimestampSample != 0 || a.Timestamp != 7 || a.Q != [4]float32{1, 0, 0, 0} {
		t.Errorf("attitude without timestamp_sample: %+v, %v", a, err)
	}
	lp := fieldMap{"timestamp": 7, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1, "x": 1, "y": 2, "z": 3,
		"vx": 0, "vy": 0, "vz": 0, "heading": 0, "eph": 1, "epv": 1, "evh": 1, "evv": 1, "heading_var": 0.1}
	if p, err := ReadLocalPosition(lp); err != nil || p.HasHeadingTiltVar {
		t.Errorf("heading_var without tilt_var: %+v, %v (want both ignored)", p, err)
	}
	for _, tt := range []struct {
		name  string
		f     fieldMap
		read  func(px4.Fields) error
		field string
	}{
		{"missing q[2]", fieldMap{"timestamp": 7, "q[0]": 1, "q[1]": 0, "q[3]": 0},
			func(f px4.Fields) error { _, err := ReadAttitude(f); return err }, "q[2]"},
		{"arming_state out of range", fieldMap{"timestamp": 7, "arming_state": 300, "nav_state": 1},
			func(f px4.Fields) error { _, err := ReadStatus(f); return err }, "arming_state"},
		{"missing nav_state", fieldMap{"timestamp": 7, "arming_state": 2},
			func(f px4.Fields) error { _, err := ReadStatus(f); return err }, "nav_state"},
		{"warning out of range", fieldMap{"timestamp": 7, "connected": 1, "voltage_v": 15, "remaining": 0.5, "warning": -1},
			func(f px4.Fields) error { _, err := ReadBattery(f); return err }, "warning"},
	} {
		err := tt.read(tt.f)
		var fe *px4.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, px4.ErrField) {
			t.Errorf("%s: %v, want a px4.FieldError naming %s", tt.name, err, tt.field)
		}
	}
}

// BenchmarkPX4HandleLocalPosition is the PX4 input's hot path: a 1.16
// VehicleLocalPosition, the highest-rate input, decoded by name, read and
// mapped to a belief and its assessment.
func BenchmarkPX4HandleLocalPosition(b *testing.B) {
	defs := px4Defs(b, px4.Release116)
	src, err := NewPX4(newBridge(b), PX4Options{Definitions: defs, Position: PositionLocalPosition})
	if err != nil {
		b.Fatal(err)
	}
	topic := map[string]string{}
	for _, s := range src.Subscriptions() {
		topic[s.Type] = s.Topic
	}
	if _, err := src.Handle(topic["px4_msgs/msg/VehicleAttitude"], px4Sample(b, defs, px4.MsgVehicleAttitude), 0); err != nil {
		b.Fatal(err)
	}
	p, err := defs.Plan(px4.MsgVehicleLocalPosition)
	if err != nil {
		b.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"xy_valid", "z_valid", "v_xy_valid", "v_z_valid"} {
		if err := w.SetBool(f, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	stamp := uint64(10)
	for b.Loop() {
		stamp++
		if err := w.SetUint("timestamp", stamp); err != nil {
			b.Fatal(err)
		}
		if err := w.SetUint("timestamp_sample", stamp); err != nil {
			b.Fatal(err)
		}
		if out, err := src.Handle(topic["px4_msgs/msg/VehicleLocalPosition"], w.Bytes(), 0); err != nil || len(out) != 2 {
			b.Fatal(len(out), err)
		}
	}
}
