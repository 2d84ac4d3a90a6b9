package mapping

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// QuaternionNormTolerance is how far from 1 an input quaternion's norm may
// be before the sample is rejected; within it the quaternion is normalized.
// Estimators publish float32 unit quaternions (norm error ~1e-7); a norm 1%
// off is not rounding but a corrupt or misassigned field, and dividing it
// out would hide that.
const QuaternionNormTolerance = 1e-2

// sqrtHalf is sin(45°) = cos(45°).
const sqrtHalf = math.Sqrt2 / 2

// nedToENU maps a NED (or earth-fixed FRD) vector to ENU: (x,y,z)->(y,x,-z).
func nedToENU(v [3]float32) [3]float64 {
	return [3]float64{float64(v[1]), float64(v[0]), -float64(v[2])}
}

// frdToFLU maps a body FRD vector to FLU: (x,y,z)->(x,-y,-z).
func frdToFLU(v [3]float32) [3]float64 {
	return [3]float64{float64(v[0]), -float64(v[1]), -float64(v[2])}
}

// unitQuaternion checks a w,x,y,z quaternion and returns it normalized, or
// why it is unusable.
func unitQuaternion(q [4]float64) ([4]float64, string) {
	n2 := q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]
	n := math.Sqrt(n2)
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0):
		return q, "not finite"
	case n == 0:
		return q, "zero norm"
	case math.Abs(n-1) > QuaternionNormTolerance:
		return q, "norm " + decisions.FormatFloat(n) + " is not 1 (tolerance 0.01)"
	}
	return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}, ""
}

// canonicalHemisphere returns q or -q (the same rotation), whichever has
// w >= 0, so equal rotations give equal bytes.
func canonicalHemisphere(q [4]float64) [4]float64 {
	if q[0] < 0 {
		return [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

// enuFromNEDFRD returns q_ENU<-FLU = q_ENU<-NED * q_NED<-FRD * q_FRD<-FLU for a
// unit q_NED<-FRD (w,x,y,z). With q_ENU<-NED = (0, s, s, 0) (180° about
// (1,1,0)/√2) and q_FRD<-FLU = (0, 1, 0, 0) (180° about x), the product works
// out to ±s·(w+z, x+y, x-y, w-z), s = √½.
func enuFromNEDFRD(q [4]float64) [4]float64 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	r := [4]float64{sqrtHalf * (w + z), sqrtHalf * (x + y), sqrtHalf * (x - y), sqrtHalf * (w - z)}
	// Renormalize away the rounding of the products (|r| = |q| exactly in reals).
	n := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2] + r[3]*r[3])
	return canonicalHemisphere([4]float64{r[0] / n, r[1] / n, r[2] / n, r[3] / n})
}

// rotation returns the rotation matrix of the unit quaternion q (w,x,y,z):
// R·v turns a body vector into the reference frame.
func rotation(q [4]float64) [3][3]float64 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// apply returns R·v, or Rᵀ·v when transpose is set. A coefficient that is
// exactly zero contributes nothing, so a NaN in one component does not
// spread to components the rotation keeps apart.
func apply(r *[3][3]float64, v [3]float64, transpose bool) [3]float64 {
	var out [3]float64
	for i := 0; i < 3; i++ {
		s := 0.0
		for j := 0; j < 3; j++ {
			c := r[i][j]
			if transpose {
				c = r[j][i]
			}
			if c != 0 {
				s += c * v[j]
			}
		}
		out[i] = s
	}
	return out
}
