package truth

import (
	"errors"
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
)

// Stream is one kind of truth sample.
type Stream uint8

// The truth streams. NumStreams bounds them (for arrays).
const (
	StreamPosition Stream = iota // m, ENU world
	StreamVelocity               // m/s, ENU world
	StreamAttitude               // w, x, y, z: body FLU to ENU
	// StreamGlobal is the position as latitude, longitude (degrees) and
	// altitude (m above mean sea level), for expressing the truth in the
	// estimator's declared origin (see Origin).
	StreamGlobal
	NumStreams
)

var streamNames = [NumStreams]string{"position", "velocity", "attitude", "global_position"}

// String returns "position", "velocity", "attitude" or "global_position".
func (s Stream) String() string {
	if s < NumStreams {
		return streamNames[s]
	}
	return fmt.Sprintf("stream(%d)", uint8(s))
}

// Sample is one truth sample in ghost's frames.
type Sample struct {
	Stream Stream
	// StampNs is the time the sample describes, in the beliefs' clock.
	StampNs int64
	// Value is the position (m) or the velocity (m/s), ENU, for those
	// streams; latitude, longitude (degrees) and altitude (m above mean
	// sea level) for StreamGlobal.
	Value [3]float64
	// Q is the attitude (w, x, y, z, unit norm, w >= 0: body FLU to ENU)
	// for StreamAttitude.
	Q [4]float64
}

// Reset is a position step of the estimator (an estimator reset): its
// estimate jumped by Delta at StampNs, so the offset between estimate and
// truth moves by Delta there. Axes a reset did not move hold zero.
type Reset struct {
	StampNs int64
	Delta   [3]float64 // m, ENU
}

// Form says how a recording holds its truth.
type Form uint8

// The forms.
const (
	FormNone  Form = iota // no simulator truth
	FormGhost             // ghost's /ground_truth/* topics (geometry_msgs, ENU)
	FormPX4               // PX4's *_groundtruth topics (px4_msgs, NED)
)

var formNames = [...]string{"none", "ghost", "px4"}

// String returns "none", "ghost" or "px4".
func (f Form) String() string {
	if int(f) < len(formNames) {
		return formNames[f]
	}
	return fmt.Sprintf("form(%d)", uint8(f))
}

// Topics and types of ghost's form.
const (
	TopicPosition       = "/ground_truth/position"        // geometry_msgs/msg/PointStamped
	TopicVelocity       = "/ground_truth/velocity"        // geometry_msgs/msg/Vector3Stamped
	TopicAttitude       = "/ground_truth/attitude"        // geometry_msgs/msg/QuaternionStamped
	TopicEstimatorReset = "/ground_truth/estimator_reset" // geometry_msgs/msg/Vector3Stamped
	// The global position and the estimator's declared origin, as
	// latitude (x), longitude (y) and altitude (z) in FrameGeodetic.
	TopicGlobalPosition  = "/ground_truth/global_position"  // geometry_msgs/msg/PointStamped
	TopicEstimatorOrigin = "/ground_truth/estimator_origin" // geometry_msgs/msg/PointStamped

	TypePointStamped      = "geometry_msgs/msg/PointStamped"
	TypeVector3Stamped    = "geometry_msgs/msg/Vector3Stamped"
	TypeQuaternionStamped = "geometry_msgs/msg/QuaternionStamped"
)

// Frames (header.frame_id) of ghost's form. Each names where the truth
// came from, since the frames are different: their origins differ, and
// neither is the estimator's.
const (
	// FrameSim is the world of ghost's simulator, ENU.
	FrameSim = "ghost_sim_world"
	// FramePX4 is PX4 SITL's ground-truth local frame (NED, origin at the
	// simulator's reference point) turned ENU.
	FramePX4 = "px4_groundtruth_enu"
	// FrameEstimator is the estimator's local frame, ENU: the frame of the
	// reset steps.
	FrameEstimator = "estimator_enu"
	// FrameGeodetic is latitude and longitude in degrees (x, y) and
	// altitude in metres above mean sea level (z), as PX4 gives them: the
	// frame of the global position and of the estimator's origin. A
	// geometry_msgs Point carries the three numbers; they are not metres
	// of a Cartesian frame.
	FrameGeodetic = "lat_lon_amsl"
)

// PX4's topics, below the namespace ("" for /fmu/..., "/uav_1" for
// /uav_1/fmu/...).
const (
	PX4TopicLocalPositionTruth = "/fmu/out/vehicle_local_position_groundtruth"  // px4_msgs/msg/VehicleLocalPosition
	PX4TopicAttitudeTruth      = "/fmu/out/vehicle_attitude_groundtruth"        // px4_msgs/msg/VehicleAttitude
	PX4TopicLocalPosition      = "/fmu/out/vehicle_local_position"              // the estimator's, for its resets and origin
	PX4TopicGlobalTruth        = "/fmu/out/vehicle_global_position_groundtruth" // px4_msgs/msg/VehicleGlobalPosition
)

// ErrSample is wrapped by the errors of a truth sample that cannot be
// used (a non-finite value, an unusable quaternion, a bad stamp).
var ErrSample = errors.New("unusable truth sample")

func sampleErr(where, field string, value any, why string) error {
	return fmt.Errorf("%w: %s.%s = %v: %s", ErrSample, where, field, value, why)
}

// Check validates s: a known stream, a stamp >= 0, finite values and, for
// an attitude, a quaternion whose norm is within
// mapping.QuaternionNormTolerance of 1. It returns s with the quaternion
// normalized and in the w >= 0 hemisphere.
func (s Sample) Check() (Sample, error) {
	where := "truth " + s.Stream.String()
	switch {
	case s.Stream >= NumStreams:
		return s, sampleErr("truth", "stream", uint8(s.Stream), "not a truth stream")
	case s.StampNs < 0:
		return s, sampleErr(where, "stamp", s.StampNs, "must be >= 0 ns")
	}
	if s.Stream == StreamGlobal {
		return s, checkGeodetic(where, s.Value[0], s.Value[1], s.Value[2], false)
	}
	if s.Stream != StreamAttitude {
		for i, v := range s.Value {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return s, sampleErr(where, fmt.Sprintf("value[%d]", i), v, "not finite")
			}
		}
		return s, nil
	}
	q := s.Q
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0):
		return s, sampleErr(where, "q", q, "not finite")
	case math.Abs(n-1) > mapping.QuaternionNormTolerance:
		return s, sampleErr(where, "q", q, fmt.Sprintf("norm %g is not 1 (tolerance %g)", n, mapping.QuaternionNormTolerance))
	}
	if q[0] < 0 {
		n = -n
	}
	s.Q = [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
	return s, nil
}

// Source names where a recording's truth came from, from its form and
// frame, for people.
func Source(f Form, frame string) string {
	switch {
	case f == FormPX4:
		return "PX4 SITL ground truth (vehicle_local_position_groundtruth, vehicle_attitude_groundtruth)"
	case f == FormGhost && frame == FrameSim:
		return "ghost's simulator (sim --truth)"
	case f == FormGhost && frame == FramePX4:
		return "PX4 SITL ground truth, from its flight log (ulog)"
	case f == FormGhost:
		return fmt.Sprintf("recorded ground truth in frame %q", frame)
	}
	return "none"
}
