package dynamic

import (
	"bytes"
	"errors"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/msg"
)

// The fixture types whose definitions are in testdata/msgs.
const (
	odomType    = "nav_msgs/Odometry"
	batteryType = "sensor_msgs/BatteryState"
)

func covariance(base float64) []any {
	out := make([]any, 36)
	for i := range out {
		out[i] = base + float64(i)*0.25
	}
	return out
}

func odometryValue() map[string]any {
	return map[string]any{
		"header": map[string]any{
			"stamp":    map[string]any{"sec": int64(-5), "nanosec": int64(999999999)},
			"frame_id": "odom",
		},
		"child_frame_id": "base_link",
		"pose": map[string]any{
			"pose": map[string]any{
				"position":    map[string]any{"x": 1.5, "y": -2.25, "z": 100.125},
				"orientation": map[string]any{"x": 0.0, "y": 0.0, "z": 0.7071067811865476, "w": 0.7071067811865476},
			},
			"covariance": covariance(1),
		},
		"twist": map[string]any{
			"twist": map[string]any{
				"linear":  map[string]any{"x": 3.0, "y": math.Inf(-1), "z": math.Copysign(0, -1)},
				"angular": map[string]any{"x": 0.1, "y": 0.2, "z": 0.3},
			},
			"covariance": covariance(-10),
		},
	}
}

func TestOdometry(t *testing.T) {
	text, defs := loadSchema(t, "nav_msgs/msg/Odometry", odomType)
	p, err := CompileSchema("nav_msgs/msg/Odometry", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, fixed := p.FixedSize(); fixed {
		t.Fatal("Odometry has strings, so it is not fixed-size")
	}
	data := encode(t, defs, "nav_msgs/msg/Odometry", odometryValue())
	m, err := p.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	floats := []struct {
		path string
		want float64
	}{
		{"pose.pose.position.x", 1.5},
		{"pose.pose.position.y", -2.25},
		{"pose.pose.position.z", 100.125},
		{"pose.pose.orientation.z", 0.7071067811865476},
		{"pose.pose.orientation.w", 0.7071067811865476},
		{"twist.twist.linear.x", 3},
		{"twist.twist.linear.y", math.Inf(-1)},
		{"twist.twist.angular.z", 0.3},
		{"pose.covariance[0]", 1},
		{"pose.covariance[35]", 1 + 35*0.25},
		{"twist.covariance[7]", -10 + 7*0.25},
		{"header.stamp.sec", -5},
		{"header.stamp.nanosec", 999999999},
	}
	for _, f := range floats {
		got, err := m.Float64(f.path)
		if err != nil || got != f.want {
			t.Errorf("%s = %v, %v; want %v", f.path, got, err, f.want)
		}
	}
	if z, _ := m.Float64("twist.twist.linear.z"); !math.Signbit(z) {
		t.Error("negative zero lost its sign")
	}
	if s, err := m.String("header.frame_id"); err != nil || s != "odom" {
		t.Errorf("frame_id = %q, %v", s, err)
	}
	if s, err := m.String("child_frame_id"); err != nil || s != "base_link" {
		t.Errorf("child_frame_id = %q, %v", s, err)
	}
	if v, err := m.Int("header.stamp.sec"); err != nil || v != -5 {
		t.Errorf("sec = %d, %v", v, err)
	}
	if _, err := m.Uint("header.stamp.sec"); !errors.Is(err, ErrKind) {
		t.Errorf("negative int read as uint: %v", err)
	}
	for _, block := range []struct {
		path string
		base float64
	}{{"pose.covariance", 1}, {"twist.covariance", -10}} {
		cov, err := m.Float64s(block.path)
		if err != nil || len(cov) != 36 {
			t.Fatalf("%s: %d values, %v", block.path, len(cov), err)
		}
		for i, v := range cov {
			if v != block.base+float64(i)*0.25 {
				t.Errorf("%s[%d] = %v", block.path, i, v)
			}
		}
	}
	// A FieldRef resolved once reads every message of the plan.
	ref, err := p.Field("pose.pose.position.z")
	if err != nil {
		t.Fatal(err)
	}
	v := odometryValue()
	v["header"].(map[string]any)["frame_id"] = "a much longer frame name that shifts every offset"
	v["pose"].(map[string]any)["pose"].(map[string]any)["position"].(map[string]any)["z"] = -7.5
	m2, err := p.Decode(encode(t, defs, "nav_msgs/msg/Odometry", v))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    Message
		want float64
	}{{m, 100.125}, {m2, -7.5}} {
		if got, err := c.m.FloatAt(ref); err != nil || got != c.want {
			t.Errorf("FloatAt = %v, %v; want %v", got, err, c.want)
		}
	}
}

func TestBatteryState(t *testing.T) {
	text, defs := loadSchema(t, "sensor_msgs/BatteryState", batteryType)
	p, err := CompileSchema("sensor_msgs/BatteryState", text)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{
		"header":                  map[string]any{"stamp": map[string]any{"sec": 12, "nanosec": 5}, "frame_id": ""},
		"voltage":                 float32(15.2),
		"temperature":             float32(math.NaN()),
		"current":                 float32(-3.5),
		"percentage":              float32(0.42),
		"power_supply_status":     2,
		"power_supply_technology": 3,
		"present":                 true,
		"cell_voltage":            []any{float32(3.8), float32(3.81), float32(3.79), float32(3.8)},
		"location":                "slot α",
		"serial_number":           "SN-1",
	}
	m, err := p.Decode(encode(t, defs, "sensor_msgs/msg/BatteryState", v))
	if err != nil {
		t.Fatal(err)
	}
	check := func(path string, want float64) {
		t.Helper()
		got, err := m.Float64(path)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	check("voltage", float64(float32(15.2)))
	check("current", -3.5)
	check("percentage", float64(float32(0.42)))
	check("power_supply_status", 2)
	check("cell_voltage[2]", float64(float32(3.79)))
	if tv, _ := m.Float64("temperature"); !math.IsNaN(tv) {
		t.Errorf("temperature = %v, want NaN", tv)
	}
	if b, err := m.Bool("present"); err != nil || !b {
		t.Errorf("present = %v, %v", b, err)
	}
	if n, err := m.Len("cell_voltage"); err != nil || n != 4 {
		t.Errorf("len(cell_voltage) = %d, %v", n, err)
	}
	if n, err := m.Len("cell_temperature"); err != nil || n != 0 {
		t.Errorf("len(cell_temperature) = %d, %v", n, err)
	}
	if _, err := m.Float64("cell_voltage[4]"); !errors.Is(err, ErrIndex) {
		t.Errorf("cell_voltage[4]: %v, want ErrIndex", err)
	}
	if s, _ := m.String("location"); s != "slot α" {
		t.Errorf("location = %q", s)
	}
	if s, _ := m.String("serial_number"); s != "SN-1" {
		t.Errorf("serial_number = %q", s)
	}
	if s, err := m.String("header.frame_id"); err != nil || s != "" {
		t.Errorf("frame_id = %q, %v", s, err)
	}
}

// nestedSchema has sequences of messages holding sequences and strings, so
// element access has to walk.
const nestedSchema = `Item[] items
string[] tags
string[2] pair
uint8 tail
================================================================================
MSG: test_msgs/Item
string key
float64[] vals
bool on
`

func nestedValue() map[string]any {
	return map[string]any{
		"items": []any{
			map[string]any{"key": "a", "vals": []any{1.0}, "on": true},
			map[string]any{"key": "bb", "vals": []any{2.0, 3.0, 4.0}, "on": false},
			map[string]any{"key": "", "vals": []any{}, "on": true},
		},
		"tags": []any{"x", "yy"},
		"pair": []any{"left", "right"},
		"tail": 200,
	}
}

func TestNestedSequences(t *testing.T) {
	p, err := CompileSchema("test_msgs/Nested", nestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := msg.ParseSchemaText("test_msgs/Nested", nestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []bool{false, true} {
		e := newTestEncoder(defs)
		if be {
			e.be, e.buf[1] = true, 0
		}
		if err := e.message("test_msgs/msg/Nested", nestedValue()); err != nil {
			t.Fatal(err)
		}
		m, err := p.Decode(e.buf)
		if err != nil {
			t.Fatalf("big-endian %v: %v", be, err)
		}
		if v, err := m.Float64("items[1].vals[2]"); err != nil || v != 4 {
			t.Errorf("items[1].vals[2] = %v, %v", v, err)
		}
		if s, err := m.String("items[1].key"); err != nil || s != "bb" {
			t.Errorf("items[1].key = %q, %v", s, err)
		}
		if b, err := m.Bool("items[2].on"); err != nil || !b {
			t.Errorf("items[2].on = %v, %v", b, err)
		}
		if n, err := m.Len("items[2].vals"); err != nil || n != 0 {
			t.Errorf("len(items[2].vals) = %d, %v", n, err)
		}
		if n, err := m.Len("items"); err != nil || n != 3 {
			t.Errorf("len(items) = %d, %v", n, err)
		}
		if s, err := m.String("tags[1]"); err != nil || s != "yy" {
			t.Errorf("tags[1] = %q, %v", s, err)
		}
		if s, err := m.String("pair[1]"); err != nil || s != "right" {
			t.Errorf("pair[1] = %q, %v", s, err)
		}
		if v, err := m.Uint("tail"); err != nil || v != 200 {
			t.Errorf("tail = %d, %v", v, err)
		}
		if _, err := m.Float64("items[3].vals[0]"); !errors.Is(err, ErrIndex) {
			t.Errorf("items[3]: %v, want ErrIndex", err)
		}
		if _, err := m.Float64("items[1]"); !errors.Is(err, ErrKind) {
			t.Errorf("items[1] as a number: %v, want ErrKind", err)
		}
	}
}

// pointsSchema is fixed-size; its layout is worked out by hand in
// TestFixedLayout.
const pointsSchema = `uint8 a
float64 b
bool c
int16[3] d
Point[2] pts
================================================================================
MSG: test_msgs/Point
float32 x
float64 y
`

func TestFixedLayout(t *testing.T) {
	p, err := CompileSchema("test_msgs/Points", pointsSchema)
	if err != nil {
		t.Fatal(err)
	}
	// a@0, b@8 (aligned), c@16, d@18..24, pts[0].x@24, pts[0].y@32,
	// pts[1].x@40, pts[1].y@48..56.
	size, fixed := p.FixedSize()
	if !fixed || size != 56 {
		t.Fatalf("FixedSize = %d, %v; want 56, true", size, fixed)
	}
	body := make([]byte, 56)
	body[0] = 7
	body[16] = 1
	body[22], body[23] = 0xfe, 0xff           // d[2] = -2
	copy(body[40:], []byte{0, 0, 0xc0, 0x3f}) // pts[1].x = 1.5
	data := append([]byte{0, 1, 0, 0}, body...)
	m, err := p.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Uint("a"); v != 7 {
		t.Errorf("a = %d", v)
	}
	if v, _ := m.Bool("c"); !v {
		t.Error("c = false")
	}
	if v, err := m.Int("d[2]"); err != nil || v != -2 {
		t.Errorf("d[2] = %d, %v", v, err)
	}
	if v, err := m.Float64("pts[1].x"); err != nil || v != 1.5 {
		t.Errorf("pts[1].x = %v, %v", v, err)
	}
	want := []string{"a", "b", "c", "d", "pts[0].x", "pts[0].y", "pts[1].x", "pts[1].y"}
	if got := p.Paths(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Paths = %v", got)
	}
	// Up to three zero padding bytes are accepted; more, or non-zero, not.
	for extra := 1; extra <= 3; extra++ {
		if _, err := p.Decode(append(bytes.Clone(data), make([]byte, extra)...)); err != nil {
			t.Errorf("%d padding bytes: %v", extra, err)
		}
	}
	if _, err := p.Decode(append(bytes.Clone(data), 0, 0, 0, 0)); !errors.Is(err, ErrLengthMismatch) || !errors.Is(err, ErrTrailingBytes) {
		t.Errorf("4 extra bytes: %v", err)
	}
	if _, err := p.Decode(append(bytes.Clone(data), 0, 1)); !errors.Is(err, ErrTrailingBytes) || errors.Is(err, ErrLengthMismatch) {
		t.Errorf("non-zero padding: %v", err)
	}
	_, err = p.Decode(data[:len(data)-9])
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrLengthMismatch) || !errors.Is(err, ErrTruncated) || de.Field != "pts[1].y" || de.Offset != 51 {
		t.Errorf("truncated: %v", err)
	}
	bad := bytes.Clone(data)
	bad[4+16] = 2
	if _, err := p.Decode(bad); !errors.Is(err, ErrInvalidBool) || !strings.Contains(err.Error(), "field c at offset 20") {
		t.Errorf("bool 2: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	text, defs := loadSchema(t, "sensor_msgs/BatteryState", batteryType)
	p, err := CompileSchema("sensor_msgs/BatteryState", text)
	if err != nil {
		t.Fatal(err)
	}
	good := encode(t, defs, "sensor_msgs/msg/BatteryState", map[string]any{
		"header": map[string]any{"frame_id": "f"}, "location": "L", "serial_number": "S",
	})
	// Offsets of the good payload (after the 4-byte header): frame_id length
	// at 8, its bytes at 12..14; floats 16..44; bytes 44..48; cell_voltage
	// count at 48, cell_temperature count at 52, location at 56.
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	seqCount := func(off int, n uint32) func([]byte) []byte {
		return func(b []byte) []byte {
			b[4+off], b[5+off], b[6+off], b[7+off] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
			return b
		}
	}
	cases := []struct {
		name  string
		data  []byte
		want  error
		field string
	}{
		{"empty", nil, ErrEncapsulation, ""},
		{"xcdr2 header", mutate(func(b []byte) []byte { b[1] = 7; return b }), ErrEncapsulation, ""},
		{"bool 3", mutate(func(b []byte) []byte { b[4+47] = 3; return b }), ErrInvalidBool, "present"},
		{"string without NUL", mutate(func(b []byte) []byte { b[4+13] = 'x'; return b }), ErrBadString, "header.frame_id"},
		{"string length 0", mutate(seqCount(8, 0)), ErrBadString, "header.frame_id"},
		{"huge sequence count", mutate(seqCount(48, 0xffffffff)), ErrTruncated, "cell_voltage"},
		{"trailing bytes", append(bytes.Clone(good), 0, 0, 0, 0), ErrTrailingBytes, ""},
		{"non-zero padding", append(bytes.Clone(good), 9), ErrTrailingBytes, ""},
	}
	for _, tc := range cases {
		_, err := p.Decode(tc.data)
		var de *DecodeError
		if !errors.Is(err, tc.want) || !errors.As(err, &de) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			continue
		}
		if de.Field != tc.field || de.Type != "sensor_msgs/msg/BatteryState" {
			t.Errorf("%s: type %q field %q, want field %q", tc.name, de.Type, de.Field, tc.field)
		}
		if !strings.Contains(err.Error(), "sensor_msgs/msg/BatteryState") || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: message %q does not name type and offset", tc.name, err)
		}
	}
}

// Every prefix of a valid payload is rejected as truncated, never a panic.
func TestTruncationEveryOffset(t *testing.T) {
	odomText, odomDefs := loadSchema(t, "nav_msgs/Odometry", odomType)
	batText, batDefs := loadSchema(t, "sensor_msgs/BatteryState", batteryType)
	nestedDefs, err := msg.ParseSchemaText("test_msgs/Nested", nestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, schema string
		data         []byte
	}{
		{"nav_msgs/msg/Odometry", odomText, encode(t, odomDefs, "nav_msgs/msg/Odometry", odometryValue())},
		{"sensor_msgs/msg/BatteryState", batText, encode(t, batDefs, "sensor_msgs/msg/BatteryState", map[string]any{
			"cell_voltage": []any{1.0, 2.0}, "location": "abc", "serial_number": "defgh"})},
		{"test_msgs/msg/Nested", nestedSchema, encode(t, nestedDefs, "test_msgs/msg/Nested", nestedValue())},
		{"test_msgs/msg/Points", pointsSchema, append([]byte{0, 1, 0, 0}, make([]byte, 56)...)},
	}
	for _, tc := range cases {
		p, err := CompileSchema(tc.name, tc.schema)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Decode(tc.data); err != nil {
			t.Fatalf("%s: full payload: %v", tc.name, err)
		}
		for n := range len(tc.data) {
			_, err := p.Decode(tc.data[:n])
			want := ErrTruncated
			if n < headerLen {
				want = ErrEncapsulation
			}
			if !errors.Is(err, want) {
				t.Errorf("%s cut at %d: %v, want %v", tc.name, n, err, want)
			}
		}
	}
}

func TestDecodeIntoReuses(t *testing.T) {
	text, defs := loadSchema(t, "nav_msgs/Odometry", odomType)
	p, err := CompileSchema("nav_msgs/Odometry", text)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, defs, "nav_msgs/msg/Odometry", odometryValue())
	ref, err := p.Field("pose.pose.position.x")
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	allocs := testing.AllocsPerRun(50, func() {
		if err := p.DecodeInto(&m, data); err != nil {
			t.Fatal(err)
		}
		if v, err := m.FloatAt(ref); err != nil || v != 1.5 {
			t.Fatalf("x = %v, %v", v, err)
		}
	})
	if allocs != 0 {
		t.Errorf("DecodeInto + FloatAt: %v allocations, want 0", allocs)
	}
	if err := p.DecodeInto(&m, data[:10]); err == nil {
		t.Fatal("truncated payload accepted")
	}
	if _, err := m.FloatAt(ref); err == nil {
		t.Error("a failed DecodeInto left a readable message")
	}
}

func TestAccessErrors(t *testing.T) {
	text, defs := loadSchema(t, "nav_msgs/Odometry", odomType)
	p, err := CompileSchema("nav_msgs/Odometry", text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Decode(encode(t, defs, "nav_msgs/msg/Odometry", odometryValue()))
	if err != nil {
		t.Fatal(err)
	}
	other, err := CompileSchema("test_msgs/Points", pointsSchema)
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := other.Field("a")
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"unknown", func() error { _, err := m.Float64("pose.nope"); return err }(), ErrUnknownField},
		{"message as number", func() error { _, err := m.Float64("pose.pose"); return err }(), ErrUnknownField},
		{"string as number", func() error { _, err := m.Float64("child_frame_id"); return err }(), ErrKind},
		{"number as string", func() error { _, err := m.String("pose.pose.position.x"); return err }(), ErrKind},
		{"number as bool", func() error { _, err := m.Bool("pose.pose.position.x"); return err }(), ErrKind},
		{"array as scalar", func() error { _, err := m.Float64("pose.covariance"); return err }(), ErrKind},
		{"index past fixed array", func() error { _, err := m.Float64("pose.covariance[36]"); return err }(), ErrIndex},
		{"index on scalar", func() error { _, err := m.Float64("pose.pose.position.x[0]"); return err }(), ErrKind},
		{"bad index", func() error { _, err := m.Float64("pose.covariance[x]"); return err }(), ErrUnknownField},
		{"float as uint", func() error { _, err := m.Uint("pose.pose.position.x"); return err }(), ErrKind},
		{"length of scalar", func() error { _, err := m.Len("pose.pose.position.x"); return err }(), ErrKind},
		{"foreign ref", func() error { _, err := m.FloatAt(foreign); return err }(), ErrUnknownField},
		{"zero ref", func() error { _, err := m.FloatAt(FieldRef{}); return err }(), ErrUnknownField},
		{"empty message", func() error { var e Message; _, err := e.Float64("x"); return err }(), ErrUnknownField},
	}
	for _, tc := range cases {
		var fe *FieldError
		if !errors.Is(tc.err, tc.want) || !errors.As(tc.err, &fe) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	p, err := CompileSchema("test_msgs/Points", pointsSchema)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		w.SetUint("a", 255),
		w.SetFloat("b", -1e300),
		w.SetBool("c", true),
		w.SetInt("d[0]", -32768),
		w.SetInt("d[2]", 32767),
		w.SetFloat("pts[1].x", float64(float32(0.1))),
		w.SetFloat("pts[1].y", math.Inf(1)),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	data := w.Bytes()
	if len(data) != 60 || !bytes.Equal(data[:4], []byte{0, 1, 0, 0}) {
		t.Fatalf("encoded % x", data)
	}
	m, err := p.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Uint("a"); v != 255 {
		t.Errorf("a = %d", v)
	}
	if v, _ := m.Float64("b"); v != -1e300 {
		t.Errorf("b = %v", v)
	}
	if v, _ := m.Int("d[0]"); v != -32768 {
		t.Errorf("d[0] = %d", v)
	}
	if v, _ := m.Int("d[2]"); v != 32767 {
		t.Errorf("d[2] = %d", v)
	}
	if v, _ := m.Float64("pts[1].x"); v != float64(float32(0.1)) {
		t.Errorf("pts[1].x = %v", v)
	}
	if v, _ := m.Float64("pts[1].y"); !math.IsInf(v, 1) {
		t.Errorf("pts[1].y = %v", v)
	}
	for name, err := range map[string]error{
		"uint overflow":    w.SetUint("a", 256),
		"int underflow":    w.SetInt("d[1]", -32769),
		"negative to uint": w.SetInt("a", -1),
		"float32 overflow": w.SetFloat("pts[0].x", 1e39),
		"float to int":     w.SetFloat("a", 1),
		"int to float":     w.SetUint("b", 1),
		"bool to int":      w.SetBool("a", true),
		"whole array":      w.SetInt("d", 1),
	} {
		if !errors.Is(err, ErrKind) {
			t.Errorf("%s: %v, want ErrKind", name, err)
		}
	}
	if err := w.SetUint("nope", 1); !errors.Is(err, ErrUnknownField) {
		t.Errorf("unknown field: %v", err)
	}
	if !bytes.Equal(w.Bytes(), data) {
		t.Error("a rejected write changed the message")
	}
	text, _ := loadSchema(t, "nav_msgs/Odometry", odomType)
	odom, err := CompileSchema("nav_msgs/Odometry", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odom.NewWriter(); !errors.Is(err, ErrPlan) {
		t.Errorf("Writer for a variable-size message: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	spec := func(pkg, name, text string) *msg.Spec {
		t.Helper()
		s, err := msg.Parse(pkg, name, text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := spec("t", "A", "B b\n")
	b := spec("t", "B", "A a\n")
	seqSelf := spec("t", "S", "S[] children\n")
	cases := []struct {
		name string
		root *msg.Spec
		deps []*msg.Spec
	}{
		{"missing dependency", spec("t", "M", "Other x\n"), nil},
		{"cycle", a, []*msg.Spec{b}},
		{"self sequence", seqSelf, nil},
		{"wstring", spec("t", "W", "wstring w\n"), nil},
		{"unrolled too far", spec("t", "Big", "P[70000] ps\n"), []*msg.Spec{spec("t", "P", "uint8 v\n")}},
		{"array too large", spec("t", "Huge", "float64[200000000] v\n"), nil},
		{"nil", nil, nil},
	}
	for _, tc := range cases {
		if _, err := Compile(tc.root, tc.deps...); !errors.Is(err, ErrPlan) {
			t.Errorf("%s: %v, want ErrPlan", tc.name, err)
		}
	}
	if _, err := CompileSchema("t/X", "uint8 a\n===\nMSG: t/Y\nnope nope nope\n"); err == nil {
		t.Error("bad schema text accepted")
	}
	// An empty message takes one byte, as rosidl serializes it.
	p, err := Compile(spec("t", "Empty", "# nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if size, fixed := p.FixedSize(); size != 1 || !fixed {
		t.Errorf("empty message: FixedSize %d, %v", size, fixed)
	}
}

// TestFastRTPSEstimateSlack: rmw_serialize on Fast DDS (Humble) returns as
// many bytes as its size estimate, which aligns each empty sequence of
// 8-byte elements as if it had one. The payloads are the project's own
// encoding of rcl_interfaces' ParameterValue; the slack of each follows
// from the estimate's rules by hand (comments).
func TestFastRTPSEstimateSlack(t *testing.T) {
	const def = "uint8 type\nbool bool_value\nint64 integer_value\nfloat64 double_value\nstring string_value\n" +
		"byte[] byte_array_value\nbool[] bool_array_value\nint64[] integer_array_value\n" +
		"float64[] double_array_value\nstring[] string_array_value\n"
	p, err := CompileSchema("rcl_interfaces/ParameterValue", def)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v ros2msg.ParameterValue) []byte {
		b, err := v.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name  string
		data  []byte
		extra int
		ok    bool
	}{
		// integer_array's count ends at 44, double_array's at 48 (estimate
		// 48 and 56): eight bytes.
		{"empty sequences, the estimate", enc(ros2msg.ParameterValue{}), 8, true},
		{"empty sequences, half the estimate", enc(ros2msg.ParameterValue{}), 4, false},
		{"empty sequences, past the estimate", enc(ros2msg.ParameterValue{}), 12, false},
		// One int64 leaves the estimate in step until double_array: four.
		{"one int64, the estimate", enc(ros2msg.ParameterValue{IntegerArrayValue: []int64{7}}), 4, true},
		{"one int64, twice the estimate", enc(ros2msg.ParameterValue{IntegerArrayValue: []int64{7}}), 8, false},
		// Both non-empty: no slack, only Cyclone's padding.
		{"no empty 8-byte sequence", enc(ros2msg.ParameterValue{IntegerArrayValue: []int64{7}, DoubleArrayValue: []float64{1}}), 4, false},
		{"no empty 8-byte sequence, padding", enc(ros2msg.ParameterValue{IntegerArrayValue: []int64{7}, DoubleArrayValue: []float64{1}}), 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Decode(append(bytes.Clone(tt.data), make([]byte, tt.extra)...))
			if tt.ok && err != nil {
				t.Fatalf("%d zero bytes after the last field: %v", tt.extra, err)
			}
			if !tt.ok && !errors.Is(err, ErrTrailingBytes) {
				t.Fatalf("%d zero bytes after the last field: %v, want ErrTrailingBytes", tt.extra, err)
			}
		})
	}
}
