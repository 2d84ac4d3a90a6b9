package mapping

import "math"

// The attitude variance of PX4 logs from before 1.15, whose
// vehicle_local_position and vehicle_attitude carry none: the estimator's
// own quaternion covariance (estimator_states; estimator_status in logs
// before 1.13) gives it, as PX4 1.15 defines tilt_var and heading_var.

// topicEstimatorStates names the input in rejection messages.
const topicEstimatorStates = "estimator_states"

// estimatorCovarianceMaxAgeUs is how far (either way) a held estimator
// covariance may be from a local-position sample to give its attitude
// variance: PX4 publishes both from the same estimator update, and logs
// them together.
const estimatorCovarianceMaxAgeUs = 1_000_000

// PX4EstimatorCovariance is the part of px4_msgs/EstimatorStates (in logs
// before 1.13, of estimator_status) the mapping reads: the estimator's
// quaternion and the diagonal of its covariance, when the covariance is
// over the quaternion (PX4 before 1.15; since 1.15 it is over a rotation
// vector, and vehicle_local_position has tilt_var and heading_var).
type PX4EstimatorCovariance struct {
	Timestamp       uint64 // µs
	TimestampSample uint64 // µs; 0 where the source has no such field
	// Q is states[0..3]: w, x, y, z, the rotation from body FRD to NED.
	Q [4]float32
	// QVar is covariances[0..3], the variances of Q's components.
	QVar [4]float32
}

// SetPX4EstimatorCovariance records the estimator's quaternion
// covariance for the local-position samples around it.
func (t *Tracker) SetPX4EstimatorCovariance(c PX4EstimatorCovariance) error {
	us := c.TimestampSample
	if us == 0 {
		us = c.Timestamp
	}
	if us == 0 || us > maxStampUs {
		return t.fail(reject(ReasonStampInvalid, topicEstimatorStates, "timestamp_sample", us, "no usable sample time"))
	}
	if t.covSeen && us < t.covUs {
		return t.fail(reject(ReasonStale, topicEstimatorStates, "timestamp_sample", us, "older than the one held"))
	}
	t.covSeen, t.covUs, t.cov = true, us, c
	t.counters.Updates++
	return nil
}

// attitudeFromEstimator gives p the attitude variance of the held
// estimator covariance when p has none of its own and the covariance is
// of the same moment; it reports whether it did.
func (t *Tracker) attitudeFromEstimator(p *PX4LocalPosition) bool {
	if p.HasHeadingTiltVar || !t.covSeen {
		return false
	}
	us := p.TimestampSample
	if us == 0 {
		us = p.Timestamp
	}
	if d := int64(us) - int64(t.covUs); d > estimatorCovarianceMaxAgeUs || d < -estimatorCovarianceMaxAgeUs {
		return false
	}
	tilt, heading, ok := TiltHeadingVariance(t.cov.Q, t.cov.QVar)
	if !ok {
		return false
	}
	p.HasHeadingTiltVar, p.TiltVar, p.HeadingVar = true, float32(tilt), float32(heading)
	return true
}

// TiltHeadingVariance returns, for an attitude quaternion q (w, x, y, z,
// body to NED) whose components have variances qVar, the variance of its
// tilt (the sum of the north and east rotation errors) and of its heading
// (the down rotation error), in rad², as PX4 1.15 defines tilt_var and
// heading_var.
//
// The error rotation in NED is twice the vector part of e ⊗ q* for a
// component error e: a linear map M of e. Only the diagonal of e's
// covariance is known (PX4 logs no more), and the components are strongly
// correlated (q has unit norm), so each variance is the bound
// 4 (Σ_j |M_ij| σ_j)², which holds whatever the correlations: the
// attitude is never claimed better known than the log supports. It is the
// exact value when the errors are fully correlated, as the unit norm makes
// them in the directions that matter. ok is false for a quaternion far
// from unit norm or a variance that is negative or not finite.
func TiltHeadingVariance(q, qVar [4]float32) (tilt, heading float64, ok bool) {
	w, x, y, z := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	n := math.Sqrt(w*w + x*x + y*y + z*z)
	if !(math.Abs(n-1) <= QuaternionNormTolerance) {
		return 0, 0, false
	}
	w, x, y, z = w/n, x/n, y/n, z/n
	var sigma [4]float64
	for j, v := range qVar {
		if !(v >= 0 && v <= math.MaxFloat32) {
			return 0, 0, false
		}
		sigma[j] = math.Sqrt(float64(v))
	}
	m := [3][4]float64{{-x, w, -z, y}, {-y, z, w, -x}, {-z, -y, x, w}}
	var rot [3]float64
	for i, row := range m {
		s := 0.0
		for j, c := range row {
			s += math.Abs(c) * sigma[j]
		}
		rot[i] = 4 * s * s
	}
	return rot[0] + rot[1], rot[2], true
}
