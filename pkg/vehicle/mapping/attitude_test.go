package mapping

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rotationRows is M of TiltHeadingVariance computed independently: the
// error rotation in NED of a component error e is 2 vec(e ⊗ q*), so
// column j is 2 vec(basis_j ⊗ q*) (halved here, the 2 squared into the 4).
func rotationRows(q [4]float64) [3][4]float64 {
	conj := [4]float64{q[0], -q[1], -q[2], -q[3]}
	var m [3][4]float64
	for j := 0; j < 4; j++ {
		var e [4]float64
		e[j] = 1
		r := hamilton(e, conj)
		for i := 0; i < 3; i++ {
			m[i][j] = r[i+1]
		}
	}
	return m
}

func TestTiltHeadingVariance(t *testing.T) {
	c := math.Sqrt(0.5)
	tests := []struct {
		name          string
		q, v          [4]float32
		tilt, heading float64
		ok            bool
	}{
		// Level, heading north: the rotation errors are the vector
		// components' errors, doubled.
		{"identity", [4]float32{1, 0, 0, 0}, [4]float32{1e-4, 4e-4, 9e-4, 16e-4}, 4 * (4e-4 + 9e-4), 4 * 16e-4, true},
		// Heading east: the heading error mixes w and z, the tilt x and y.
		{"heading east", [4]float32{float32(c), 0, 0, float32(c)}, [4]float32{1e-4, 1e-4, 1e-4, 1e-4},
			4*math.Pow(2*c*1e-2, 2) + 4*math.Pow(2*c*1e-2, 2), 4 * math.Pow(2*c*1e-2, 2), true},
		{"zero variances", [4]float32{1, 0, 0, 0}, [4]float32{}, 0, 0, true},
		{"a norm within the tolerance", [4]float32{1.005, 0, 0, 0}, [4]float32{0, 1e-4, 0, 0}, 4e-4, 0, true},
		{"a norm off", [4]float32{1.1, 0, 0, 0}, [4]float32{}, 0, 0, false},
		{"a NaN quaternion", [4]float32{float32(math.NaN()), 0, 0, 0}, [4]float32{}, 0, 0, false},
		{"a negative variance", [4]float32{1, 0, 0, 0}, [4]float32{0, -1e-4, 0, 0}, 0, 0, false},
		{"an infinite variance", [4]float32{1, 0, 0, 0}, [4]float32{0, float32(math.Inf(1)), 0, 0}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tilt, heading, ok := TiltHeadingVariance(tt.q, tt.v)
			if ok != tt.ok || (ok && (math.Abs(tilt-tt.tilt) > 1e-6*max(1e-6, tt.tilt) || math.Abs(heading-tt.heading) > 1e-6*max(1e-6, tt.heading))) {
				t.Fatalf("tilt %g heading %g ok %v, want %g %g %v", tilt, heading, ok, tt.tilt, tt.heading, tt.ok)
			}
		})
	}
}

// The variances bound the exact ones for every covariance with the given
// diagonal, and equal them for the fully correlated one that attains the
// bound.
func TestTiltHeadingVarianceBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 500; n++ {
		var q [4]float64
		norm := 0.0
		for i := range q {
			q[i] = rng.NormFloat64()
			norm += q[i] * q[i]
		}
		for i := range q {
			q[i] /= math.Sqrt(norm)
		}
		var sigma [4]float64
		var q32, v32 [4]float32
		for i := range sigma {
			sigma[i] = 1e-3 + 0.1*rng.Float64()
			v32[i] = float32(sigma[i] * sigma[i])
			q32[i] = float32(q[i])
			sigma[i] = math.Sqrt(float64(v32[i]))
		}
		tilt, heading, ok := TiltHeadingVariance(q32, v32)
		if !ok {
			t.Fatal("refused a unit quaternion")
		}
		m := rotationRows([4]float64{float64(q32[0]), float64(q32[1]), float64(q32[2]), float64(q32[3])})
		// A random correlation matrix (a Gram matrix of unit vectors).
		var u [4][4]float64
		for i := range u {
			l := 0.0
			for k := range u[i] {
				u[i][k] = rng.NormFloat64()
				l += u[i][k] * u[i][k]
			}
			for k := range u[i] {
				u[i][k] /= math.Sqrt(l)
			}
		}
		exact := func(row [4]float64, corr func(j, k int) float64) float64 {
			v := 0.0
			for j := 0; j < 4; j++ {
				for k := 0; k < 4; k++ {
					v += row[j] * row[k] * sigma[j] * sigma[k] * corr(j, k)
				}
			}
			return 4 * v
		}
		random := func(j, k int) float64 {
			d := 0.0
			for i := range u[j] {
				d += u[j][i] * u[k][i]
			}
			return d
		}
		gotTilt, gotHeading := exact(m[0], random)+exact(m[1], random), exact(m[2], random)
		if gotTilt > tilt*(1+1e-6) || gotHeading > heading*(1+1e-6) {
			t.Fatalf("q %v: exact tilt %g heading %g above the bound %g %g", q, gotTilt, gotHeading, tilt, heading)
		}
		worst := func(row [4]float64) func(j, k int) float64 {
			return func(j, k int) float64 { return math.Copysign(1, row[j]) * math.Copysign(1, row[k]) }
		}
		if h := exact(m[2], worst(m[2])); math.Abs(h-heading) > 1e-6*max(h, 1e-12) {
			t.Fatalf("q %v: the worst correlation gives heading %g, the bound %g", q, h, heading)
		}
	}
}

// Before 1.15 the attitude variance of a local-position sample comes from
// the estimator's covariance of the same moment; a later release's own
// variances win, and a covariance a second away or more gives none.
func TestAttitudeFromEstimator(t *testing.T) {
	cov := PX4EstimatorCovariance{Timestamp: 1_000_100, TimestampSample: 1_000_000, Q: [4]float32{1, 0, 0, 0}, QVar: [4]float32{0, 1e-4, 1e-4, 4e-4}}
	lp := func(us uint64, own bool) PX4LocalPosition {
		p := PX4LocalPosition{Timestamp: us + 50, TimestampSample: us, XYValid: true, ZValid: true, VXYValid: true, VZValid: true, EPH: 0.3, EPV: 0.4, EVH: 0.1, EVV: 0.1}
		if own {
			p.HasHeadingTiltVar, p.TiltVar, p.HeadingVar = true, 1e-6, 2e-6
		}
		return p
	}
	tests := []struct {
		name          string
		p             PX4LocalPosition
		tilt, heading float64 // NaN: unknown
	}{
		{"the same moment", lp(1_000_000, false), 8e-4, 16e-4},
		{"a second before", lp(2_000_000, false), 8e-4, 16e-4},
		{"more than a second before", lp(2_000_001, false), math.NaN(), math.NaN()},
		{"the release's own", lp(1_000_000, true), 1e-6, 2e-6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			if err := tr.SetPX4Attitude(PX4Attitude{Timestamp: 900_000, Q: [4]float32{1, 0, 0, 0}}); err != nil {
				t.Fatal(err)
			}
			if err := tr.SetPX4EstimatorCovariance(cov); err != nil {
				t.Fatal(err)
			}
			s, err := tr.PX4LocalPosition(tt.p)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range [3]float64{tt.tilt, tt.tilt, tt.heading} {
				got := diag(&s, 6+i)
				if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && math.Abs(got-want) > 1e-9) {
					t.Errorf("orientation variance %d: %g, want %g", i, got, want)
				}
			}
			c := tr.Counters()
			fromEst := !math.IsNaN(tt.tilt) && !tt.p.HasHeadingTiltVar
			if (c.AttitudeFromEstimator == 1) != fromEst || (c.AttitudeUnknown == 1) != math.IsNaN(tt.tilt) {
				t.Errorf("counters %+v", c)
			}
		})
	}
	var tr Tracker
	if err := tr.SetPX4EstimatorCovariance(cov); err != nil {
		t.Fatal(err)
	}
	older := cov
	older.TimestampSample--
	if err := tr.SetPX4EstimatorCovariance(older); err == nil {
		t.Error("an older covariance was held")
	}
	if err := tr.SetPX4EstimatorCovariance(PX4EstimatorCovariance{}); err == nil {
		t.Error("a covariance without a time was held")
	}
}
