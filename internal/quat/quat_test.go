package quat

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMulIdentityAndInverse(t *testing.T) {
	one := Q{1, 0, 0, 0}
	for _, q := range []Q{Exp([3]float64{0.3, -0.2, 1.1}), Exp([3]float64{0, 0, math.Pi / 2}), {0.5, 0.5, 0.5, 0.5}} {
		for i, got := range [][2]Q{{Mul(one, q), q}, {Mul(q, one), q}, {Mul(q, Conj(q)), one}} {
			for k := range 4 {
				if !near(got[0][k], got[1][k], 1e-15) {
					t.Fatalf("case %d of %v: %v, want %v", i, q, got[0], got[1])
				}
			}
		}
	}
}

// Two quarter turns about z make a half turn; about x then z differs from
// z then x (the product does not commute).
func TestMulComposesRotations(t *testing.T) {
	z := Exp([3]float64{0, 0, math.Pi / 2})
	if v := RotationVector(Mul(z, z)); !near(v[2], math.Pi, 1e-12) || !near(v[0], 0, 1e-12) || !near(v[1], 0, 1e-12) {
		t.Fatalf("two quarter turns about z: %v", v)
	}
	x := Exp([3]float64{math.Pi / 2, 0, 0})
	if a, b := Mul(x, z), Mul(z, x); near(a[1], b[1], 1e-9) && near(a[2], b[2], 1e-9) && near(a[3], b[3], 1e-9) {
		t.Fatalf("x*z = z*x = %v", a)
	}
}

func TestRotationVectorInvertsExp(t *testing.T) {
	for _, v := range [][3]float64{{0, 0, 0}, {1e-9, 0, 0}, {0.1, -0.2, 0.3}, {0, 0, -3}, {2, 1, -0.5}, {0, math.Pi - 1e-9, 0}} {
		q := Exp(v)
		if n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]); !near(n, 1, 1e-15) {
			t.Fatalf("Exp(%v) has norm %v", v, n)
		}
		got := RotationVector(q)
		for i := range 3 {
			if !near(got[i], v[i], 1e-9) {
				t.Fatalf("RotationVector(Exp(%v)) = %v", v, got)
			}
		}
		if neg := RotationVector(Q{-q[0], -q[1], -q[2], -q[3]}); neg != got {
			t.Fatalf("-q gives %v, q gives %v", neg, got)
		}
	}
}
