package bridge

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Position sources of a PX4 vehicle: the px4.position parameter.
const (
	PositionOdometry      = "odometry"       // vehicle_odometry: variances per axis
	PositionLocalPosition = "local_position" // vehicle_local_position (eph/epv/evh/evv) + vehicle_attitude
)

// The fields ghost reads of each PX4 message, by name: the same code reads a
// DDS message decoded by its px4_msgs definition and a ULog message decoded
// by the definition the log carries, whatever the release's field order.
// Only the fields the mapping uses are read, so that an older log lacking
// others still maps. A field the mapping needs and the message lacks, or
// holds out of range, is a *px4.FieldError naming it; the optional ones
// (timestamp_sample, heading_var, tilt_var) default.

type fieldReader struct {
	f   px4.Fields
	msg string
	err error
}

func (r *fieldReader) fail(name, want string) {
	if r.err == nil {
		r.err = &px4.FieldError{Message: r.msg, Field: name, Want: want}
	}
}

func (r *fieldReader) f32(name string) float32 {
	v, ok := r.f.Float(name)
	if !ok {
		r.fail(name, "a number")
	}
	return float32(v)
}

func (r *fieldReader) u64(name string) uint64 {
	v, ok := r.f.Uint(name)
	if !ok {
		r.fail(name, "a uint64")
	}
	return v
}

func (r *fieldReader) optU64(name string) uint64 {
	v, _ := r.f.Uint(name)
	return v
}

func (r *fieldReader) u8(name string) uint8 {
	v, ok := r.f.Uint(name)
	if !ok || v > 255 {
		r.fail(name, "a uint8")
	}
	return uint8(v)
}

func (r *fieldReader) i8(name string) int8 {
	v, ok := r.f.Int(name)
	if !ok || v < -128 || v > 127 {
		r.fail(name, "an int8")
	}
	return int8(v)
}

func (r *fieldReader) b(name string) bool {
	v, ok := r.f.Bool(name)
	if !ok {
		r.fail(name, "a bool")
	}
	return v
}

func (r *fieldReader) vec3(name string) [3]float32 {
	return [3]float32{r.f32(name + "[0]"), r.f32(name + "[1]"), r.f32(name + "[2]")}
}

func (r *fieldReader) q() [4]float32 {
	return [4]float32{r.f32("q[0]"), r.f32("q[1]"), r.f32("q[2]"), r.f32("q[3]")}
}

// ReadOdometry reads a vehicle_odometry message.
func ReadOdometry(f px4.Fields) (mapping.PX4Odometry, error) {
	r := fieldReader{f: f, msg: px4.MsgVehicleOdometry}
	o := mapping.PX4Odometry{
		Timestamp: r.u64("timestamp"), TimestampSample: r.optU64("timestamp_sample"),
		PoseFrame: r.u8("pose_frame"), Position: r.vec3("position"), Q: r.q(),
		VelocityFrame: r.u8("velocity_frame"), Velocity: r.vec3("velocity"),
		AngularVelocity: r.vec3("angular_velocity"), PositionVariance: r.vec3("position_variance"),
		OrientationVariance: r.vec3("orientation_variance"), VelocityVariance: r.vec3("velocity_variance"),
		ResetCounter: r.u8("reset_counter"), Quality: r.i8("quality"),
	}
	return o, r.err
}

// ReadLocalPosition reads a vehicle_local_position message.
func ReadLocalPosition(f px4.Fields) (mapping.PX4LocalPosition, error) {
	r := fieldReader{f: f, msg: px4.MsgVehicleLocalPosition}
	p := mapping.PX4LocalPosition{
		Timestamp: r.u64("timestamp"), TimestampSample: r.optU64("timestamp_sample"),
		XYValid: r.b("xy_valid"), ZValid: r.b("z_valid"), VXYValid: r.b("v_xy_valid"), VZValid: r.b("v_z_valid"),
		X: r.f32("x"), Y: r.f32("y"), Z: r.f32("z"), VX: r.f32("vx"), VY: r.f32("vy"), VZ: r.f32("vz"),
		Heading: r.f32("heading"),
		EPH:     r.f32("eph"), EPV: r.f32("epv"), EVH: r.f32("evh"), EVV: r.f32("evv"),
	}
	hv, okH := f.Float("heading_var")
	tv, okT := f.Float("tilt_var")
	if okH && okT {
		p.HasHeadingTiltVar, p.HeadingVar, p.TiltVar = true, float32(hv), float32(tv)
	}
	return p, r.err
}

// ReadAttitude reads a vehicle_attitude message.
func ReadAttitude(f px4.Fields) (mapping.PX4Attitude, error) {
	r := fieldReader{f: f, msg: px4.MsgVehicleAttitude}
	a := mapping.PX4Attitude{Timestamp: r.u64("timestamp"), TimestampSample: r.optU64("timestamp_sample"), Q: r.q()}
	return a, r.err
}

// ReadStatus reads a vehicle_status message. Every release from PX4 v1.11
// to v1.16 says ARMED with arming_state 2 (px4.ArmedState).
func ReadStatus(f px4.Fields) (mapping.PX4Status, error) {
	r := fieldReader{f: f, msg: px4.MsgVehicleStatus}
	s := mapping.PX4Status{Timestamp: r.u64("timestamp"), ArmingState: r.u8("arming_state"), NavState: r.u8("nav_state")}
	s.Armed = s.ArmingState == px4.ArmedState(px4.Release115)
	return s, r.err
}

// ReadBattery reads a battery_status message.
func ReadBattery(f px4.Fields) (mapping.PX4Battery, error) {
	r := fieldReader{f: f, msg: px4.MsgBatteryStatus}
	b := mapping.PX4Battery{
		Timestamp: r.u64("timestamp"), Connected: r.b("connected"), VoltageV: r.f32("voltage_v"),
		Remaining: r.f32("remaining"), Warning: r.u8("warning"),
	}
	return b, r.err
}

// ReadGps reads a vehicle_gps_position (SensorGps).
func ReadGps(f px4.Fields) (mapping.PX4Gps, error) {
	r := fieldReader{f: f, msg: px4.MsgSensorGps}
	g := mapping.PX4Gps{Timestamp: r.u64("timestamp"), TimestampSample: r.optU64("timestamp_sample"),
		FixType: r.u8("fix_type"), SatellitesUsed: r.u8("satellites_used")}
	return g, r.err
}

// ReadEstimatorFlags reads an estimator_status_flags; cs_gps is
// cs_gnss_pos from PX4 1.16, and cs_inertial_dead_reckoning is optional
// (older logs lack it).
func ReadEstimatorFlags(f px4.Fields) (mapping.PX4EstimatorFlags, error) {
	r := fieldReader{f: f, msg: px4.MsgEstimatorStatusFlags}
	e := mapping.PX4EstimatorFlags{Timestamp: r.u64("timestamp"), CsGpsHgt: r.b("cs_gps_hgt"),
		CsTiltAlign: r.b("cs_tilt_align"), CsYawAlign: r.b("cs_yaw_align"), CsMagFault: r.b("cs_mag_fault")}
	if v, ok := f.Bool("cs_gnss_pos"); ok {
		e.CsGps = v
	} else {
		e.CsGps = r.b("cs_gps")
	}
	e.CsInertialDeadReckoning, e.HasInertialDeadReckoning = f.Bool("cs_inertial_dead_reckoning")
	return e, r.err
}

// Bits of estimator_status.control_mode_flags (its CS_* constants), the
// estimator's flags in logs older than estimator_status_flags.
const (
	csTiltAlign = 0
	csYawAlign  = 1
	csGps       = 2
	csGpsHgt    = 11
	csMagFault  = 18
)

// ReadEstimatorStatus reads the flags of an estimator_status's
// control_mode_flags; it has no dead-reckoning flag.
func ReadEstimatorStatus(f px4.Fields) (mapping.PX4EstimatorFlags, error) {
	r := fieldReader{f: f, msg: "EstimatorStatus"}
	ts, flags := r.u64("timestamp"), r.u64("control_mode_flags")
	bit := func(i uint) bool { return flags>>i&1 == 1 }
	e := mapping.PX4EstimatorFlags{Timestamp: ts, CsGps: bit(csGps), CsGpsHgt: bit(csGpsHgt),
		CsTiltAlign: bit(csTiltAlign), CsYawAlign: bit(csYawAlign), CsMagFault: bit(csMagFault)}
	return e, r.err
}

// ReadEstimatorCovariance reads the quaternion and its variances from an
// estimator_states (or, in logs before 1.13, an estimator_status), when
// its covariance is over the quaternion: as many covariances as states,
// 24 (PX4 before 1.15; 1.15 logs 24 states and 23 covariances, 1.16 25
// and 24, over a rotation vector). ok is false for the others.
func ReadEstimatorCovariance(f px4.Fields, message string) (c mapping.PX4EstimatorCovariance, ok bool, err error) {
	_, lastCov := f.Float("covariances[23]")
	_, extraState := f.Float("states[24]")
	if !lastCov || extraState {
		return c, false, nil
	}
	r := fieldReader{f: f, msg: message}
	c.Timestamp, c.TimestampSample = r.u64("timestamp"), r.optU64("timestamp_sample")
	for i, n := range [4]string{"[0]", "[1]", "[2]", "[3]"} {
		c.Q[i], c.QVar[i] = r.f32("states"+n), r.f32("covariances"+n)
	}
	return c, r.err == nil, r.err
}

// ReadFailsafe reads a failsafe_flags: each decisions.FailsafeFlag by
// PX4's name (geofence_breached is primary_geofence_breached in 1.14;
// navigator_failure exists from 1.16).
func ReadFailsafe(f px4.Fields) (mapping.PX4Failsafe, error) {
	r := fieldReader{f: f, msg: px4.MsgFailsafeFlags}
	out := mapping.PX4Failsafe{Timestamp: r.u64("timestamp")}
	for g := decisions.FailsafeFlag(0); g < decisions.NumFailsafeFlags; g++ {
		name := g.String()
		switch v, ok := f.Bool(name); {
		case ok:
			out.Flags[g] = v
			out.HasNavigatorFailure = out.HasNavigatorFailure || g == decisions.FailsafeNavigatorFailure
		case g == decisions.FailsafeNavigatorFailure:
		case g == decisions.FailsafeGeofenceBreached:
			out.Flags[g] = r.b("primary_geofence_breached")
		default:
			r.fail(name, "a bool")
		}
	}
	return out, r.err
}

// PX4Sample routes one PX4 message, named by its px4_msgs type name (or its
// uORB topic name), through the bridge: an estimator sample gives a belief
// and its assessment, a status, battery, attitude or health sample
// (vehicle_gps_position, estimator_status_flags or, in logs older than it,
// estimator_status, failsafe_flags) updates what the next belief carries. usePosition picks the estimator topic that makes
// beliefs (PositionOdometry or PositionLocalPosition); the other is read
// but not mapped.
func (b *Bridge) PX4Sample(message string, f px4.Fields, usePosition string) ([]Message, error) {
	switch message {
	case px4.MsgVehicleOdometry, "vehicle_odometry":
		if usePosition != PositionOdometry {
			return nil, nil
		}
		o, err := ReadOdometry(f)
		if err != nil {
			return nil, err
		}
		return b.PX4Odometry(o)
	case px4.MsgVehicleLocalPosition, "vehicle_local_position":
		if usePosition != PositionLocalPosition {
			return nil, nil
		}
		p, err := ReadLocalPosition(f)
		if err != nil {
			return nil, err
		}
		return b.PX4LocalPosition(p)
	case px4.MsgVehicleAttitude, "vehicle_attitude":
		a, err := ReadAttitude(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4Attitude(a)
	case px4.MsgVehicleStatus, "vehicle_status":
		s, err := ReadStatus(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4Status(s)
	case px4.MsgBatteryStatus, "battery_status":
		bs, err := ReadBattery(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4Battery(bs)
	case px4.MsgSensorGps, "vehicle_gps_position":
		g, err := ReadGps(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4Gps(g)
	case px4.MsgEstimatorStatusFlags, "estimator_status_flags":
		e, err := ReadEstimatorFlags(f)
		if err != nil {
			return nil, err
		}
		b.estimatorFlags = true
		return nil, b.tracker.SetPX4EstimatorFlags(e)
	case "estimator_states":
		b.estimatorStates = true
		return nil, b.estimatorCovariance(f, "EstimatorStates")
	case "estimator_status":
		// Older logs' estimator_status holds what estimator_status_flags
		// and estimator_states hold in later ones; those win where present.
		if !b.estimatorStates {
			if err := b.estimatorCovariance(f, "EstimatorStatus"); err != nil {
				return nil, err
			}
		}
		if b.estimatorFlags {
			return nil, nil
		}
		e, err := ReadEstimatorStatus(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4EstimatorFlags(e)
	case px4.MsgFailsafeFlags, "failsafe_flags":
		fs, err := ReadFailsafe(f)
		if err != nil {
			return nil, err
		}
		return nil, b.tracker.SetPX4Failsafe(fs)
	}
	return nil, fmt.Errorf("bridge: %s: %w", message, ErrUnknownTopic)
}

// estimatorCovariance holds the estimator's quaternion covariance, when
// the message has one, for the attitude variance of older releases.
func (b *Bridge) estimatorCovariance(f px4.Fields, message string) error {
	c, ok, err := ReadEstimatorCovariance(f, message)
	if !ok || err != nil {
		return err
	}
	return b.tracker.SetPX4EstimatorCovariance(c)
}

// sensorQoS converts PX4's QoS facts into a ROS 2 profile.
func sensorQoS(q px4.QoS) qos.Profile {
	p := qos.Profile{History: qos.HistoryKeepLast, Depth: uint32(q.Depth),
		Reliability: qos.ReliabilityBestEffort, Durability: qos.DurabilityVolatile}
	if q.Reliability == "reliable" {
		p.Reliability = qos.ReliabilityReliable
	}
	if q.Durability == "transient_local" {
		p.Durability = qos.DurabilityTransientLocal
	}
	return p
}

// Subscription is one topic a source reads.
type Subscription struct {
	Topic, Type string
	QoS         qos.Profile
}

// PX4 reads a PX4 vehicle over uXRCE-DDS: its px4_msgs messages, decoded by
// field name from the release's definitions.
type PX4 struct {
	b        *Bridge
	defs     *px4.Definitions
	position string
	topics   map[string]string // topic -> px4 message name
	subs     []Subscription
	msg      dynamic.Message
}

// PX4Options configure a PX4 source.
type PX4Options struct {
	// Definitions are the px4_msgs definitions of the vehicle's release.
	Definitions *px4.Definitions
	// Namespace prefixes the topics ("" for /fmu/..., "/uav_1" for
	// /uav_1/fmu/...).
	Namespace string
	// Position is PositionOdometry (default) or PositionLocalPosition.
	Position string
}

// NewPX4 returns the PX4 source over b.
func NewPX4(b *Bridge, opts PX4Options) (*PX4, error) {
	if opts.Definitions == nil {
		return nil, fmt.Errorf("bridge: px4: no px4_msgs definitions")
	}
	if opts.Position == "" {
		opts.Position = PositionOdometry
	}
	if opts.Position != PositionOdometry && opts.Position != PositionLocalPosition {
		return nil, fmt.Errorf("bridge: px4.position %q: want %s or %s", opts.Position, PositionOdometry, PositionLocalPosition)
	}
	p := &PX4{b: b, defs: opts.Definitions, position: opts.Position, topics: map[string]string{}}
	msgs := []string{px4.MsgVehicleStatus, px4.MsgBatteryStatus, px4.MsgSensorGps, px4.MsgEstimatorStatusFlags, px4.MsgFailsafeFlags}
	if opts.Position == PositionOdometry {
		msgs = append([]string{px4.MsgVehicleOdometry}, msgs...)
	} else {
		msgs = append([]string{px4.MsgVehicleLocalPosition, px4.MsgVehicleAttitude}, msgs...)
	}
	for _, m := range msgs {
		topic, err := p.defs.TopicName(m, opts.Namespace)
		if err != nil {
			return nil, fmt.Errorf("bridge: px4: %w", err)
		}
		p.topics[topic] = m
		p.subs = append(p.subs, Subscription{Topic: topic, Type: "px4_msgs/msg/" + m, QoS: sensorQoS(px4.SubscribeQoS)})
	}
	return p, nil
}

// Subscriptions are the PX4 topics to subscribe to, with PX4's QoS.
func (p *PX4) Subscriptions() []Subscription { return append([]Subscription(nil), p.subs...) }

// Handle maps one serialized PX4 message. A payload whose length does not
// match the release's layout is rejected with an error naming the release
// it fits.
func (p *PX4) Handle(topic string, data []byte, arrivalNs int64) ([]Message, error) {
	m, ok := p.topics[topic]
	if !ok {
		return nil, fmt.Errorf("bridge: %s: %w", topic, ErrUnknownTopic)
	}
	if err := p.defs.DecodeInto(m, &p.msg, data); err != nil {
		return nil, fmt.Errorf("bridge: %s: %w", topic, err)
	}
	p.b.tracker.SetArrival(arrivalNs)
	return p.b.PX4Sample(m, px4.FieldsOf(&p.msg), p.position)
}
