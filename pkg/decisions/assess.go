package decisions

import "math"

// CovarianceLen is the number of values of a belief's row-major 15x15
// covariance over [position(3), velocity(3), orientation tangent(3), accel
// bias(3), gyro bias(3)].
const CovarianceLen = 15 * 15

// Assess is ADR-0020's classifier: it reads the standard deviation of each
// position, velocity and orientation axis from the diagonal of the belief's
// 15x15 covariance (indices 0-8) and classifies it against the thresholds.
//
// A std is none when the covariance is absent (nil or empty) or its diagonal
// entry is negative or non-finite; none classifies as UNKNOWN. std <= known is
// KNOWN (so std == known is KNOWN), std >= unknown is UNKNOWN, anything in
// between UNCERTAIN. Block levels are the worst of their axes, the overall
// level the worst of the blocks. -0.0 has the std -0.0, which is KNOWN.
//
// It fails on a negative stamp, invalid thresholds or a covariance that is
// neither empty nor 225 values long.
func Assess(stampSimNs int64, covariance []float64, t Thresholds) (SelfAssessment, error) {
	if stampSimNs < 0 {
		return SelfAssessment{}, invalid("BeliefSelfAssessment", "belief_stamp_sim_ns", stampSimNs, "must be >= 0")
	}
	if err := t.Validate(); err != nil {
		return SelfAssessment{}, err
	}
	if n := len(covariance); n != 0 && n != CovarianceLen {
		return SelfAssessment{}, invalid("NavigationState", "covariance_15x15", n, "must hold 0 or 225 values")
	}
	a := SelfAssessment{
		BeliefStampSimNs:    stampSimNs,
		ThresholdsUsed:      t,
		ThresholdsSHA256:    t.SHA256(),
		CovarianceAvailable: len(covariance) == CovarianceLen,
		SchemaVersion:       SchemaVersion,
	}
	for i := range a.Std {
		a.Std[i] = math.NaN()
		if a.CovarianceAvailable {
			if d := covariance[i*CovarianceDim+i]; d >= 0 && !math.IsInf(d, 1) {
				a.Std[i] = math.Sqrt(d)
			}
		}
		known, unknown := t.Block(i / 3)
		a.AxisLevel[i] = classify(a.Std[i], known, unknown)
	}
	for b := range a.BlockLevel {
		a.BlockLevel[b] = Worst(a.AxisLevel[3*b], a.AxisLevel[3*b+1], a.AxisLevel[3*b+2])
	}
	a.OverallLevel = Worst(a.BlockLevel[:]...)
	return a, nil
}

// CovarianceDim is the side of the belief covariance matrix.
const CovarianceDim = 15

// classify maps one std to its level; NaN (none) is UNKNOWN.
func classify(std, known, unknown float64) Level {
	switch {
	case math.IsNaN(std):
		return LevelUnknown
	case std <= known:
		return LevelKnown
	case std >= unknown:
		return LevelUnknown
	default:
		return LevelUncertain
	}
}
