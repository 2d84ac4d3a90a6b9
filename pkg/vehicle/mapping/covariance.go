package mapping

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// First index of each block of the 15x15 belief covariance.
const (
	blockPosition    = 0
	blockVelocity    = 3
	blockOrientation = 6
	blockAccelBias   = 9
	blockGyroBias    = 12
	dim              = decisions.CovarianceDim
)

// nan is the one NaN the package writes for "unknown", so equal beliefs are
// equal bit for bit (decisions.Belief.Equal) whatever NaN payload the source
// carried.
var nan = math.NaN()

// covariance is a row-major 15x15 matrix under construction.
type covariance [decisions.CovarianceLen]float64

// variance returns v when it is a usable variance (finite, >= 0), with -0
// read as 0, and NaN (unknown) otherwise.
func variance(v float64) float64 {
	if v >= 0 && v <= math.MaxFloat64 {
		return v + 0 // -0 + 0 = +0
	}
	return nan
}

// varianceFromStd returns s² for a usable 1-sigma s (finite, >= 0), NaN
// otherwise. A negative std is unknown, not squared into a plausible value.
func varianceFromStd(s float64) float64 {
	if s >= 0 && s <= math.MaxFloat64 {
		return variance(s * s)
	}
	return nan
}

// setDiag sets three consecutive diagonal entries starting at axis first.
func (c *covariance) setDiag(first int, v [3]float64) {
	for k := 0; k < 3; k++ {
		c[(first+k)*dim+first+k] = v[k]
	}
}

// finish makes the matrix what the mapping promises: a diagonal entry that
// is not a usable variance is NaN, every unknown axis (the bias axes always)
// has a NaN row and column, and all other non-finite entries are NaN too;
// -0 becomes 0.
func (c *covariance) finish() {
	var unknown [dim]bool
	for i := 0; i < dim; i++ {
		d := variance(c[i*dim+i])
		c[i*dim+i] = d
		unknown[i] = math.IsNaN(d) || i >= blockAccelBias
	}
	for i := 0; i < dim; i++ {
		for j := 0; j < dim; j++ {
			v := &c[i*dim+j]
			switch {
			case unknown[i] || unknown[j] || math.IsNaN(*v) || math.IsInf(*v, 0):
				*v = nan
			default:
				*v += 0
			}
		}
	}
}

// copyPose copies a nav_msgs pose covariance (6x6 over x, y, z, rot_x,
// rot_y, rot_z) into the position and orientation blocks and their cross
// terms. A block whose three variances are all exactly zero is unknown: that
// is how MAVROS and others say "no covariance", and no estimator claims
// exact knowledge of three axes at once.
func (c *covariance) copyPose(p *[36]float64) {
	idx := [6]int{blockPosition, blockPosition + 1, blockPosition + 2,
		blockOrientation, blockOrientation + 1, blockOrientation + 2}
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			c[idx[a]*dim+idx[b]] = p[a*6+b]
		}
	}
	for _, first := range [2]int{0, 3} {
		if zeroDiag(p, first) {
			for k := 0; k < 3; k++ {
				i := idx[first+k]
				c[i*dim+i] = nan
			}
		}
	}
}

// copyTwistLinear stores the linear-velocity block of a nav_msgs twist
// covariance (body frame) as the world-frame velocity block (see
// worldBlock). A block whose variances are all zero is unknown.
func (c *covariance) copyTwistLinear(t *[36]float64, r *[3][3]float64) {
	if zeroDiag(t, 0) {
		c.setDiag(blockVelocity, [3]float64{nan, nan, nan})
		return
	}
	var body [3][3]float64
	for j := 0; j < 3; j++ {
		for l := 0; l < 3; l++ {
			body[j][l] = t[j*6+l]
		}
	}
	c.setBlock(blockVelocity, worldBlock(body, r))
}

// worldBlock rotates a body-frame 3x3 covariance into the world frame,
// Σw = R Σb Rᵀ. Body axes with unusable variances are unknown (NaN row and
// column) before rotating; terms with an exactly zero rotation coefficient
// are skipped, so an unknown body axis spreads only to the world axes it
// actually feeds (at level flight, an unknown body z leaves world x and y
// known).
func worldBlock(body [3][3]float64, r *[3][3]float64) [3][3]float64 {
	for j := 0; j < 3; j++ {
		if math.IsNaN(variance(body[j][j])) {
			for l := 0; l < 3; l++ {
				body[j][l], body[l][j] = nan, nan
			}
		}
	}
	var w [3][3]float64
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			s := 0.0
			for j := 0; j < 3; j++ {
				for l := 0; l < 3; l++ {
					if a, b := r[i][j], r[k][l]; a != 0 && b != 0 {
						s += a * body[j][l] * b
					}
				}
			}
			w[i][k] = s
		}
	}
	return w
}

// setBlock stores a 3x3 matrix as the diagonal block starting at axis first.
func (c *covariance) setBlock(first int, m [3][3]float64) {
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			c[(first+i)*dim+first+k] = m[i][k]
		}
	}
}

// zeroDiag reports whether the three variances of a 6x6 matrix starting at
// axis first are all zero.
func zeroDiag(m *[36]float64, first int) bool {
	for k := first; k < first+3; k++ {
		if m[k*6+k] != 0 {
			return false
		}
	}
	return true
}
