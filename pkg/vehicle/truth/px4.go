package truth

import (
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// PX4's ground truth and estimator samples, read by field name, so that
// the same code serves a px4_msgs payload (px4.FieldsOf) and a ULog data
// message of any release.

// maxStampUs is the largest µs time whose ns value fits an int64.
const maxStampUs = math.MaxInt64 / 1000

// px4Stamp returns a PX4 sample's time in ns, as the estimates are
// stamped: timestamp_sample, or timestamp where that is absent or zero.
func px4Stamp(topic string, f px4.Fields) (int64, error) {
	field := "timestamp_sample"
	us, _ := f.Uint(field)
	if us == 0 {
		field = "timestamp"
		var ok bool
		if us, ok = f.Uint(field); !ok {
			return 0, sampleErr(topic, field, "missing", "a uint64 µs time is needed")
		}
	}
	switch {
	case us == 0:
		return 0, sampleErr(topic, "timestamp", 0, "no sample time (timestamp_sample and timestamp are 0)")
	case us > maxStampUs:
		return 0, sampleErr(topic, field, us, "µs beyond the int64 ns range")
	}
	return int64(us) * 1000, nil
}

// vec3 reads three float fields; a missing or non-finite one is an error.
func vec3(topic string, f px4.Fields, names [3]string) ([3]float32, error) {
	var v [3]float32
	for i, n := range names {
		x, ok := f.Float(n)
		if !ok {
			return v, sampleErr(topic, n, "missing", "a number is needed")
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return v, sampleErr(topic, n, x, "not finite")
		}
		v[i] = float32(x)
	}
	return v, nil
}

const (
	logPositionTruth = "vehicle_local_position_groundtruth"
	logGlobalTruth   = "vehicle_global_position_groundtruth"
	logAttitudeTruth = "vehicle_attitude_groundtruth"
	logLocalPosition = "vehicle_local_position"
)

// PX4PositionTruth reads one vehicle_local_position_groundtruth sample:
// its position and velocity, mapped to ENU. The position is an error when
// it is missing or not finite; the velocity is left out (velErr saying
// why) on the same grounds.
//
// The validity flags (xy_valid, z_valid, v_xy_valid, v_z_valid) are not
// read: on a ground-truth topic they say nothing about the values, which
// are the simulator's own state. SIH sets them true; Gazebo's bridge
// (gz_bridge, PX4 1.15) leaves them false on every sample although its
// values are the model's pose. Taking the flags at their word would drop
// a Gazebo flight's whole position truth.
func PX4PositionTruth(f px4.Fields) (pos, vel Sample, velErr error, err error) {
	stamp, err := px4Stamp(logPositionTruth, f)
	if err != nil {
		return pos, vel, nil, err
	}
	p, err := vec3(logPositionTruth, f, [3]string{"x", "y", "z"})
	if err != nil {
		return pos, vel, nil, err
	}
	pos = Sample{Stream: StreamPosition, StampNs: stamp, Value: mapping.NEDToENU(p)}
	vel = Sample{Stream: StreamVelocity, StampNs: stamp}
	v, velErr := vec3(logPositionTruth, f, [3]string{"vx", "vy", "vz"})
	if velErr == nil {
		vel.Value = mapping.NEDToENU(v)
	}
	return pos, vel, velErr, nil
}

// PX4GlobalTruth reads one vehicle_global_position_groundtruth sample:
// latitude, longitude (degrees) and altitude (m above mean sea level), as
// the simulator gives them. Like the local truth's, its validity flags, if
// any, are not read.
func PX4GlobalTruth(f px4.Fields) (Sample, error) {
	stamp, err := px4Stamp(logGlobalTruth, f)
	if err != nil {
		return Sample{}, err
	}
	s := Sample{Stream: StreamGlobal, StampNs: stamp}
	for i, name := range [3]string{"lat", "lon", "alt"} {
		x, ok := f.Float(name)
		if !ok {
			return Sample{}, sampleErr(logGlobalTruth, name, "missing", "a number is needed")
		}
		s.Value[i] = x
	}
	return s.Check()
}

// PX4AttitudeTruth reads one vehicle_attitude_groundtruth sample, mapped to
// ghost's orientation (body FLU to ENU) as the estimates' attitude is.
func PX4AttitudeTruth(f px4.Fields) (Sample, error) {
	stamp, err := px4Stamp(logAttitudeTruth, f)
	if err != nil {
		return Sample{}, err
	}
	var q [4]float32
	for i := range q {
		name := fmt.Sprintf("q[%d]", i)
		x, ok := f.Float(name)
		if !ok {
			return Sample{}, sampleErr(logAttitudeTruth, name, "missing", "a number is needed")
		}
		q[i] = float32(x)
	}
	enu, err := mapping.AttitudeENU(logAttitudeTruth, q)
	if err != nil {
		return Sample{}, fmt.Errorf("%w: %w", ErrSample, err)
	}
	return Sample{Stream: StreamAttitude, StampNs: stamp, Q: enu}, nil
}

// ResetTracker turns the reset counters of PX4's estimator
// (vehicle_local_position's xy_reset_counter and z_reset_counter, with
// delta_xy and delta_z) into Resets. The zero value is ready; it is not
// safe for concurrent use.
type ResetTracker struct {
	seen  bool
	xy, z uint8
	// Lost counts resets whose steps are unknown: a counter that moved by
	// more than one between two samples reports only the last reset's
	// step.
	Lost uint64
}

// Step reads one of the estimator's vehicle_local_position samples. It
// returns the reset the sample records when a counter differs from the
// previous sample's; the first sample only sets the counters.
func (t *ResetTracker) Step(f px4.Fields) (Reset, bool, error) {
	stamp, err := px4Stamp(logLocalPosition, f)
	if err != nil {
		return Reset{}, false, err
	}
	xy, okXY := f.Uint("xy_reset_counter")
	z, okZ := f.Uint("z_reset_counter")
	if !okXY || !okZ || xy > 255 || z > 255 {
		return Reset{}, false, sampleErr(logLocalPosition, "xy_reset_counter/z_reset_counter", fmt.Sprintf("%d/%d", xy, z), "two uint8 counters are needed")
	}
	prevSeen, prevXY, prevZ := t.seen, t.xy, t.z
	t.seen, t.xy, t.z = true, uint8(xy), uint8(z)
	if !prevSeen || (prevXY == uint8(xy) && prevZ == uint8(z)) {
		return Reset{}, false, nil
	}
	var d [3]float32
	if prevXY != uint8(xy) {
		t.Lost += uint64(uint8(xy)-prevXY) - 1
		v, err := vec3(logLocalPosition, f, [3]string{"delta_xy[0]", "delta_xy[1]", "delta_xy[1]"})
		if err != nil {
			return Reset{}, false, err
		}
		d[0], d[1] = v[0], v[1]
	}
	if prevZ != uint8(z) {
		t.Lost += uint64(uint8(z)-prevZ) - 1
		v, err := vec3(logLocalPosition, f, [3]string{"delta_z", "delta_z", "delta_z"})
		if err != nil {
			return Reset{}, false, err
		}
		d[2] = v[0]
	}
	return Reset{StampNs: stamp, Delta: mapping.NEDToENU(d)}, true, nil
}

// OriginTracker follows the origin PX4's estimator declares for its local
// frame, in its vehicle_local_position samples: ref_lat and ref_lon when
// xy_global is set, ref_alt when z_global is. The zero value is ready; it
// is not safe for concurrent use.
type OriginTracker struct {
	last Origin
	seen bool
}

// Step reads one of the estimator's vehicle_local_position samples. It
// returns the origin when the sample declares one other than the previous
// sample's (the first sample that declares any), stamped with the
// sample's time. A release or log without the reference fields declares
// none; the values of a declared half must be a latitude, a longitude or
// an altitude.
func (t *OriginTracker) Step(f px4.Fields) (Origin, bool, error) {
	stamp, err := px4Stamp(logLocalPosition, f)
	if err != nil {
		return Origin{}, false, err
	}
	o := Origin{StampNs: stamp, Lat: math.NaN(), Lon: math.NaN(), Alt: math.NaN()}
	if xy, ok := f.Bool("xy_global"); ok && xy {
		lat, okLat := f.Float("ref_lat")
		lon, okLon := f.Float("ref_lon")
		if okLat && okLon {
			o.Lat, o.Lon = lat, lon
		}
	}
	if z, ok := f.Bool("z_global"); ok && z {
		if alt, ok := f.Float("ref_alt"); ok {
			o.Alt = alt
		}
	}
	if err := o.check(); err != nil {
		return Origin{}, false, err
	}
	if t.seen && o.Same(t.last) || !t.seen && !o.HasXY() && !o.HasZ() {
		return Origin{}, false, nil
	}
	t.last, t.seen = o, true
	return o, true, nil
}
