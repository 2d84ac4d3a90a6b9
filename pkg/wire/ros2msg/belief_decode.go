package ros2msg

import (
	"bytes"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// DecodeBelief decodes a serialized ghost/msg/VehicleState straight into
// the decisions.Belief that BeliefFromWire makes of it, without building
// the wire struct: the sensors' strings are checked but not copied, and the
// fields a Belief does not carry are checked and skipped.
//
// It accepts and rejects exactly the messages UnmarshalCDR followed by
// BeliefFromWire accepts and rejects, with the same errors (a fuzz target
// holds the two side by side), and returns the same Belief.
//
// The covariance is read into cov(n) when cov is non-nil: a caller decoding
// many beliefs passes storage it reuses once the belief is consumed, so the
// 225 values of a belief cost no allocation. With cov nil the covariance is
// freshly allocated, as by UnmarshalCDR. cov must return a slice of length n.
func DecodeBelief(data []byte, cov func(n int) []float64) (decisions.Belief, error) {
	return DecodeBeliefCached(data, cov, nil)
}

// DecodeBeliefCached is DecodeBelief taking the goal's strings from strs
// (nil: none), so that a stream of beliefs with one goal allocates its
// metadata once.
func DecodeBeliefCached(data []byte, cov func(n int) []float64, strs *StringCache) (decisions.Belief, error) {
	d := cdrDecoder{strs: strs}
	if !d.start(data, "ghost/msg/VehicleState") {
		return decisions.Belief{}, d.err
	}
	var b decisions.Belief
	b.StampSimNs = int64(d.u64("stamp_sim_ns"))
	d.u64("stamp_wall_ns")
	if d.err != nil {
		return decisions.Belief{}, d.err
	}
	decodeNavForBelief(&d, &b, cov)
	if d.err != nil {
		d.prefix("nav")
		return decisions.Belief{}, d.err
	}
	if n := d.count("sensors", 0, cdrMinSizeSensorHealth); n > 0 {
		for i := range n {
			d.skipStr("sensor_id", 0)
			d.u8("health")
			if d.err != nil {
				d.prefix(indexPath("sensors", i))
				return decisions.Belief{}, d.err
			}
		}
	}
	if d.err != nil {
		return decisions.Belief{}, d.err
	}
	var f FlightStatus
	f.cdrDecode(&d)
	if d.err != nil {
		d.prefix("flight")
		return decisions.Belief{}, d.err
	}
	mission := decodeMissionForBelief(&d)
	if d.err != nil {
		d.prefix("mission")
		return decisions.Belief{}, d.err
	}
	if err := d.finish(); err != nil {
		return decisions.Belief{}, err
	}
	b.Flight = FlightStatusFromWire(&f)
	b.Mission = mission
	return b, nil
}

// decodeMissionForBelief reads a MissionStatus as its generated decoder
// does (at most one goal: the bound of current_goal), without the goal
// slice MissionStatusFromWire would drop again.
func decodeMissionForBelief(d *cdrDecoder) decisions.MissionStatus {
	var s decisions.MissionStatus
	s.Mode = decisions.MissionMode(d.u8("mode"))
	if d.err != nil {
		return s
	}
	if n := d.count("current_goal", 1, cdrMinSizeGoal); n > 0 {
		var g Goal
		g.cdrDecode(d)
		if d.err != nil {
			d.prefix(indexPath("current_goal", 0))
			return s
		}
		goal := GoalFromWire(&g)
		s.Goal = &goal
	}
	s.Progress = d.f64("progress")
	s.StartedSimNs = int64(d.u64("started_sim_ns"))
	return s
}

// decodeNavForBelief reads a NavigationState as its generated decoder does,
// keeping only the orientation and the covariance.
func decodeNavForBelief(d *cdrDecoder, b *decisions.Belief, cov func(int) []float64) {
	var skip [3]float64
	cdrReadF64s(d, skip[:], "position_enu_m")
	cdrReadF64s(d, b.OrientationQ[:], "orientation_q")
	cdrReadF64s(d, skip[:], "linear_velocity_world_mps")
	cdrReadF64s(d, skip[:], "angular_velocity_world_rps")
	cdrReadF64s(d, skip[:], "linear_velocity_body_mps")
	cdrReadF64s(d, skip[:], "angular_velocity_body_rps")
	cdrReadF64s(d, skip[:], "accel_body_mps2")
	cdrReadF64s(d, skip[:], "accel_bias_mps2")
	cdrReadF64s(d, skip[:], "gyro_bias_rps")
	if n := d.count("covariance_15x15", 0, 8); n > 0 {
		if cov != nil {
			b.Covariance = cov(n)[:n:n]
		} else {
			b.Covariance = make([]float64, n)
		}
		cdrReadF64s(d, b.Covariance, "covariance_15x15")
	}
}

// skipStr checks a string exactly as str does, without copying it.
func (d *cdrDecoder) skipStr(field string, bound int) {
	n := d.u32(field)
	if d.err != nil {
		return
	}
	lenOff, start := d.off-4, d.off
	switch {
	case n == 0:
		d.fail(field, lenOff, fmt.Errorf("%w: length 0 leaves no room for the NUL terminator", ErrCDRBadString))
		return
	case uint64(n) > uint64(len(d.data)-start):
		d.fail(field, lenOff, fmt.Errorf("%w: string length %d, %d bytes remain", ErrCDRTruncated, n, len(d.data)-start))
		return
	}
	b := d.data[start : start+int(n)]
	if b[n-1] != 0 {
		d.fail(field, start+int(n)-1, fmt.Errorf("%w: missing NUL terminator (last byte 0x%02x)", ErrCDRBadString, b[n-1]))
		return
	}
	b = b[:n-1]
	if bound > 0 && len(b) > bound {
		d.fail(field, lenOff, fmt.Errorf("%w: string of %d bytes, bound %d", ErrCDRBound, len(b), bound))
		return
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		d.fail(field, start+i, fmt.Errorf("%w: NUL byte at index %d", ErrCDRBadString, i))
		return
	}
	d.off = start + int(n)
}
