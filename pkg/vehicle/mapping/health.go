package mapping

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// The health inputs: the GNSS receiver, the estimator's flags and the
// autopilot's failsafe flags. Each is held like the flight status and goes
// into every belief mapped after it (decisions.Health, in error_flags).

// Topic names used in rejection messages.
const (
	topicGps           = "vehicle_gps_position"
	topicEstimatorFlag = "estimator_status_flags"
	topicFailsafe      = "failsafe_flags"
)

// GNSSTimeoutNs is how long a receiver may stay silent before a belief
// reads its fix as lost (no_fix): PX4 publishes the receiver's position at
// 5 Hz or more, and logs it at least twice a second, so 2 s of silence is
// a receiver gone, not a slow one.
const GNSSTimeoutNs = 2_000_000_000

// PX4Gps is the part of px4_msgs/SensorGps (vehicle_gps_position) the
// mapping reads.
type PX4Gps struct {
	Timestamp       uint64 // µs
	TimestampSample uint64 // µs; 0 where the release has no such field
	FixType         uint8  // 0-1 no fix, 2 2D, 3 3D, 4 RTCM, 5 RTK float, 6 RTK fixed, 8 extrapolated
	SatellitesUsed  uint8
}

// PX4EstimatorFlags is the part of px4_msgs/EstimatorStatusFlags the
// mapping reads (or, from logs before it existed,
// estimator_status.control_mode_flags).
type PX4EstimatorFlags struct {
	Timestamp uint64 // µs
	// CsGps is cs_gps (cs_gnss_pos from PX4 1.16): GNSS position fused.
	CsGps    bool
	CsGpsHgt bool
	// CsTiltAlign, CsYawAlign, CsMagFault: the flags of the same names.
	CsTiltAlign, CsYawAlign, CsMagFault bool
	// CsInertialDeadReckoning is held only when
	// HasInertialDeadReckoning (control_mode_flags of older logs lack it).
	CsInertialDeadReckoning  bool
	HasInertialDeadReckoning bool
}

// PX4Failsafe is px4_msgs/FailsafeFlags' booleans, by decisions.FailsafeFlag.
type PX4Failsafe struct {
	Timestamp uint64 // µs
	Flags     [decisions.NumFailsafeFlags]bool
	// HasNavigatorFailure is false for releases without navigator_failure
	// (before 1.16): the flag is then unknown, not clear.
	HasNavigatorFailure bool
}

// healthState is what a Tracker holds of the health inputs.
type healthState struct {
	gpsSeen    bool
	gpsStamp   int64
	fix        decisions.GNSSFix
	satellites uint8

	estSeen  bool
	estStamp int64
	est      uint8
	estDR    bool

	fsSeen  bool
	fsStamp int64
	fs      uint32
	fsNav   bool
}

// health returns the health a belief at stamp carries: a receiver silent
// for longer than GNSSTimeoutNs before it has no fix.
func (h *healthState) health(stamp int64) decisions.Health {
	var out decisions.Health
	if h.gpsSeen {
		out.Fix, out.Satellites = h.fix, h.satellites
		if stamp-h.gpsStamp > GNSSTimeoutNs {
			out.Fix, out.Satellites = decisions.GNSSNoFix, 0
		}
	}
	if h.estSeen {
		out.EstimatorReported, out.Estimator, out.DeadReckoningReported = true, h.est, h.estDR
	}
	if h.fsSeen {
		out.FailsafeReported, out.Failsafe, out.NavigatorFailureReported = true, h.fs, h.fsNav
	}
	return out
}

// SetPX4Gps records a vehicle_gps_position (the receiver PX4 selected).
func (t *Tracker) SetPX4Gps(g PX4Gps) error {
	field, us := "timestamp_sample", g.TimestampSample
	if us == 0 {
		field, us = "timestamp", g.Timestamp
	}
	ns, err := t.auxStamp(topicGps, field, us, t.hs.gpsStamp, t.hs.gpsSeen)
	if err != nil {
		return t.fail(err)
	}
	t.hs.gpsSeen, t.hs.gpsStamp = true, ns
	t.hs.fix, t.hs.satellites = decisions.GNSSFixFromPX4(g.FixType), g.SatellitesUsed
	t.counters.Updates++
	return nil
}

// SetPX4EstimatorFlags records the estimator's flags.
func (t *Tracker) SetPX4EstimatorFlags(e PX4EstimatorFlags) error {
	ns, err := t.auxStamp(topicEstimatorFlag, "timestamp", e.Timestamp, t.hs.estStamp, t.hs.estSeen)
	if err != nil {
		return t.fail(err)
	}
	var f uint8
	for i, set := range [decisions.NumEstimatorFlags]bool{
		decisions.EstimatorGNSSFused:       e.CsGps,
		decisions.EstimatorGNSSHeightFused: e.CsGpsHgt,
		decisions.EstimatorDeadReckoning:   e.CsInertialDeadReckoning && e.HasInertialDeadReckoning,
		decisions.EstimatorTiltAligned:     e.CsTiltAlign,
		decisions.EstimatorYawAligned:      e.CsYawAlign,
		decisions.EstimatorMagFault:        e.CsMagFault,
	} {
		if set {
			f |= 1 << i
		}
	}
	t.hs.estSeen, t.hs.estStamp, t.hs.est, t.hs.estDR = true, ns, f, e.HasInertialDeadReckoning
	t.counters.Updates++
	return nil
}

// SetPX4Failsafe records the autopilot's failsafe flags.
func (t *Tracker) SetPX4Failsafe(f PX4Failsafe) error {
	ns, err := t.auxStamp(topicFailsafe, "timestamp", f.Timestamp, t.hs.fsStamp, t.hs.fsSeen)
	if err != nil {
		return t.fail(err)
	}
	var bits uint32
	for i, raised := range f.Flags {
		if raised && (decisions.FailsafeFlag(i) != decisions.FailsafeNavigatorFailure || f.HasNavigatorFailure) {
			bits |= 1 << i
		}
	}
	t.hs.fsSeen, t.hs.fsStamp, t.hs.fs, t.hs.fsNav = true, ns, bits, f.HasNavigatorFailure
	t.counters.Updates++
	return nil
}

// withHealth puts the health held at s's stamp into s's flight status.
func (t *Tracker) withHealth(s *State) {
	h := t.hs.health(s.StampNs)
	s.Flight.ErrorFlags = s.Flight.ErrorFlags&^decisions.HealthMask | h.Flags()
}
