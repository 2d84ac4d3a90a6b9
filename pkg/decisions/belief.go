package decisions

import (
	"fmt"
	"math"
)

// Belief is the part of the agent's belief (VehicleState.msg) that decisions
// depend on: its stamp, the attitude and covariance the self-assessment reads,
// and the flight and mission status a context carries.
type Belief struct {
	// StampSimNs is the simulation time every decision refers to.
	StampSimNs int64
	// OrientationQ is the Hamilton quaternion w, x, y, z; unit norm.
	OrientationQ [4]float64
	// Covariance is the row-major 15x15 covariance, or empty when the
	// estimator declares none.
	Covariance []float64
	Flight     FlightStatus
	Mission    MissionStatus
}

// QuaternionTolerance is how far from 1 a quaternion's norm may be.
const QuaternionTolerance = 1e-3

// Validate checks stamp >= 0, a unit quaternion, a covariance of 0 or 225
// values, and the flight and mission status. Non-finite or negative
// covariance entries are not a reason to refuse the belief: the
// self-assessment classifies them (std none, UNKNOWN), and the decision for
// the stamp must still be taken, as the reference takes it.
func (b *Belief) Validate() error {
	if b.StampSimNs < 0 {
		return invalid("VehicleState", "stamp_sim_ns", b.StampSimNs, "must be >= 0")
	}
	q := b.OrientationQ
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(math.Abs(n-1) <= QuaternionTolerance) {
		return invalid("NavigationState", "orientation_q", fmt.Sprintf("%v (norm %s)", q, FormatFloat(n)), "must have unit norm (tolerance 1e-3)")
	}
	if n := len(b.Covariance); n != 0 && n != CovarianceLen {
		return invalid("NavigationState", "covariance_15x15", fmt.Sprintf("%d values", n), "must hold 0 or 225 values")
	}
	if err := b.Flight.Validate(); err != nil {
		return err
	}
	return b.Mission.Validate()
}

// Equal reports whether b and o hold the same content, floats bit for bit.
// A repeated belief is idempotent only when Equal.
func (b *Belief) Equal(o *Belief) bool {
	if b.StampSimNs != o.StampSimNs || len(b.Covariance) != len(o.Covariance) {
		return false
	}
	for i := range b.OrientationQ {
		if !sameFloat(b.OrientationQ[i], o.OrientationQ[i]) {
			return false
		}
	}
	for i := range b.Covariance {
		if !sameFloat(b.Covariance[i], o.Covariance[i]) {
			return false
		}
	}
	f, g := b.Flight, o.Flight
	if f.Armed != g.Armed || f.Mode != g.Mode || !sameFloat(f.BatteryV, g.BatteryV) ||
		!sameFloat(f.BatteryPct, g.BatteryPct) || f.ErrorFlags != g.ErrorFlags {
		return false
	}
	return b.Mission.Equal(o.Mission)
}
