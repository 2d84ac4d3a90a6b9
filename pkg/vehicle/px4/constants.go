package px4

import "strconv"

// VehicleStatus.nav_state values. Values 0-5, 10, 12-15, 17-22 are the
// same in 1.14, 1.15 and 1.16; NavStatePositionSlow and NavStateExternal1-8
// exist from 1.15.
const (
	NavStateManual           uint8 = 0
	NavStateAltctl           uint8 = 1
	NavStatePosctl           uint8 = 2
	NavStateAutoMission      uint8 = 3
	NavStateAutoLoiter       uint8 = 4
	NavStateAutoRTL          uint8 = 5
	NavStatePositionSlow     uint8 = 6 // 1.15+
	NavStateAcro             uint8 = 10
	NavStateDescend          uint8 = 12
	NavStateTermination      uint8 = 13
	NavStateOffboard         uint8 = 14
	NavStateStab             uint8 = 15
	NavStateAutoTakeoff      uint8 = 17
	NavStateAutoLand         uint8 = 18
	NavStateAutoFollowTarget uint8 = 19
	NavStateAutoPrecland     uint8 = 20
	NavStateOrbit            uint8 = 21
	NavStateAutoVTOLTakeoff  uint8 = 22
	NavStateExternal1        uint8 = 23 // 1.15+, through NavStateExternal8 = 30
	NavStateExternal8        uint8 = 30 // 1.15+
)

var navStateNames = map[uint8]string{
	NavStateManual: "MANUAL", NavStateAltctl: "ALTCTL", NavStatePosctl: "POSCTL",
	NavStateAutoMission: "AUTO_MISSION", NavStateAutoLoiter: "AUTO_LOITER", NavStateAutoRTL: "AUTO_RTL",
	NavStateAcro: "ACRO", NavStateDescend: "DESCEND", NavStateTermination: "TERMINATION",
	NavStateOffboard: "OFFBOARD", NavStateStab: "STAB", NavStateAutoTakeoff: "AUTO_TAKEOFF",
	NavStateAutoLand: "AUTO_LAND", NavStateAutoFollowTarget: "AUTO_FOLLOW_TARGET",
	NavStateAutoPrecland: "AUTO_PRECLAND", NavStateOrbit: "ORBIT", NavStateAutoVTOLTakeoff: "AUTO_VTOL_TAKEOFF",
}

// NavStateMax returns the release's NAVIGATION_STATE_MAX: nav_state is
// below it.
func NavStateMax(rel Release) uint8 {
	if rel == Release114 {
		return 23
	}
	return 31
}

// NavStateName names a nav_state value for logs ("AUTO_LOITER"), or
// "UNKNOWN(n)" for a value the release does not define.
func NavStateName(rel Release, v uint8) string {
	if s, ok := navStateNames[v]; ok {
		return s
	}
	if rel != Release114 && rel.Valid() {
		switch {
		case v == NavStatePositionSlow:
			return "POSITION_SLOW"
		case v >= NavStateExternal1 && v <= NavStateExternal8:
			return "EXTERNAL" + strconv.Itoa(int(v-NavStateExternal1+1))
		}
	}
	return "UNKNOWN(" + strconv.Itoa(int(v)) + ")"
}

// VehicleStatus.arming_state values. 1.14 has the full state machine
// (INIT 0, STANDBY 1, ARMED 2, STANDBY_ERROR 3, SHUTDOWN 4,
// IN_AIR_RESTORE 5); 1.15 and later keep only DISARMED 1 and ARMED 2.
const (
	ArmingStateInit         uint8 = 0 // 1.14
	ArmingStateStandby      uint8 = 1 // 1.14
	ArmingStateDisarmed     uint8 = 1 // 1.15+
	ArmingStateArmed        uint8 = 2
	ArmingStateStandbyError uint8 = 3 // 1.14
	ArmingStateShutdown     uint8 = 4 // 1.14
	ArmingStateInAirRestore uint8 = 5 // 1.14
)

// ArmedState returns the arming_state value meaning armed in rel: 2 in
// every supported release, although the other states differ; status
// extraction asks here so a release that changes it changes one place.
func ArmedState(rel Release) uint8 {
	_ = rel
	return ArmingStateArmed
}

// VehicleCommandAck.result values are MAVLink's MAV_RESULT:
// decisions.AckResult holds them.

// VehicleCommand.command ids ghost sends.
const (
	CmdNavReturnToLaunch      uint32 = 20
	CmdNavLand                uint32 = 21
	CmdDoSetMode              uint32 = 176
	CmdDoFlightTermination    uint32 = 185
	CmdComponentArmDisarm     uint32 = 400
	CmdSetNavState            uint32 = 100001 // 1.15+, PX4-internal, DDS only
	ArmingActionDisarm               = 0      // COMPONENT_ARM_DISARM param1
	ArmingActionArm                  = 1      // COMPONENT_ARM_DISARM param1
	ForceArmDisarmMagic              = 21196  // COMPONENT_ARM_DISARM param2: skip the landed check
	ModeFlagCustomModeEnabled        = 1      // DO_SET_MODE param1 (MAV_MODE_FLAG_CUSTOM_MODE_ENABLED)
)

// PX4 custom main modes (DO_SET_MODE param2).
const (
	MainModeManual     = 1
	MainModeAltctl     = 2
	MainModePosctl     = 3
	MainModeAuto       = 4
	MainModeAcro       = 5
	MainModeOffboard   = 6
	MainModeStabilized = 7
)

// PX4 AUTO sub-modes (DO_SET_MODE param3 with MainModeAuto).
const (
	AutoSubModeReady   = 1
	AutoSubModeTakeoff = 2
	AutoSubModeLoiter  = 3
	AutoSubModeMission = 4
	AutoSubModeRTL     = 5
	AutoSubModeLand    = 6
)

// BatteryStatus.warning values.
const (
	BatteryWarningNone      uint8 = 0
	BatteryWarningLow       uint8 = 1
	BatteryWarningCritical  uint8 = 2
	BatteryWarningEmergency uint8 = 3
	BatteryWarningFailed    uint8 = 4
	BatteryStateUnhealthy   uint8 = 6
	BatteryStateCharging    uint8 = 7
)

// VehicleOdometry frame values.
const (
	PoseFrameUnknown     uint8 = 0
	PoseFrameNED         uint8 = 1
	PoseFrameFRD         uint8 = 2
	VelocityFrameUnknown uint8 = 0
	VelocityFrameNED     uint8 = 1
	VelocityFrameFRD     uint8 = 2
	VelocityFrameBodyFRD uint8 = 3
)
