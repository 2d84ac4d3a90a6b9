package sim

import (
	"math"
	"time"

	"github.com/ghost-robotics/ghost/internal/quat"
)

// The simulator scripts what its estimator believes; with Options.Truth it
// also scripts the error that estimator makes and publishes the true state:
// the estimate minus that error, in the simulator's own world frame. The
// error follows the declared standard deviations (honest) except for two
// stretches, so that an audit against the truth has something to find:
//   - during the GPS loss the horizontal drift grows with the claimed
//     deviation, at half of it, so claims stay honest while they grow;
//   - as the GPS comes back the barometer drifts: the altitude is off by up
//     to baroDrift metres while the estimator already claims to know it
//     within centimetres again (an overconfident KNOWN), and its vertical
//     velocity carries the drift's rate.
// Nothing is random: the error is a sum of sines of fixed frequencies, zero
// at the start of the flight.

// TruthPeriod is how often the simulator publishes its ground truth,
// whatever the belief rate (a physics step, not an estimator's output).
const TruthPeriod = 10 * time.Millisecond

// truthLatency is how long after its stamp a truth sample is recorded.
const truthLatency = time.Millisecond

// estimatorOrigin is where the estimator's local origin lies in the
// simulator's world frame (ENU, m): the two frames differ, as a real
// estimator's and its simulator's do.
var estimatorOrigin = [3]float64{-12.5, 30, 1.5}

// Error model.
const (
	noiseGain = 0.6 // of the declared deviation, RMS
	driftGain = 0.5 // of the declared horizontal deviation at the worst of the GPS loss
	baroDrift = 1.2 // m, the barometer's worst altitude error
	baroStart = gpsLossPeak
	baroFull  = recoveryEnd
	baroHold  = 0.66
	baroEnd   = silentStart
)

// driftDirection is the horizontal drift's sign per axis (x east, y north).
var driftDirection = [2]float64{1, -1}

// noiseFrequencies are the base angular frequencies (rad/s) of each axis'
// three sines; axis k multiplies them by 1 + 0.13k, so no two axes move
// alike.
var noiseFrequencies = [3]float64{0.31, 0.87, 2.3}

// noise is a deterministic stand-in for an estimator's error on axis k
// (0-8: position, velocity, orientation x, y, z): unit RMS over a long
// flight, zero at t = 0.
func noise(k int, t float64) float64 {
	s := 0.0
	for _, w := range noiseFrequencies {
		s += math.Sin(w * (1 + 0.13*float64(k)) * t)
	}
	return s * math.Sqrt(2.0/3.0)
}

// baroAt is the barometer's altitude error (m) at fraction f and its rate
// (m per unit of f).
func baroAt(f float64) (drift, rate float64) {
	switch {
	case f < baroStart || f >= baroEnd:
		return 0, 0
	case f < baroFull:
		return lerp(f, baroStart, baroFull, 0, baroDrift), baroDrift / (baroFull - baroStart)
	case f < baroHold:
		return baroDrift, 0
	}
	return lerp(f, baroHold, baroEnd, baroDrift, 0), -baroDrift / (baroEnd - baroHold)
}

// lossAt is how far into the GPS loss fraction f is: 0 outside it, 1 at
// its worst.
func lossAt(f float64) float64 {
	switch {
	case f < gpsLossStart || f >= recoveryEnd:
		return 0
	case f < gpsLossPeak:
		return lerp(f, gpsLossStart, gpsLossPeak, 0, 1)
	}
	return lerp(f, gpsLossPeak, recoveryEnd, 1, 0)
}

// Truth is the simulated vehicle's true state at a stamp.
type Truth struct {
	StampNs int64
	// PositionENU is in the simulator's world frame (m), not the
	// estimator's.
	PositionENU [3]float64
	// VelocityENU is the world-frame velocity (m/s).
	VelocityENU [3]float64
	// Q is the attitude, w, x, y, z: body FLU to ENU.
	Q [4]float64
}

// truthAt returns the true state at stamp (ns) of a flight lasting
// duration (ns): the scripted estimate minus the estimator's error.
func truthAt(stamp, duration int64) Truth {
	f := float64(stamp) / float64(duration)
	t := float64(stamp) / 1e9
	est := vehicleAt(stamp, duration)
	ps, vs := positionStd(f), velocityStd(f)
	std := [3]float64{ps, ps, 0.8 * ps}
	drift, rate := baroAt(f)
	loss := lossAt(f)
	tr := Truth{StampNs: stamp}
	for i := 0; i < 3; i++ {
		e := std[i] * noiseGain * noise(i, t)
		if i < 2 {
			e += std[i] * driftGain * loss * driftDirection[i]
		} else {
			e += drift
		}
		tr.PositionENU[i] = est.position[i] - e + estimatorOrigin[i]
		ev := vs * noiseGain * noise(3+i, t)
		if i == 2 {
			ev += rate / (float64(duration) / 1e9) // the drift's rate, m/s
		}
		tr.VelocityENU[i] = est.velocity[i] - ev
	}
	// The attitude error is a small rotation in the body frame: the
	// estimate is the truth turned by it, q_est = q_true * exp(e).
	var e [3]float64
	for i := range e {
		e[i] = orientationStd * noiseGain * noise(6+i, t)
	}
	tr.Q = quat.Mul(est.q, quat.Exp([3]float64{-e[0], -e[1], -e[2]}))
	return tr
}
