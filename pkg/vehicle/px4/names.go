package px4

import "strconv"

// commandNames are the MAVLink names (MAV_CMD_ without its prefix) of the
// VehicleCommand ids ghost sends; PX4's own SET_NAV_STATE has no MAVLink
// number and keeps its px4_msgs name.
var commandNames = map[uint32]string{
	CmdNavReturnToLaunch:   "NAV_RETURN_TO_LAUNCH",
	CmdNavLand:             "NAV_LAND",
	CmdDoSetMode:           "DO_SET_MODE",
	CmdDoFlightTermination: "DO_FLIGHT_TERMINATION",
	CmdComponentArmDisarm:  "COMPONENT_ARM_DISARM",
	CmdSetNavState:         "SET_NAV_STATE",
}

// CommandName names a VehicleCommand id for people ("NAV_LAND"), or
// "COMMAND(n)" for one ghost does not send.
func CommandName(id uint32) string {
	if s, ok := commandNames[id]; ok {
		return s
	}
	return "COMMAND(" + strconv.FormatUint(uint64(id), 10) + ")"
}

// NavStateLabel names a nav_state value as the newest supported release
// does ("AUTO_LOITER"), for readers that do not know the vehicle's
// release: the releases agree on every value they share.
func NavStateLabel(v uint8) string { return NavStateName(Release116, v) }
