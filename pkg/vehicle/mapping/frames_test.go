package mapping

import (
	"errors"
	"math"
	"testing"
)

// Expected values below are worked out by hand from the physical situation
// (which way the nose, the left wing and the top point in ENU), not from the
// formula the package uses.
func TestPX4AttitudeToENU(t *testing.T) {
	c15, s15 := math.Cos(math.Pi/12), math.Sin(math.Pi/12)
	c30, s30 := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	tests := []struct {
		name                   string
		qNED                   [4]float32
		wantQ                  [4]float64 // when known in closed form; zero to skip
		forward, left, topSide [3]float64 // body FLU axes in ENU
	}{
		{"level north = yaw 90 in ENU", [4]float32{1, 0, 0, 0}, [4]float64{s45, 0, 0, s45},
			[3]float64{0, 1, 0}, [3]float64{-1, 0, 0}, [3]float64{0, 0, 1}},
		{"level east = identity in ENU", [4]float32{float32(s45), 0, 0, float32(s45)}, [4]float64{1, 0, 0, 0},
			[3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}},
		{"level south", [4]float32{0, 0, 0, 1}, [4]float64{s45, 0, 0, -s45},
			[3]float64{0, -1, 0}, [3]float64{1, 0, 0}, [3]float64{0, 0, 1}},
		{"north, nose up 30", [4]float32{float32(c15), 0, float32(s15), 0}, [4]float64{},
			[3]float64{0, c30, s30}, [3]float64{-1, 0, 0}, [3]float64{0, -s30, c30}},
		{"north, right wing down 30", [4]float32{float32(c15), float32(s15), 0, 0}, [4]float64{},
			[3]float64{0, 1, 0}, [3]float64{-c30, 0, s30}, [3]float64{s30, 0, c30}},
		{"negative hemisphere input gives w >= 0", [4]float32{-1, 0, 0, 0}, [4]float64{s45, 0, 0, s45},
			[3]float64{0, 1, 0}, [3]float64{-1, 0, 0}, [3]float64{0, 0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := px4Odom(1000)
			o.Q = tc.qNED
			s, err := MapPX4Odometry(o, NoFlightStatus())
			if err != nil {
				t.Fatal(err)
			}
			q := s.OrientationQ
			if tc.wantQ != ([4]float64{}) && !near4(q, tc.wantQ) {
				t.Errorf("q = %v, want %v", q, tc.wantQ)
			}
			if q[0] < 0 {
				t.Errorf("q = %v: w < 0", q)
			}
			for _, ax := range []struct {
				name      string
				body, enu [3]float64
			}{{"forward", [3]float64{1, 0, 0}, tc.forward}, {"left", [3]float64{0, 1, 0}, tc.left}, {"up", [3]float64{0, 0, 1}, tc.topSide}} {
				if got := rotate(q, ax.body); !near3(got, ax.enu) {
					t.Errorf("body %s -> ENU %v, want %v", ax.name, got, ax.enu)
				}
			}
		})
	}
}

func TestPX4VectorsToENU(t *testing.T) {
	o := px4Odom(1000) // level, heading north
	s, err := MapPX4Odometry(o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	// NED (1, 2, -3): 1 m north, 2 m east, 3 m up.
	if want := [3]float64{2, 1, 3}; s.PositionENU != want {
		t.Errorf("position %v, want %v", s.PositionENU, want)
	}
	// NED velocity (0.5, -0.25, 0.125): north, west, down.
	if want := [3]float64{-0.25, 0.5, -0.125}; s.VelocityENU != want {
		t.Errorf("velocity ENU %v, want %v", s.VelocityENU, want)
	}
	// Heading north: body forward is north, body left is west.
	if want := [3]float64{0.5, 0.25, -0.125}; !near3(s.VelocityFLU, want) {
		t.Errorf("velocity FLU %v, want %v", s.VelocityFLU, want)
	}
	// FRD rates (0.1, 0.2, 0.3) are FLU (0.1, -0.2, -0.3); in ENU the body
	// x (roll) axis points north and y (pitch) west.
	if want := [3]float64{0.1, -0.2, -0.3}; !near3(s.AngularVelocityFLU, want) {
		t.Errorf("angular FLU %v, want %v", s.AngularVelocityFLU, want)
	}
	if want := [3]float64{0.2, 0.1, -0.3}; !near3(s.AngularVelocityENU, want) {
		t.Errorf("angular ENU %v, want %v", s.AngularVelocityENU, want)
	}

	// Body-frame velocity: 2 m/s forward while heading east is 2 m/s east.
	o.Q = [4]float32{float32(s45), 0, 0, float32(s45)}
	o.VelocityFrame, o.Velocity = VelocityFrameBodyFRD, [3]float32{2, 1, 0.5} // forward, right, down
	s, err = MapPX4Odometry(o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if want := [3]float64{2, -1, -0.5}; !near3(s.VelocityENU, want) {
		t.Errorf("body velocity in ENU %v, want %v", s.VelocityENU, want)
	}
}

func TestOdometryVectors(t *testing.T) {
	o := navOdom(5)
	// Heading north in ENU (yaw 90): forward is +y, left is -x.
	o.Orientation = Quaternion{Z: s45, W: s45}
	o.Linear, o.Angular = Vector3{2, 1, 0}, Vector3{0, 0, 0.5}
	s, err := MapOdometry(&o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if want := [3]float64{-1, 2, 0}; !near3(s.VelocityENU, want) {
		t.Errorf("velocity ENU %v, want %v", s.VelocityENU, want)
	}
	if want := [3]float64{2, 1, 0}; s.VelocityFLU != want {
		t.Errorf("velocity FLU %v, want %v", s.VelocityFLU, want)
	}
	if want := [3]float64{0, 0, 0.5}; !near3(s.AngularVelocityENU, want) {
		t.Errorf("yaw rate ENU %v, want %v", s.AngularVelocityENU, want)
	}
	if want := [4]float64{s45, 0, 0, s45}; !near4(s.OrientationQ, want) {
		t.Errorf("q %v, want %v", s.OrientationQ, want)
	}
	if s.StampNs != 5 || s.PositionENU != [3]float64{1, 2, 3} {
		t.Errorf("stamp %d position %v", s.StampNs, s.PositionENU)
	}
}

func TestTruthTransformsAreTheEstimates(t *testing.T) {
	// The truth helpers must be the estimates' own transforms: a PX4
	// local position and attitude mapped as an estimate and as truth give
	// the same ENU values.
	p := PX4LocalPosition{Timestamp: 1000, XYValid: true, ZValid: true, VXYValid: true, VZValid: true,
		X: 1.5, Y: -2.25, Z: -10, VX: 0.5, VY: 1, VZ: -0.25}
	att := PX4Attitude{Timestamp: 1000, Q: [4]float32{0.9238795, 0.1, -0.05, 0.3826834}}
	s, err := MapPX4LocalPosition(p, att, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if got := NEDToENU([3]float32{p.X, p.Y, p.Z}); got != s.PositionENU {
		t.Errorf("NEDToENU(position) = %v, the estimate's mapping gives %v", got, s.PositionENU)
	}
	if got := NEDToENU([3]float32{p.VX, p.VY, p.VZ}); got != s.VelocityENU {
		t.Errorf("NEDToENU(velocity) = %v, the estimate's mapping gives %v", got, s.VelocityENU)
	}
	q, err := AttitudeENU("vehicle_attitude_groundtruth", att.Q)
	if err != nil {
		t.Fatal(err)
	}
	if q != s.OrientationQ {
		t.Errorf("AttitudeENU = %v, the estimate's mapping gives %v", q, s.OrientationQ)
	}
	for _, bad := range [][4]float32{{float32(math.NaN()), 0, 0, 0}, {0, 0, 0, 0}, {2, 0, 0, 0}} {
		if _, err := AttitudeENU("vehicle_attitude_groundtruth", bad); err == nil {
			t.Errorf("AttitudeENU(%v) accepted", bad)
		} else if !errors.Is(err, ErrQuaternion) {
			t.Errorf("AttitudeENU(%v) = %v, want ErrQuaternion", bad, err)
		}
	}
}
