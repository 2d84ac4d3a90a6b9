package px4

import (
	"errors"
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/ros2msg/dynamic"
)

// Fields reads a message's fields by name, as both a decoded CDR payload
// (FieldsOf) and a ULog data message can. Array elements are named
// "q[0]". Each method reports false when the field is missing or does not
// hold that kind of value.
type Fields interface {
	Float(name string) (float64, bool)
	Uint(name string) (uint64, bool)
	Int(name string) (int64, bool)
	Bool(name string) (bool, bool)
}

// FieldsOf adapts a decoded message to Fields without allocating.
func FieldsOf(m *dynamic.Message) Fields { return messageFields{m} }

type messageFields struct{ m *dynamic.Message }

func (f messageFields) Float(name string) (float64, bool) {
	v, err := f.m.Float64(name)
	return v, err == nil
}

func (f messageFields) Uint(name string) (uint64, bool) {
	v, err := f.m.Uint(name)
	return v, err == nil
}

func (f messageFields) Int(name string) (int64, bool) {
	v, err := f.m.Int(name)
	return v, err == nil
}

func (f messageFields) Bool(name string) (bool, bool) {
	v, err := f.m.Bool(name)
	return v, err == nil
}

// ErrField is wrapped by *FieldError.
var ErrField = errors.New("missing or mistyped field")

// FieldError reports a field an extraction needs that the message lacks,
// or holds as another kind or out of range.
type FieldError struct {
	// Message is the px4_msgs message name.
	Message string
	// Field is the field name.
	Field string
	// Want says what was expected ("a number", "a uint8").
	Want string
}

// Error implements error.
func (e *FieldError) Error() string {
	return fmt.Sprintf("px4: %s field %s: %v (want %s)", e.Message, e.Field, ErrField, e.Want)
}

// Unwrap returns ErrField.
func (e *FieldError) Unwrap() error { return ErrField }

// getter reads fields with a sticky error, so an extraction reads like a
// field list and reports the first problem.
type getter struct {
	f   Fields
	msg string
	err error
}

func (g *getter) fail(name, want string) {
	if g.err == nil {
		g.err = &FieldError{Message: g.msg, Field: name, Want: want}
	}
}

func (g *getter) f64(name string) float64 {
	v, ok := g.f.Float(name)
	if !ok {
		g.fail(name, "a number")
	}
	return v
}

func (g *getter) f32(name string) float32 { return float32(g.f64(name)) }

// optF32 reads a field that not every release has; NaN when missing.
func (g *getter) optF32(name string) float32 {
	if v, ok := g.f.Float(name); ok {
		return float32(v)
	}
	return float32(math.NaN())
}

func (g *getter) uint(name string, max uint64, want string) uint64 {
	v, ok := g.f.Uint(name)
	if !ok || v > max {
		g.fail(name, want)
		return 0
	}
	return v
}

func (g *getter) u64(name string) uint64 { return g.uint(name, math.MaxUint64, "a uint64") }
func (g *getter) u32(name string) uint32 { return uint32(g.uint(name, math.MaxUint32, "a uint32")) }
func (g *getter) u16(name string) uint16 { return uint16(g.uint(name, math.MaxUint16, "a uint16")) }
func (g *getter) u8(name string) uint8   { return uint8(g.uint(name, math.MaxUint8, "a uint8")) }

func (g *getter) i64(name string, lo, hi int64, want string) int64 {
	v, ok := g.f.Int(name)
	if !ok || v < lo || v > hi {
		g.fail(name, want)
		return 0
	}
	return v
}

func (g *getter) b(name string) bool {
	v, ok := g.f.Bool(name)
	if !ok {
		g.fail(name, "a bool")
	}
	return v
}

func (g *getter) vec3(dst *[3]float32, name0, name1, name2 string) {
	dst[0], dst[1], dst[2] = g.f32(name0), g.f32(name1), g.f32(name2)
}

// Odometry is VehicleOdometry: position and velocity in the frames the
// frame fields name (NED or FRD), q the rotation from body FRD to the
// pose frame (w, x, y, z; q[0] NaN when invalid), variances per axis.
type Odometry struct {
	TimestampUs, TimestampSampleUs uint64
	PoseFrame, VelocityFrame       uint8
	Position                       [3]float32
	Q                              [4]float32
	Velocity, AngularVelocity      [3]float32
	PositionVariance               [3]float32
	OrientationVariance            [3]float32
	VelocityVariance               [3]float32
	ResetCounter                   uint8
	Quality                        int8
}

// ExtractOdometry reads a VehicleOdometry.
func ExtractOdometry(f Fields) (Odometry, error) {
	g := getter{f: f, msg: MsgVehicleOdometry}
	var o Odometry
	o.TimestampUs = g.u64("timestamp")
	o.TimestampSampleUs = g.u64("timestamp_sample")
	o.PoseFrame = g.u8("pose_frame")
	g.vec3(&o.Position, "position[0]", "position[1]", "position[2]")
	o.Q = [4]float32{g.f32("q[0]"), g.f32("q[1]"), g.f32("q[2]"), g.f32("q[3]")}
	o.VelocityFrame = g.u8("velocity_frame")
	g.vec3(&o.Velocity, "velocity[0]", "velocity[1]", "velocity[2]")
	g.vec3(&o.AngularVelocity, "angular_velocity[0]", "angular_velocity[1]", "angular_velocity[2]")
	g.vec3(&o.PositionVariance, "position_variance[0]", "position_variance[1]", "position_variance[2]")
	g.vec3(&o.OrientationVariance, "orientation_variance[0]", "orientation_variance[1]", "orientation_variance[2]")
	g.vec3(&o.VelocityVariance, "velocity_variance[0]", "velocity_variance[1]", "velocity_variance[2]")
	o.ResetCounter = g.u8("reset_counter")
	o.Quality = int8(g.i64("quality", math.MinInt8, math.MaxInt8, "an int8"))
	return o, g.err
}

// LocalPosition is VehicleLocalPosition: NED position, velocity and
// acceleration relative to the EKF origin, their validity, the origin,
// and 1-sigma accuracies (eph/epv in m, evh/evv in m/s).
type LocalPosition struct {
	TimestampUs, TimestampSampleUs     uint64
	XYValid, ZValid, VXYValid, VZValid bool
	X, Y, Z                            float32
	VX, VY, VZ, ZDeriv                 float32
	AX, AY, AZ                         float32
	Heading                            float32
	// HeadingVar is NaN before 1.15, which lacks it.
	HeadingVar             float32
	HeadingGoodForControl  bool
	XYResetCounter         uint8
	ZResetCounter          uint8
	VXYResetCounter        uint8
	VZResetCounter         uint8
	HeadingResetCounter    uint8
	XYGlobal, ZGlobal      bool
	RefTimestampUs         uint64
	RefLat, RefLon         float64
	RefAlt                 float32
	DistBottom             float32
	DistBottomValid        bool
	Eph, Epv, Evh, Evv     float32
	DeadReckoning          bool
	VXYMax, VZMax, HaglMin float32
}

// ExtractLocalPosition reads a VehicleLocalPosition of any supported
// release.
func ExtractLocalPosition(f Fields) (LocalPosition, error) {
	g := getter{f: f, msg: MsgVehicleLocalPosition}
	var p LocalPosition
	p.TimestampUs = g.u64("timestamp")
	p.TimestampSampleUs = g.u64("timestamp_sample")
	p.XYValid, p.ZValid = g.b("xy_valid"), g.b("z_valid")
	p.VXYValid, p.VZValid = g.b("v_xy_valid"), g.b("v_z_valid")
	p.X, p.Y, p.Z = g.f32("x"), g.f32("y"), g.f32("z")
	p.VX, p.VY, p.VZ, p.ZDeriv = g.f32("vx"), g.f32("vy"), g.f32("vz"), g.f32("z_deriv")
	p.AX, p.AY, p.AZ = g.f32("ax"), g.f32("ay"), g.f32("az")
	p.Heading = g.f32("heading")
	p.HeadingVar = g.optF32("heading_var")
	p.HeadingGoodForControl = g.b("heading_good_for_control")
	p.XYResetCounter, p.ZResetCounter = g.u8("xy_reset_counter"), g.u8("z_reset_counter")
	p.VXYResetCounter, p.VZResetCounter = g.u8("vxy_reset_counter"), g.u8("vz_reset_counter")
	p.HeadingResetCounter = g.u8("heading_reset_counter")
	p.XYGlobal, p.ZGlobal = g.b("xy_global"), g.b("z_global")
	p.RefTimestampUs = g.u64("ref_timestamp")
	p.RefLat, p.RefLon = g.f64("ref_lat"), g.f64("ref_lon")
	p.RefAlt = g.f32("ref_alt")
	p.DistBottom, p.DistBottomValid = g.f32("dist_bottom"), g.b("dist_bottom_valid")
	p.Eph, p.Epv, p.Evh, p.Evv = g.f32("eph"), g.f32("epv"), g.f32("evh"), g.f32("evv")
	p.DeadReckoning = g.b("dead_reckoning")
	p.VXYMax, p.VZMax, p.HaglMin = g.f32("vxy_max"), g.f32("vz_max"), g.f32("hagl_min")
	return p, g.err
}

// Attitude is VehicleAttitude: q rotates body FRD into NED (w, x, y, z).
type Attitude struct {
	TimestampUs, TimestampSampleUs uint64
	Q                              [4]float32
	QuatResetCounter               uint8
}

// ExtractAttitude reads a VehicleAttitude.
func ExtractAttitude(f Fields) (Attitude, error) {
	g := getter{f: f, msg: MsgVehicleAttitude}
	var a Attitude
	a.TimestampUs = g.u64("timestamp")
	a.TimestampSampleUs = g.u64("timestamp_sample")
	a.Q = [4]float32{g.f32("q[0]"), g.f32("q[1]"), g.f32("q[2]"), g.f32("q[3]")}
	a.QuatResetCounter = g.u8("quat_reset_counter")
	return a, g.err
}

// Status is VehicleStatus, reduced to what the mapping needs.
type Status struct {
	TimestampUs           uint64
	ArmingState           uint8
	NavState              uint8
	NavStateUserIntention uint8
	NavStateTimestampUs   uint64
	// Armed is ArmingState == ArmedState(release).
	Armed                   bool
	Failsafe                bool
	FailsafeAndUserTookOver bool
	GCSConnectionLost       bool
	PreFlightChecksPass     bool
	SystemID, ComponentID   uint8
	VehicleType             uint8
	FailureDetectorStatus   uint16
}

// ExtractStatus reads a VehicleStatus of release rel.
func ExtractStatus(f Fields, rel Release) (Status, error) {
	if !rel.Valid() {
		return Status{}, fmt.Errorf("px4: extract %s: %w %q", MsgVehicleStatus, ErrUnknownRelease, rel)
	}
	g := getter{f: f, msg: MsgVehicleStatus}
	var s Status
	s.TimestampUs = g.u64("timestamp")
	s.ArmingState = g.u8("arming_state")
	s.NavState = g.u8("nav_state")
	s.NavStateUserIntention = g.u8("nav_state_user_intention")
	s.NavStateTimestampUs = g.u64("nav_state_timestamp")
	s.Armed = s.ArmingState == ArmedState(rel)
	s.Failsafe = g.b("failsafe")
	s.FailsafeAndUserTookOver = g.b("failsafe_and_user_took_over")
	s.GCSConnectionLost = g.b("gcs_connection_lost")
	s.PreFlightChecksPass = g.b("pre_flight_checks_pass")
	s.SystemID, s.ComponentID = g.u8("system_id"), g.u8("component_id")
	s.VehicleType = g.u8("vehicle_type")
	s.FailureDetectorStatus = g.u16("failure_detector_status")
	return s, g.err
}

// Battery is BatteryStatus: Remaining is the state of charge from 1 to 0
// (-1 unknown), Warning one of the BatteryWarning constants.
type Battery struct {
	TimestampUs    uint64
	Connected      bool
	VoltageV       float32
	CurrentA       float32
	DischargedMah  float32
	Remaining      float32
	TimeRemainingS float32
	Temperature    float32
	CellCount      uint8
	ID             uint8
	Warning        uint8
	Faults         uint16
}

// ExtractBattery reads a BatteryStatus.
func ExtractBattery(f Fields) (Battery, error) {
	g := getter{f: f, msg: MsgBatteryStatus}
	var b Battery
	b.TimestampUs = g.u64("timestamp")
	b.Connected = g.b("connected")
	b.VoltageV, b.CurrentA = g.f32("voltage_v"), g.f32("current_a")
	b.DischargedMah, b.Remaining = g.f32("discharged_mah"), g.f32("remaining")
	b.TimeRemainingS, b.Temperature = g.f32("time_remaining_s"), g.f32("temperature")
	b.CellCount, b.ID = g.u8("cell_count"), g.u8("id")
	b.Warning = g.u8("warning")
	b.Faults = g.u16("faults")
	return b, g.err
}

// Command is VehicleCommand. SourceComponent is a uint8 on the wire in
// 1.14 and a uint16 from 1.15.
type Command struct {
	TimestampUs                    uint64
	Command                        uint32
	Param1, Param2, Param3, Param4 float32
	Param5, Param6                 float64
	Param7                         float32
	TargetSystem, TargetComponent  uint8
	SourceSystem                   uint8
	SourceComponent                uint16
	Confirmation                   uint8
	FromExternal                   bool
}

// ExtractCommand reads a VehicleCommand.
func ExtractCommand(f Fields) (Command, error) {
	g := getter{f: f, msg: MsgVehicleCommand}
	var c Command
	c.TimestampUs = g.u64("timestamp")
	c.Param1, c.Param2, c.Param3, c.Param4 = g.f32("param1"), g.f32("param2"), g.f32("param3"), g.f32("param4")
	c.Param5, c.Param6, c.Param7 = g.f64("param5"), g.f64("param6"), g.f32("param7")
	c.Command = g.u32("command")
	c.TargetSystem, c.TargetComponent = g.u8("target_system"), g.u8("target_component")
	c.SourceSystem, c.SourceComponent = g.u8("source_system"), g.u16("source_component")
	c.Confirmation = g.u8("confirmation")
	c.FromExternal = g.b("from_external")
	return c, g.err
}

// CommandAck is VehicleCommandAck. TargetComponent is a uint8 on the wire
// in 1.14 and a uint16 from 1.15.
type CommandAck struct {
	TimestampUs     uint64
	Command         uint32
	Result          uint8
	ResultParam1    uint8
	ResultParam2    int32
	TargetSystem    uint8
	TargetComponent uint16
	FromExternal    bool
}

// ExtractCommandAck reads a VehicleCommandAck.
func ExtractCommandAck(f Fields) (CommandAck, error) {
	g := getter{f: f, msg: MsgVehicleCommandAck}
	var a CommandAck
	a.TimestampUs = g.u64("timestamp")
	a.Command = g.u32("command")
	a.Result, a.ResultParam1 = g.u8("result"), g.u8("result_param1")
	a.ResultParam2 = int32(g.i64("result_param2", math.MinInt32, math.MaxInt32, "an int32"))
	a.TargetSystem, a.TargetComponent = g.u8("target_system"), g.u16("target_component")
	a.FromExternal = g.b("from_external")
	return a, g.err
}
