package mapping

// A simulator's ground truth is compared with the beliefs made from the
// estimates, so it goes through the very transforms the estimates do.

// NEDToENU maps a PX4 local NED vector (a ground-truth position or
// velocity, or the position step of an estimator reset) to ghost's ENU
// world frame exactly as the estimates are mapped: (x, y, z) -> (y, x, -z).
func NEDToENU(v [3]float32) [3]float64 { return nedToENU(v) }

// AttitudeENU maps a PX4 attitude quaternion (w, x, y, z: the rotation
// from body FRD to NED) of topic to ghost's orientation (body FLU to ENU,
// w >= 0) exactly as the estimates' attitude is mapped. It rejects what the
// estimates' mapping rejects: a NaN q[0] (PX4's mark of an invalid
// attitude), a non-finite or zero quaternion, a norm further than
// QuaternionNormTolerance from 1.
func AttitudeENU(topic string, q [4]float32) ([4]float64, error) {
	u, err := px4Quaternion(topic, q)
	if err != nil {
		return [4]float64{}, err
	}
	return enuFromNEDFRD(u), nil
}
