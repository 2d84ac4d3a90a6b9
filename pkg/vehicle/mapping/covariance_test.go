package mapping

import (
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func f32(v float64) float32 { return float32(v) }

// Known covariances give known levels under the default thresholds
// (position 0.5/2 m, velocity 0.2/1 m/s, orientation 0.05/0.2 rad). Each
// expected level follows from std = sqrt(variance) by hand.
func TestPX4OdometryLevels(t *testing.T) {
	inf, nanf := float32(math.Inf(1)), float32(math.NaN())
	tests := []struct {
		name string
		edit func(*PX4Odometry)
		want [9]decisions.Level
	}{
		{"all known", func(*PX4Odometry) {}, [9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		// NED (N 0.04 -> std 0.2, E 1 -> std 1, D 9 -> std 3): ENU x is east.
		{"position permuted N<->E", func(o *PX4Odometry) { o.PositionVariance = [3]float32{0.04, 1, 9} },
			[9]decisions.Level{U, K, X, K, K, K, K, K, K}},
		// velocity NED (N 0.25 -> 0.5 uncertain, E 0.01 known, D 4 -> 2 unknown)
		{"velocity permuted N<->E", func(o *PX4Odometry) { o.VelocityVariance = [3]float32{0.25, 0.01, 4} },
			[9]decisions.Level{K, K, K, K, U, X, K, K, K}},
		// roll 0.0004 -> 0.02 known, pitch 0.01 -> 0.1 uncertain, yaw 0.09 -> 0.3 unknown
		{"orientation roll pitch yaw", func(o *PX4Odometry) { o.OrientationVariance = [3]float32{0.0004, 0.01, 0.09} },
			[9]decisions.Level{K, K, K, K, K, K, K, U, X}},
		{"NaN variance", func(o *PX4Odometry) { o.PositionVariance[0] = nanf },
			[9]decisions.Level{K, X, K, K, K, K, K, K, K}},
		{"infinite variance", func(o *PX4Odometry) { o.VelocityVariance[2] = inf },
			[9]decisions.Level{K, K, K, K, K, X, K, K, K}},
		{"negative variance", func(o *PX4Odometry) { o.OrientationVariance[1] = -0.0001 },
			[9]decisions.Level{K, K, K, K, K, K, K, X, K}},
		{"negative zero variance is exactly known", func(o *PX4Odometry) { o.OrientationVariance[2] = f32(math.Copysign(0, -1)) },
			[9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		{"NaN position value", func(o *PX4Odometry) { o.Position[2] = nanf },
			[9]decisions.Level{K, K, X, K, K, K, K, K, K}},
		{"unknown velocity frame", func(o *PX4Odometry) { o.VelocityFrame = VelocityFrameUnknown },
			[9]decisions.Level{K, K, K, X, X, X, K, K, K}},
		// Heading north: body forward is world y, body left world -x. Body
		// variances (fwd 0.01, right 0.25, down 4) land on world (0.25, 0.01, 4).
		{"body velocity rotated", func(o *PX4Odometry) {
			o.VelocityFrame, o.VelocityVariance = VelocityFrameBodyFRD, [3]float32{0.01, 0.25, 4}
		}, [9]decisions.Level{K, K, K, U, K, X, K, K, K}},
		// An unknown body z does not spread to world x, y at level flight.
		{"body velocity, unknown z stays in z", func(o *PX4Odometry) {
			o.VelocityFrame, o.VelocityVariance = VelocityFrameBodyFRD, [3]float32{0.01, 0.01, nanf}
		}, [9]decisions.Level{K, K, K, K, K, X, K, K, K}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := px4Odom(1000)
			tc.edit(&o)
			s, err := MapPX4Odometry(o, NoFlightStatus())
			if err != nil {
				t.Fatal(err)
			}
			if got := levels(t, &s); got != tc.want {
				t.Errorf("levels %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPX4OdometryVarianceValues(t *testing.T) {
	o := px4Odom(1000)
	o.PositionVariance = [3]float32{0.25, 1, 4}
	s, err := MapPX4Odometry(o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [3]float64{1, 0.25, 4} { // E, N, up
		if got := diag(&s, i); got != want {
			t.Errorf("position variance %d = %v, want %v", i, got, want)
		}
	}
}

// The reference adapter's choice: position std (eph, eph, epv); velocity
// the same with (evh, evh, evv).
func TestPX4LocalPositionLevels(t *testing.T) {
	tests := []struct {
		name string
		edit func(*PX4LocalPosition)
		want [9]decisions.Level
	}{
		{"all known", func(*PX4LocalPosition) {}, [9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		{"eph 1 epv 3", func(p *PX4LocalPosition) { p.EPH, p.EPV = 1, 3 }, [9]decisions.Level{U, U, X, K, K, K, K, K, K}},
		{"evh 0.5 evv 0.1", func(p *PX4LocalPosition) { p.EVH, p.EVV = 0.5, 0.1 }, [9]decisions.Level{K, K, K, U, U, K, K, K, K}},
		// A negative std is unknown: squaring it would claim 0.09 m².
		{"negative eph", func(p *PX4LocalPosition) { p.EPH = -0.3 }, [9]decisions.Level{X, X, K, K, K, K, K, K, K}},
		{"NaN epv", func(p *PX4LocalPosition) { p.EPV = float32(math.NaN()) }, [9]decisions.Level{K, K, X, K, K, K, K, K, K}},
		{"xy invalid", func(p *PX4LocalPosition) { p.XYValid = false }, [9]decisions.Level{X, X, K, K, K, K, K, K, K}},
		{"z invalid", func(p *PX4LocalPosition) { p.ZValid = false }, [9]decisions.Level{K, K, X, K, K, K, K, K, K}},
		{"v_xy invalid", func(p *PX4LocalPosition) { p.VXYValid = false }, [9]decisions.Level{K, K, K, X, X, K, K, K, K}},
		{"v_z invalid", func(p *PX4LocalPosition) { p.VZValid = false }, [9]decisions.Level{K, K, K, K, K, X, K, K, K}},
		{"no heading/tilt variance (before 1.15)", func(p *PX4LocalPosition) { p.HasHeadingTiltVar = false },
			[9]decisions.Level{K, K, K, K, K, K, X, X, X}},
		// tilt 0.01 -> 0.1 rad uncertain on roll and pitch; heading 0.09 -> 0.3 unknown
		{"tilt and heading variance", func(p *PX4LocalPosition) { p.TiltVar, p.HeadingVar = 0.01, 0.09 },
			[9]decisions.Level{K, K, K, K, K, K, U, U, X}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := localPos(1000)
			tc.edit(&p)
			s, err := MapPX4LocalPosition(p, PX4Attitude{Timestamp: 900, Q: [4]float32{1, 0, 0, 0}}, NoFlightStatus())
			if err != nil {
				t.Fatal(err)
			}
			if got := levels(t, &s); got != tc.want {
				t.Errorf("levels %v, want %v", got, tc.want)
			}
		})
	}
	// The variance is the square of the 1-sigma value.
	p := localPos(1000)
	p.EPH, p.EPV = 0.5, 2
	s, err := MapPX4LocalPosition(p, PX4Attitude{Q: [4]float32{1, 0, 0, 0}}, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if diag(&s, 0) != 0.25 || diag(&s, 1) != 0.25 || diag(&s, 2) != 4 {
		t.Errorf("position variances %v %v %v, want 0.25 0.25 4", diag(&s, 0), diag(&s, 1), diag(&s, 2))
	}
}

func TestOdometryLevels(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Odometry)
		want [9]decisions.Level
	}{
		{"all known", func(*Odometry) {}, [9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		{"all-zero covariances are unknown", func(o *Odometry) { o.PoseCovariance, o.TwistCovariance = [36]float64{}, [36]float64{} },
			[9]decisions.Level{X, X, X, X, X, X, X, X, X}},
		{"zero position block only", func(o *Odometry) { o.PoseCovariance[0], o.PoseCovariance[7], o.PoseCovariance[14] = 0, 0, 0 },
			[9]decisions.Level{X, X, X, K, K, K, K, K, K}},
		{"one zero variance is exactly known", func(o *Odometry) { o.PoseCovariance[7] = 0 },
			[9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		// Thresholds are inclusive: std 0.5 m is known, std 2 m unknown.
		{"boundaries", func(o *Odometry) { o.PoseCovariance[0], o.PoseCovariance[7] = 0.25, 4 },
			[9]decisions.Level{K, X, K, K, K, K, K, K, K}},
		{"rotation block", func(o *Odometry) {
			o.PoseCovariance[21], o.PoseCovariance[28], o.PoseCovariance[35] = 0.0025, 0.01, 0.04
		},
			[9]decisions.Level{K, K, K, K, K, K, K, U, X}},
		{"-1 (ROS unknown convention)", func(o *Odometry) { o.PoseCovariance[0] = -1 },
			[9]decisions.Level{X, K, K, K, K, K, K, K, K}},
		{"NaN twist variance", func(o *Odometry) { o.TwistCovariance[7] = math.NaN() },
			[9]decisions.Level{K, K, K, K, X, K, K, K, K}},
		// Heading north (yaw 90): body forward is world y. Body variances
		// (0.01, 0.25, 4) land on world (0.25, 0.01, 4).
		{"twist rotated to world", func(o *Odometry) {
			o.Orientation = Quaternion{Z: s45, W: s45}
			o.TwistCovariance[0], o.TwistCovariance[7], o.TwistCovariance[14] = 0.01, 0.25, 4
		}, [9]decisions.Level{K, K, K, U, K, X, K, K, K}},
		{"twist angular block is not read", func(o *Odometry) { o.TwistCovariance[21] = math.NaN() },
			[9]decisions.Level{K, K, K, K, K, K, K, K, K}},
		{"NaN position value", func(o *Odometry) { o.Position.Y = math.Inf(1) },
			[9]decisions.Level{K, X, K, K, K, K, K, K, K}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := navOdom(10)
			tc.edit(&o)
			s, err := MapOdometry(&o, NoFlightStatus())
			if err != nil {
				t.Fatal(err)
			}
			if got := levels(t, &s); got != tc.want {
				t.Errorf("levels %v, want %v", got, tc.want)
			}
		})
	}
}

// A rotated twist covariance keeps its mass: at yaw 45° a body variance
// (a, b) spreads to world x and y as (a+b)/2 each.
func TestOdometryTwistRotation45(t *testing.T) {
	o := navOdom(10)
	c, s := math.Cos(math.Pi/8), math.Sin(math.Pi/8)
	o.Orientation = Quaternion{Z: s, W: c}
	o.TwistCovariance[0], o.TwistCovariance[7] = 0.02, 0.06
	st, err := MapOdometry(&o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if !near(diag(&st, 3), 0.04) || !near(diag(&st, 4), 0.04) || !near(diag(&st, 5), 0.01) {
		t.Errorf("world velocity variances %v %v %v, want 0.04 0.04 0.01", diag(&st, 3), diag(&st, 4), diag(&st, 5))
	}
	// Cross term: cos45·sin45·(a-b) = (0.02-0.06)/2 = -0.02.
	if got := st.Covariance[3*15+4]; !near(got, -0.02) {
		t.Errorf("world velocity xy covariance %v, want -0.02", got)
	}
}

// The unknown representation: NaN on the whole row and column of every
// unknown axis, the bias axes always unknown, one NaN bit pattern, and
// known entries finite.
func TestCovarianceShape(t *testing.T) {
	o := px4Odom(1000)
	o.PositionVariance[0] = float32(math.NaN()) // N -> ENU y (axis 1)
	s, err := MapPX4Odometry(o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	unknown := func(i int) bool { return i == 1 || i >= 9 }
	nanBits := math.Float64bits(math.NaN())
	for i := 0; i < 15; i++ {
		for j := 0; j < 15; j++ {
			v := s.Covariance[i*15+j]
			if unknown(i) || unknown(j) {
				if math.Float64bits(v) != nanBits {
					t.Fatalf("entry (%d,%d) = %v, want the canonical NaN", i, j, v)
				}
			} else if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("entry (%d,%d) = %v, want finite", i, j, v)
			} else if i != j && v != 0 {
				t.Fatalf("off-diagonal (%d,%d) = %v, want 0 (PX4 gives variances only)", i, j, v)
			}
		}
	}
	for i, v := range [][3]float64{s.AccelFLU, s.AccelBias, s.GyroBias} {
		for _, x := range v {
			if !math.IsNaN(x) {
				t.Errorf("vector %d = %v: values no source gives must be NaN", i, v)
			}
		}
	}
	// Two mappings of the same input are equal beliefs bit for bit, which
	// the node's idempotent repeat check relies on.
	s2, _ := MapPX4Odometry(o, NoFlightStatus())
	b1, b2 := s.Belief(), s2.Belief()
	if !b1.Equal(&b2) {
		t.Error("same input, unequal beliefs")
	}
	if err := b1.Validate(); err != nil {
		t.Error(err)
	}
}
