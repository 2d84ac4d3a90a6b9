package mapping

// The input structs are plain values that decoders (CDR, ULog) fill. Their
// fields are named after the source .msg fields so the conversion is
// field by field; units and frames are the source's own, as on the wire.

// PX4 VehicleOdometry pose_frame values.
const (
	PoseFrameUnknown uint8 = 0
	PoseFrameNED     uint8 = 1
	PoseFrameFRD     uint8 = 2 // earth-fixed, forward-right-down, arbitrary heading
)

// PX4 VehicleOdometry velocity_frame values.
const (
	VelocityFrameUnknown uint8 = 0
	VelocityFrameNED     uint8 = 1
	VelocityFrameFRD     uint8 = 2 // earth-fixed, like PoseFrameFRD
	VelocityFrameBodyFRD uint8 = 3
)

// PX4Odometry is px4_msgs/VehicleOdometry (identical from PX4 1.14 to main).
type PX4Odometry struct {
	Timestamp       uint64 // µs, publication time
	TimestampSample uint64 // µs, the estimator's sample time: the belief stamp
	PoseFrame       uint8
	Position        [3]float32 // m, in PoseFrame
	// Q is w, x, y, z: the rotation from body FRD to PoseFrame; Q[0] NaN
	// means invalid.
	Q                   [4]float32
	VelocityFrame       uint8
	Velocity            [3]float32 // m/s, in VelocityFrame
	AngularVelocity     [3]float32 // rad/s, body FRD
	PositionVariance    [3]float32 // m², in PoseFrame
	OrientationVariance [3]float32 // rad², roll, pitch, yaw (body)
	VelocityVariance    [3]float32 // (m/s)², in VelocityFrame
	ResetCounter        uint8
	Quality             int8
}

// PX4LocalPosition is the part of px4_msgs/VehicleLocalPosition the mapping
// reads (NED, origin at the estimator's start).
type PX4LocalPosition struct {
	Timestamp       uint64 // µs
	TimestampSample uint64 // µs; 0 where the release has no such field (then Timestamp is used)
	XYValid         bool
	ZValid          bool
	VXYValid        bool
	VZValid         bool
	X, Y, Z         float32 // m, NED
	VX, VY, VZ      float32 // m/s, NED
	Heading         float32 // rad, yaw from north; unused (vehicle_attitude.q carries it)
	// HasHeadingTiltVar is true when the release carries heading_var and
	// tilt_var (PX4 1.15 and later). When false both are ignored and the
	// orientation block is unknown: a zero there would claim exact knowledge.
	HasHeadingTiltVar bool
	HeadingVar        float32 // rad²
	TiltVar           float32 // rad²
	EPH, EPV          float32 // m, 1-sigma horizontal and vertical position error
	EVH, EVV          float32 // m/s, 1-sigma horizontal and vertical velocity error
}

// PX4Attitude is px4_msgs/VehicleAttitude.
type PX4Attitude struct {
	Timestamp       uint64 // µs
	TimestampSample uint64 // µs; 0 where the release has no such field
	// Q is w, x, y, z: the rotation from body FRD to NED.
	Q [4]float32
}

// PX4Status is the part of px4_msgs/VehicleStatus the mapping reads.
type PX4Status struct {
	Timestamp   uint64 // µs
	ArmingState uint8  // kept for diagnostics; Armed is what the mapping reads
	NavState    uint8
	// Armed is resolved by the caller from ArmingState, whose values differ
	// between releases (2 ARMED in every release so far).
	Armed bool
}

// PX4Battery is the part of px4_msgs/BatteryStatus the mapping reads (one
// instance; the caller picks which).
type PX4Battery struct {
	Timestamp uint64 // µs
	Connected bool
	VoltageV  float32
	Remaining float32 // 1 (full) to 0 (empty); -1 unknown
	Warning   uint8   // BatteryStatus WARNING_*: 0 NONE, 1 LOW, 2 CRITICAL, 3 EMERGENCY, 4 FAILED, 6 UNHEALTHY, 7 CHARGING
}

// Vector3 is geometry_msgs/Vector3 (or Point).
type Vector3 struct{ X, Y, Z float64 }

// Quaternion is geometry_msgs/Quaternion, fields named as there: note that
// ROS orders x, y, z, w, while ghost and PX4 put w first.
type Quaternion struct{ X, Y, Z, W float64 }

// Odometry is nav_msgs/Odometry. The pose is in FrameID (REP-103 ENU), the
// twist in ChildFrameID (body FLU); covariances are row-major 6x6 over x, y,
// z, rot_x, rot_y, rot_z, and all zeros means unknown.
type Odometry struct {
	StampNs         int64 // header.stamp as sec*1e9 + nanosec
	FrameID         string
	ChildFrameID    string
	Position        Vector3
	Orientation     Quaternion
	PoseCovariance  [36]float64
	Linear          Vector3 // twist.twist.linear, m/s, child frame
	Angular         Vector3 // twist.twist.angular, rad/s, child frame
	TwistCovariance [36]float64
}

// BatteryState is the part of sensor_msgs/BatteryState the mapping reads.
type BatteryState struct {
	StampNs    int64   // header.stamp as sec*1e9 + nanosec
	Voltage    float32 // V
	Percentage float32 // 0 to 1; NaN unknown
	Present    bool
}
