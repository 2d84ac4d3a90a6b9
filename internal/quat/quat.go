// Package quat is the quaternion arithmetic that both the simulator's
// ground truth and the honesty audit need: the Hamilton product, the
// conjugate, and the exponential and logarithm maps between unit
// quaternions and rotation vectors. Quaternions are [w, x, y, z].
//
// It only computes; it knows nothing of frames, topics or the project.
package quat

import "math"

// Q is a quaternion, w first.
type Q = [4]float64

// Mul is the Hamilton product a*b.
func Mul(a, b Q) Q {
	return Q{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}

// Conj is q's conjugate, the inverse of a unit quaternion.
func Conj(q Q) Q { return Q{q[0], -q[1], -q[2], -q[3]} }

// Exp returns the unit quaternion of rotation vector v (axis times angle,
// rad).
func Exp(v [3]float64) Q {
	a := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if a == 0 {
		return Q{1, 0, 0, 0}
	}
	s := math.Sin(a/2) / a
	return Q{math.Cos(a / 2), s * v[0], s * v[1], s * v[2]}
}

// RotationVector returns the rotation vector (axis times angle, rad, the
// angle in [0, pi]) of a unit quaternion: the inverse of Exp for angles up
// to pi. q and -q are one rotation and give one vector.
func RotationVector(q Q) [3]float64 {
	if q[0] < 0 {
		q = Q{-q[0], -q[1], -q[2], -q[3]}
	}
	n := math.Sqrt(q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n == 0 {
		return [3]float64{}
	}
	k := 2 * math.Atan2(n, q[0]) / n
	return [3]float64{k * q[1], k * q[2], k * q[3]}
}
