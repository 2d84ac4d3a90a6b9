package mapping

import (
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Counters count a Tracker's accepted and rejected inputs.
type Counters struct {
	// Beliefs is the number of estimator samples mapped to a belief.
	Beliefs uint64
	// Updates is the number of accepted status, battery and attitude inputs.
	Updates uint64
	// Rejected counts rejections by Reason.
	Rejected [NumReasons]uint64
	// TimeBaseChanges counts changes of PX4's time base (see px4clock.go).
	TimeBaseChanges uint64
	// AttitudeFromEstimator counts the beliefs from local-position samples
	// whose attitude variance came from the estimator's covariance (PX4
	// before 1.15, attitude.go); AttitudeUnknown those that had none at
	// all, so their orientation block is unknown.
	AttitudeFromEstimator, AttitudeUnknown uint64
	// NoHorizontalPosition and NoHorizontalVelocity count the beliefs
	// from local-position samples PX4 marked xy_valid false, v_xy_valid
	// false: their horizontal axes are unknown.
	NoHorizontalPosition, NoHorizontalVelocity uint64
}

// RejectedTotal is the sum of Rejected.
func (c Counters) RejectedTotal() uint64 {
	var n uint64
	for _, v := range c.Rejected {
		n += v
	}
	return n
}

// Tracker maps one vehicle's estimator stream to beliefs: it holds the
// latest flight status, battery, attitude and health, and enforces strictly
// increasing belief stamps. Use one Tracker per belief stream. A rejected
// input changes nothing but the counters, so it never poisons later
// samples. The zero value is ready to use; a Tracker is not safe for
// concurrent use.
type Tracker struct {
	statusSeen  bool
	statusStamp int64
	armed       bool
	mode        decisions.FlightMode
	modeFlags   uint64

	batterySeen  bool
	batteryStamp int64
	batteryV     float64
	batteryPct   float64
	batteryFlags uint64

	attSeen  bool
	attStamp int64
	att      PX4Attitude

	hs healthState

	covSeen bool
	covUs   uint64
	cov     PX4EstimatorCovariance

	lastSeen bool
	last     int64

	clock    px4Clock
	counters Counters
}

// SetArrival gives the arrival time (ns of the host's clock: the receive
// time live, the log time in a recording) of the PX4 samples that follow,
// until the next call; ArrivalUnknown, the zero Tracker's state, says
// there is none. It sizes a change of PX4's time base (px4clock.go).
func (t *Tracker) SetArrival(ns int64) { t.clock.setArrival(ns) }

// LastTimeBaseChange returns the newest change of PX4's time base, and
// false when there was none.
func (t *Tracker) LastTimeBaseChange() (TimeBaseChange, bool) {
	return t.clock.last, t.clock.changes > 0
}

// Counters returns the counts so far.
func (t *Tracker) Counters() Counters { return t.counters }

// Flight returns the flight status a belief mapped now would carry, but
// for its health, which depends on the belief's stamp (withHealth).
func (t *Tracker) Flight() decisions.FlightStatus {
	f := NoFlightStatus()
	if t.statusSeen {
		f.Armed, f.Mode, f.ErrorFlags = t.armed, t.mode, t.modeFlags
	}
	if t.batterySeen {
		f.BatteryV, f.BatteryPct = t.batteryV, t.batteryPct
		f.ErrorFlags |= t.batteryFlags
	}
	return f
}

// fail counts a rejection and returns it as an error.
func (t *Tracker) fail(e *RejectError) error {
	t.counters.Rejected[e.Reason]++
	return e
}

// auxStamp converts an auxiliary input's µs timestamp to ns and checks it
// against the one held: older is stale; equal or unstamped (0 after 0)
// replaces.
func (t *Tracker) auxStamp(topic, field string, us uint64, held int64, seen bool) (int64, *RejectError) {
	if us > maxStampUs {
		return 0, reject(ReasonStampInvalid, topic, field, us, "µs beyond the int64 ns range")
	}
	ns, ok := t.clock.aux(int64(us) * 1000)
	if !ok {
		return 0, reject(ReasonTimeBase, topic, field, us, "off the vehicle's current time base (px4clock.go): not held")
	}
	if seen && ns < held {
		return 0, reject(ReasonStale, topic, field, us, "older than the one held")
	}
	return ns, nil
}

// SetPX4Status records a vehicle_status. A nav_state FlightStatus cannot
// name gives mode init with FlagModeUnmapped.
func (t *Tracker) SetPX4Status(s PX4Status) error {
	ns, err := t.auxStamp(topicStatus, "timestamp", s.Timestamp, t.statusStamp, t.statusSeen)
	if err != nil {
		return t.fail(err)
	}
	mode, ok := ModeFromNavState(s.NavState)
	t.statusSeen, t.statusStamp, t.armed, t.mode, t.modeFlags = true, ns, s.Armed, mode, 0
	if !ok {
		t.modeFlags = FlagModeUnmapped
	}
	t.counters.Updates++
	return nil
}

// SetPX4Battery records a battery_status (the instance the caller chose).
// Disconnected, -1 or out-of-range remaining, and non-positive voltages are
// unknown (NaN); the warning goes to error_flags bits 8 to 15.
func (t *Tracker) SetPX4Battery(b PX4Battery) error {
	ns, err := t.auxStamp(topicBattery, "timestamp", b.Timestamp, t.batteryStamp, t.batterySeen)
	if err != nil {
		return t.fail(err)
	}
	v, pct := nan, nan
	if b.Connected {
		v, pct = batteryVoltage(b.VoltageV), batteryFraction(b.Remaining)
	}
	t.batterySeen, t.batteryStamp, t.batteryV, t.batteryPct = true, ns, v, pct
	t.batteryFlags = uint64(b.Warning) << FlagBatteryWarningShift
	t.counters.Updates++
	return nil
}

// SetBattery records a sensor_msgs/BatteryState. Not present, NaN or
// out-of-range percentage, and non-positive voltages are unknown (NaN).
func (t *Tracker) SetBattery(b BatteryState) error {
	if b.StampNs < 0 {
		return t.fail(reject(ReasonStampInvalid, topicBatteryState, "header.stamp", b.StampNs, "must be >= 0 ns"))
	}
	if t.batterySeen && b.StampNs < t.batteryStamp {
		return t.fail(reject(ReasonStale, topicBatteryState, "header.stamp", b.StampNs, "older than the one held"))
	}
	v, pct := nan, nan
	if b.Present {
		v, pct = batteryVoltage(b.Voltage), batteryFraction(b.Percentage)
	}
	t.batterySeen, t.batteryStamp, t.batteryV, t.batteryPct, t.batteryFlags = true, b.StampNs, v, pct, 0
	t.counters.Updates++
	return nil
}

// SetPX4Attitude records a vehicle_attitude for the local-position samples
// that follow. An unusable quaternion is rejected and the previous attitude
// kept.
func (t *Tracker) SetPX4Attitude(a PX4Attitude) error {
	field, us := "timestamp_sample", a.TimestampSample
	if us == 0 {
		field, us = "timestamp", a.Timestamp
	}
	ns, err := t.auxStamp(topicAttitude, field, us, t.attStamp, t.attSeen)
	if err != nil {
		return t.fail(err)
	}
	if _, err := px4Quaternion(topicAttitude, a.Q); err != nil {
		return t.fail(err)
	}
	t.attSeen, t.attStamp, t.att = true, ns, a
	t.counters.Updates++
	return nil
}

// accept checks the mapped sample's stamp order and counts the outcome.
func (t *Tracker) accept(s *State, topic, field string, err *RejectError) (State, error) {
	if err != nil {
		return State{}, t.fail(err)
	}
	if t.lastSeen && s.StampNs <= t.last {
		what := "repeats the last belief stamp"
		if s.StampNs < t.last {
			what = "goes back from the last belief stamp " + strconv.FormatInt(t.last, 10)
		}
		return State{}, t.fail(reject(ReasonStampNotIncreasing, topic, field, s.StampNs, what))
	}
	t.lastSeen, t.last = true, s.StampNs
	t.counters.Beliefs++
	return *s, nil
}

// onPX4Clock moves a mapped estimator sample onto PX4's current time base,
// or refuses it as off that base.
func (t *Tracker) onPX4Clock(s *State, topic string, err *RejectError) *RejectError {
	if err != nil {
		return err
	}
	before, raw := t.clock.changes, s.StampNs
	m, ok := t.clock.estimator(raw)
	t.counters.TimeBaseChanges += t.clock.changes - before
	if !ok {
		return reject(ReasonTimeBase, topic, "timestamp_sample (ns)", raw,
			"off the vehicle's current time base (px4clock.go): refused unless the next samples confirm a new one")
	}
	s.StampNs = m
	return nil
}

// PX4Odometry maps a vehicle_odometry sample to a belief.
func (t *Tracker) PX4Odometry(o PX4Odometry) (State, error) {
	var s State
	err := t.onPX4Clock(&s, topicOdometry, mapPX4Odometry(&s, &o, t.Flight()))
	t.withHealth(&s)
	return t.accept(&s, topicOdometry, "timestamp_sample (ns)", err)
}

// PX4LocalPosition maps a vehicle_local_position sample to a belief, with
// the latest vehicle_attitude; before any attitude it is rejected.
func (t *Tracker) PX4LocalPosition(p PX4LocalPosition) (State, error) {
	if !t.attSeen {
		return State{}, t.fail(reject(ReasonNoAttitude, topicLocalPosition, "timestamp", p.Timestamp, "no vehicle_attitude received yet"))
	}
	fromEstimator := t.attitudeFromEstimator(&p)
	var s State
	err := t.onPX4Clock(&s, topicLocalPosition, mapPX4LocalPosition(&s, &p, &t.att, t.Flight()))
	t.withHealth(&s)
	out, err2 := t.accept(&s, topicLocalPosition, "timestamp_sample (ns)", err)
	if err2 != nil {
		return out, err2
	}
	switch {
	case fromEstimator:
		t.counters.AttitudeFromEstimator++
	case !p.HasHeadingTiltVar:
		t.counters.AttitudeUnknown++
	}
	if !p.XYValid {
		t.counters.NoHorizontalPosition++
	}
	if !p.VXYValid {
		t.counters.NoHorizontalVelocity++
	}
	return out, nil
}

// Odometry maps a nav_msgs/Odometry message to a belief.
func (t *Tracker) Odometry(o *Odometry) (State, error) {
	var s State
	err := mapOdometry(&s, o, t.Flight())
	return t.accept(&s, topicNavOdometry, "header.stamp", err)
}
