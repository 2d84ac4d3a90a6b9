package px4

import (
	"errors"
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
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
	Result          decisions.AckResult
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
	a.Result, a.ResultParam1 = decisions.AckResult(g.u8("result")), g.u8("result_param1")
	a.ResultParam2 = int32(g.i64("result_param2", math.MinInt32, math.MaxInt32, "an int32"))
	a.TargetSystem, a.TargetComponent = g.u8("target_system"), g.u16("target_component")
	a.FromExternal = g.b("from_external")
	return a, g.err
}
