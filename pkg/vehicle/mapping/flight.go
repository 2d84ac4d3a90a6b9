package mapping

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
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

// ModeFromNavState maps a PX4 nav_state to a FlightStatus mode; ok is false
// for the modes FlightStatus has no name for (they map to init).
//
// Pilot-flown without assistance (MANUAL, ACRO) is manual; pilot-flown with
// the autopilot holding attitude, altitude or position (STAB, ALTCTL,
// POSCTL, POSITION_SLOW) is stabilize.
func ModeFromNavState(navState uint8) (mode decisions.FlightMode, ok bool) {
	switch navState {
	case px4.NavStateManual, px4.NavStateAcro:
		return decisions.FlightModeManual, true
	case px4.NavStateStab, px4.NavStateAltctl, px4.NavStatePosctl, px4.NavStatePositionSlow:
		return decisions.FlightModeStabilize, true
	case px4.NavStateOffboard:
		return decisions.FlightModeOffboard, true
	case px4.NavStateAutoRTL:
		return decisions.FlightModeRTL, true
	case px4.NavStateAutoLand, px4.NavStateDescend, px4.NavStateAutoPrecland:
		return decisions.FlightModeLand, true
	case px4.NavStateTermination:
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
