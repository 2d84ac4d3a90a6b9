package mapping

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Bits of FlightStatus.error_flags this mapping sets. error_flags are
// autopilot-specific; these keep what the mode and battery fields cannot say.
const (
	// FlagNoStatus: no flight status has been observed (no vehicle_status
	// yet, or a source without one): armed and mode are the defaults
	// (disarmed, init), not observations.
	FlagNoStatus uint64 = 1 << 0
	// FlagModeUnmapped: the autopilot is in a mode FlightStatus cannot name
	// (e.g. PX4 AUTO_MISSION or AUTO_LOITER); the mode reads init.
	FlagModeUnmapped uint64 = 1 << 1
	// FlagBatteryWarningShift: bits 8 to 15 hold PX4 battery_status.warning
	// as received (0 NONE, 1 LOW, 2 CRITICAL, 3 EMERGENCY, 4 FAILED, ...).
	FlagBatteryWarningShift = 8
	// FlagBatteryWarningMask selects the battery warning bits.
	FlagBatteryWarningMask uint64 = 0xff << FlagBatteryWarningShift
)

// PX4 vehicle_status nav_state values (stable from 1.14 to 1.16).
const (
	NavStateManual       uint8 = 0
	NavStateAltCtl       uint8 = 1
	NavStatePosCtl       uint8 = 2
	NavStateAutoMission  uint8 = 3
	NavStateAutoLoiter   uint8 = 4
	NavStateAutoRTL      uint8 = 5
	NavStatePositionSlow uint8 = 6 // 1.15+
	NavStateAcro         uint8 = 10
	NavStateDescend      uint8 = 12
	NavStateTermination  uint8 = 13
	NavStateOffboard     uint8 = 14
	NavStateStab         uint8 = 15
	NavStateAutoTakeoff  uint8 = 17
	NavStateAutoLand     uint8 = 18
	NavStateAutoPrecLand uint8 = 20
	NavStateOrbit        uint8 = 21
)

// ModeFromNavState maps a PX4 nav_state to a FlightStatus mode; ok is false
// for the modes FlightStatus has no name for (they map to init).
//
// Pilot-flown without assistance (MANUAL, ACRO) is manual; pilot-flown with
// the autopilot holding attitude, altitude or position (STAB, ALTCTL,
// POSCTL, POSITION_SLOW) is stabilize.
func ModeFromNavState(navState uint8) (mode decisions.FlightMode, ok bool) {
	switch navState {
	case NavStateManual, NavStateAcro:
		return decisions.FlightModeManual, true
	case NavStateStab, NavStateAltCtl, NavStatePosCtl, NavStatePositionSlow:
		return decisions.FlightModeStabilize, true
	case NavStateOffboard:
		return decisions.FlightModeOffboard, true
	case NavStateAutoRTL:
		return decisions.FlightModeRTL, true
	case NavStateAutoLand, NavStateDescend, NavStateAutoPrecLand:
		return decisions.FlightModeLand, true
	case NavStateTermination:
		return decisions.FlightModeKill, true
	}
	return decisions.FlightModeInit, false
}

// batteryFraction returns a remaining-charge fraction in [0, 1], or NaN for
// anything else: PX4's -1 and ROS's NaN mean unknown, and an out-of-range
// value is most often a unit error (a percentage 0 to 100) that clamping
// would turn into a false claim.
func batteryFraction(f float32) float64 {
	if v := float64(f); v >= 0 && v <= 1 {
		return v + 0
	}
	return nan
}

// batteryVoltage returns a positive finite voltage, or NaN (unknown) for
// zero, negative or non-finite values (drivers publish 0 for "not measured").
func batteryVoltage(f float32) float64 {
	if v := float64(f); v > 0 && v <= math.MaxFloat64 {
		return v
	}
	return nan
}
