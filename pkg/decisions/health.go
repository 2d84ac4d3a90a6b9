package decisions

import "strconv"

// Health is what a belief says of the vehicle's GNSS receiver, of its
// estimator and of its autopilot's own failsafe checks, as PX4 reports
// them (sensor_gps, estimator_status_flags, failsafe_flags). It travels in
// the belief, in bits of FlightStatus.ErrorFlags (HealthMask; the layout is
// below), so a recorded belief carries it and replay and verify decide on
// it again from the recording alone. A belief without those bits reports
// none of it: a policy that reads it then cannot be evaluated (missing
// gnss, estimator or px4_failsafe), rather than reading "healthy".
//
// ErrorFlags layout (the bits outside HealthMask belong to the source's
// mapping: bit 0 no status, bit 1 mode not representable, bits 8 to 15
// PX4's battery warning):
//
//	bits 16-19  GNSS fix (GNSSFix; 0: not reported)
//	bits 20-27  GNSS satellites used
//	bit  28     estimator flags reported
//	bit  29     dead_reckoning reported (PX4 1.13 and later publish it)
//	bits 30-35  estimator flags (EstimatorFlag)
//	bit  36     failsafe flags reported
//	bit  37     navigator_failure reported (PX4 1.16 and later)
//	bits 38-62  failsafe flags (FailsafeFlag)
type Health struct {
	// Fix is the receiver's fix; GNSSFixUnknown when no receiver reported.
	Fix GNSSFix
	// Satellites is the number of satellites the receiver uses (with a
	// reported Fix only).
	Satellites uint8
	// EstimatorReported: Estimator holds the estimator's flags, one bit
	// per EstimatorFlag. DeadReckoningReported: its dead_reckoning bit is
	// one the estimator reported (older releases have no such flag).
	EstimatorReported, DeadReckoningReported bool
	Estimator                                uint8
	// FailsafeReported: Failsafe holds the autopilot's failsafe flags, one
	// bit per FailsafeFlag. NavigatorFailureReported: its
	// navigator_failure bit is one the autopilot reported.
	FailsafeReported, NavigatorFailureReported bool
	Failsafe                                   uint32
}

// Bits of FlightStatus.ErrorFlags that hold Health.
const (
	healthFixShift           = 16
	healthSatShift           = 20
	healthEstReported        = 1 << 28
	healthDRReported         = 1 << 29
	healthEstShift           = 30
	healthFSReported         = 1 << 36
	healthNavReported        = 1 << 37
	healthFSShift            = 38
	HealthMask        uint64 = (1<<63 - 1) &^ (1<<healthFixShift - 1)
)

// Flags returns h in the ErrorFlags layout.
func (h Health) Flags() uint64 {
	f := uint64(h.Fix&0xf) << healthFixShift
	if h.Fix != GNSSFixUnknown {
		f |= uint64(h.Satellites) << healthSatShift
	}
	if h.EstimatorReported {
		f |= healthEstReported | uint64(h.Estimator&(1<<NumEstimatorFlags-1))<<healthEstShift
		if h.DeadReckoningReported {
			f |= healthDRReported
		}
	}
	if h.FailsafeReported {
		f |= healthFSReported | uint64(h.Failsafe&(1<<NumFailsafeFlags-1))<<healthFSShift
		if h.NavigatorFailureReported {
			f |= healthNavReported
		}
	}
	return f
}

// HealthOf reads the health bits of flags (ErrorFlags). A flag whose
// reported bit is clear reads as not raised.
func HealthOf(flags uint64) Health {
	h := Health{Fix: GNSSFix(flags >> healthFixShift & 0xf)}
	if h.Fix != GNSSFixUnknown {
		h.Satellites = uint8(flags >> healthSatShift)
	}
	if flags&healthEstReported != 0 {
		h.EstimatorReported = true
		h.DeadReckoningReported = flags&healthDRReported != 0
		h.Estimator = uint8(flags>>healthEstShift) & (1<<NumEstimatorFlags - 1)
	}
	if flags&healthFSReported != 0 {
		h.FailsafeReported = true
		h.NavigatorFailureReported = flags&healthNavReported != 0
		h.Failsafe = uint32(flags>>healthFSShift) & (1<<NumFailsafeFlags - 1)
	}
	return h
}

// Health returns the health the flight status carries.
func (f FlightStatus) Health() Health { return HealthOf(f.ErrorFlags) }

// EstimatorFlag reports whether estimator flag e is set; known is false when the
// estimator did not report it.
func (h Health) EstimatorFlag(e EstimatorFlag) (set, known bool) {
	known = h.EstimatorReported && (e != EstimatorDeadReckoning || h.DeadReckoningReported)
	return known && h.Estimator>>e&1 == 1, known
}

// FailsafeFlag reports whether failsafe flag g is raised; known is false
// when the autopilot did not report it.
func (h Health) FailsafeFlag(g FailsafeFlag) (raised, known bool) {
	known = h.FailsafeReported && (g != FailsafeNavigatorFailure || h.NavigatorFailureReported)
	return known && h.Failsafe>>g&1 == 1, known
}

// GNSSFix is a GNSS receiver's fix, ordered from none to the best, as
// PX4's sensor_gps fix_type orders them (extrapolated, fix_type 8, last).
type GNSSFix uint8

// GNSS fixes.
const (
	// GNSSFixUnknown: no receiver reported.
	GNSSFixUnknown GNSSFix = iota
	// GNSSNoFix: fix_type 0 or 1, a value PX4 does not define, or a
	// receiver silent for longer than the source's timeout.
	GNSSNoFix
	GNSSFix2D
	GNSSFix3D
	// GNSSFixDGPS: RTCM code differential (fix_type 4).
	GNSSFixDGPS
	GNSSFixRTKFloat
	GNSSFixRTKFixed
	// GNSSFixExtrapolated: the receiver extrapolates (fix_type 8).
	GNSSFixExtrapolated
	// NumGNSSFixes is the number of GNSSFix values.
	NumGNSSFixes
)

var gnssFixNames = [NumGNSSFixes]string{"unknown", "no_fix", "2d", "3d", "dgps", "rtk_float", "rtk_fixed", "extrapolated"}

// String returns the fix's name ("3d"), or "gnss_fix(N)".
func (g GNSSFix) String() string {
	if g < NumGNSSFixes {
		return gnssFixNames[g]
	}
	return "gnss_fix(" + strconv.Itoa(int(g)) + ")"
}

// GNSSFixFromPX4 maps sensor_gps.fix_type (0-1 no fix, 2 2D, 3 3D, 4 RTCM
// code differential, 5 RTK float, 6 RTK fixed, 8 extrapolated) to a
// GNSSFix; a value PX4 does not define is no usable fix.
func GNSSFixFromPX4(fixType uint8) GNSSFix {
	switch {
	case fixType >= 2 && fixType <= 6:
		return GNSSFix(fixType)
	case fixType == 8:
		return GNSSFixExtrapolated
	}
	return GNSSNoFix
}

// EstimatorFlag is one flag of the estimator's health that policies read.
type EstimatorFlag uint8

// Estimator flags, as PX4's estimator_status_flags (and, before it,
// estimator_status.control_mode_flags) name them.
const (
	// EstimatorGNSSFused: GNSS position is fused (cs_gps; cs_gnss_pos from
	// PX4 1.16; control_mode_flags bit 2).
	EstimatorGNSSFused EstimatorFlag = iota
	// EstimatorGNSSHeightFused: GNSS height is the height reference
	// (cs_gps_hgt; bit 11).
	EstimatorGNSSHeightFused
	// EstimatorDeadReckoning: nothing constrains the horizontal velocity
	// drift any more (cs_inertial_dead_reckoning, PX4 1.13 and later).
	EstimatorDeadReckoning
	// EstimatorTiltAligned, EstimatorYawAligned: the alignments are
	// complete (cs_tilt_align, cs_yaw_align; bits 0 and 1).
	EstimatorTiltAligned
	EstimatorYawAligned
	// EstimatorMagFault: the magnetometer was declared faulty
	// (cs_mag_fault; bit 18).
	EstimatorMagFault
	// NumEstimatorFlags is the number of estimator flags.
	NumEstimatorFlags
)

var estimatorFlagNames = [NumEstimatorFlags]string{"gps_fused", "gps_height_fused", "dead_reckoning", "tilt_aligned", "yaw_aligned", "mag_fault"}

// String returns the flag's policy name ("gps_fused").
func (e EstimatorFlag) String() string {
	if e < NumEstimatorFlags {
		return estimatorFlagNames[e]
	}
	return "estimator_flag(" + strconv.Itoa(int(e)) + ")"
}

// FailsafeFlag is one of PX4's failsafe_flags booleans, named as PX4 names
// it (primary_geofence_breached of PX4 1.14 is geofence_breached).
type FailsafeFlag uint8

// Failsafe flags, in PX4's field order.
const (
	FailsafeAngularVelocityInvalid FailsafeFlag = iota
	FailsafeAttitudeInvalid
	FailsafeLocalAltitudeInvalid
	FailsafeLocalPositionInvalid
	FailsafeLocalPositionInvalidRelaxed
	FailsafeLocalVelocityInvalid
	FailsafeGlobalPositionInvalid
	FailsafeAutoMissionMissing
	FailsafeOffboardControlSignalLost
	FailsafeHomePositionInvalid
	FailsafeManualControlSignalLost
	FailsafeGCSConnectionLost
	FailsafeBatteryLowRemainingTime
	FailsafeBatteryUnhealthy
	FailsafeGeofenceBreached
	FailsafeMissionFailure
	FailsafeVTOLFixedWingSystemFailure
	FailsafeWindLimitExceeded
	FailsafeFlightTimeLimitExceeded
	FailsafeLocalPositionAccuracyLow
	// FailsafeNavigatorFailure exists from PX4 1.16.
	FailsafeNavigatorFailure
	FailsafeFDCriticalFailure
	FailsafeFDESCArmingFailure
	FailsafeFDImbalancedProp
	FailsafeFDMotorFailure
	// NumFailsafeFlags is the number of failsafe flags.
	NumFailsafeFlags
)

var failsafeFlagNames = [NumFailsafeFlags]string{
	"angular_velocity_invalid", "attitude_invalid", "local_altitude_invalid", "local_position_invalid",
	"local_position_invalid_relaxed", "local_velocity_invalid", "global_position_invalid", "auto_mission_missing",
	"offboard_control_signal_lost", "home_position_invalid", "manual_control_signal_lost", "gcs_connection_lost",
	"battery_low_remaining_time", "battery_unhealthy", "geofence_breached", "mission_failure",
	"vtol_fixed_wing_system_failure", "wind_limit_exceeded", "flight_time_limit_exceeded", "local_position_accuracy_low",
	"navigator_failure", "fd_critical_failure", "fd_esc_arming_failure", "fd_imbalanced_prop", "fd_motor_failure",
}

// String returns PX4's name of the flag ("global_position_invalid").
func (g FailsafeFlag) String() string {
	if g < NumFailsafeFlags {
		return failsafeFlagNames[g]
	}
	return "failsafe_flag(" + strconv.Itoa(int(g)) + ")"
}
