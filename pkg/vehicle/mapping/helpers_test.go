package mapping

import (
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// thresholds are the node's default thresholds (the configuration defaults:
// position 0.5/2 m, velocity 0.2/1 m/s, orientation 0.05/0.2 rad).
var thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2,
	VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2,
	SchemaVersion: decisions.SchemaVersion,
}

const (
	K = decisions.LevelKnown
	U = decisions.LevelUncertain
	X = decisions.LevelUnknown
)

var s45 = math.Sqrt2 / 2

// hamilton is an independent quaternion product (w, x, y, z).
func hamilton(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}

// rotate computes q v q* with the quaternion product, independently of the
// package's rotation matrix.
func rotate(q [4]float64, v [3]float64) [3]float64 {
	r := hamilton(hamilton(q, [4]float64{0, v[0], v[1], v[2]}), [4]float64{q[0], -q[1], -q[2], -q[3]})
	return [3]float64{r[1], r[2], r[3]}
}

// near allows for float32 inputs (about 7 significant digits).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }

func near3(a, b [3]float64) bool { return near(a[0], b[0]) && near(a[1], b[1]) && near(a[2], b[2]) }

func near4(a, b [4]float64) bool {
	return near(a[0], b[0]) && near(a[1], b[1]) && near(a[2], b[2]) && near(a[3], b[3])
}

// levels assesses s and returns its nine axis levels.
func levels(t *testing.T, s *State) [9]decisions.Level {
	t.Helper()
	a, err := Assess(s, thresholds)
	if err != nil {
		t.Fatalf("Assess: %v", err)
	}
	if !a.CovarianceAvailable {
		t.Fatal("covariance_available false: the mapping always gives 225 values")
	}
	return a.AxisLevel
}

// diag returns the covariance diagonal entry i.
func diag(s *State, i int) float64 { return s.Covariance[i*15+i] }

// px4Odom is a level vehicle heading north with everything known.
func px4Odom(stampUs uint64) PX4Odometry {
	return PX4Odometry{
		Timestamp: stampUs + 50, TimestampSample: stampUs,
		PoseFrame: PoseFrameNED, Position: [3]float32{1, 2, -3},
		Q:             [4]float32{1, 0, 0, 0},
		VelocityFrame: VelocityFrameNED, Velocity: [3]float32{0.5, -0.25, 0.125},
		AngularVelocity:     [3]float32{0.1, 0.2, 0.3},
		PositionVariance:    [3]float32{0.01, 0.01, 0.04},
		OrientationVariance: [3]float32{0.0001, 0.0001, 0.0004},
		VelocityVariance:    [3]float32{0.01, 0.01, 0.01},
	}
}

func localPos(stampUs uint64) PX4LocalPosition {
	return PX4LocalPosition{
		Timestamp: stampUs + 40, TimestampSample: stampUs,
		XYValid: true, ZValid: true, VXYValid: true, VZValid: true,
		X: 1, Y: 2, Z: -3, VX: 0.5, VY: -0.25, VZ: 0.125,
		EPH: 0.3, EPV: 0.4, EVH: 0.1, EVV: 0.1,
		HasHeadingTiltVar: true, TiltVar: 0.0001, HeadingVar: 0.0004,
	}
}

// navOdom is a level vehicle heading east (ENU identity) with a diagonal
// covariance.
func navOdom(stampNs int64) Odometry {
	o := Odometry{
		StampNs: stampNs, FrameID: "map", ChildFrameID: "base_link",
		Position:    Vector3{1, 2, 3},
		Orientation: Quaternion{W: 1},
		Linear:      Vector3{1, 0, 0}, Angular: Vector3{0, 0, 0.5},
	}
	for i, v := range [6]float64{0.01, 0.01, 0.04, 0.0001, 0.0001, 0.0004} {
		o.PoseCovariance[i*6+i] = v
	}
	for i, v := range [6]float64{0.01, 0.01, 0.01, 0.1, 0.1, 0.1} {
		o.TwistCovariance[i*6+i] = v
	}
	return o
}
