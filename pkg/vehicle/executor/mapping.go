package executor

import (
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// Mapping gives the command a decision kind is sent as and the vehicle
// state that shows it took effect.
type Mapping func(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error)

// PX4Kinds are the kinds PX4Command maps: every kind that asks the
// vehicle to do something (proceed and abstain_uncertain ask nothing).
func PX4Kinds() []decisions.Kind {
	return []decisions.Kind{decisions.KindHold, decisions.KindYieldToPilot, decisions.KindEngageRTL,
		decisions.KindEngageLand, decisions.KindEngageKill}
}

// PX4Command is the documented mapping of decision kinds to PX4 commands
// (VehicleCommand ids and parameters as PX4's Commander reads them) and
// the VehicleStatus that shows each took effect:
//
//	hold            DO_SET_MODE (176) 1, 4 (AUTO), 3 (LOITER)   nav_state 4 AUTO_LOITER
//	yield_to_pilot  DO_SET_MODE (176) 1, 3 (POSCTL)             nav_state 2 POSCTL
//	engage_rtl      NAV_RETURN_TO_LAUNCH (20)                   nav_state 5 AUTO_RTL
//	engage_land     NAV_LAND (21), yaw/lat/lon/alt NaN (current) nav_state 18 AUTO_LAND
//	engage_kill     COMPONENT_ARM_DISARM (400) 0, 21196 (forced) disarmed
//
// DO_SET_MODE takes unpacked main and sub modes (param2, param3) with
// MAV_MODE_FLAG_CUSTOM_MODE_ENABLED in param1. Kill is a forced disarm,
// not DO_FLIGHTTERMINATION: termination is blocked by a circuit breaker by
// default and cannot be undone in flight. Every parameter not listed is 0.
func PX4Command(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error) {
	nan := math.NaN()
	mode := func(m uint8) engine.Expectation { return engine.Expectation{Mode: m, HasMode: true} }
	switch k {
	case decisions.KindHold:
		return engine.VehicleCommand{ID: px4.CmdDoSetMode, Params: [7]float64{px4.ModeFlagCustomModeEnabled, px4.MainModeAuto, px4.AutoSubModeLoiter}},
			mode(px4.NavStateAutoLoiter), nil
	case decisions.KindYieldToPilot:
		return engine.VehicleCommand{ID: px4.CmdDoSetMode, Params: [7]float64{px4.ModeFlagCustomModeEnabled, px4.MainModePosctl}},
			mode(px4.NavStatePosctl), nil
	case decisions.KindEngageRTL:
		return engine.VehicleCommand{ID: px4.CmdNavReturnToLaunch}, mode(px4.NavStateAutoRTL), nil
	case decisions.KindEngageLand:
		return engine.VehicleCommand{ID: px4.CmdNavLand, Params: [7]float64{3: nan, 4: nan, 5: nan, 6: nan}}, mode(px4.NavStateAutoLand), nil
	case decisions.KindEngageKill:
		return engine.VehicleCommand{ID: px4.CmdComponentArmDisarm, Params: [7]float64{px4.ArmingActionDisarm, px4.ForceArmDisarmMagic}},
			engine.Expectation{Disarmed: true}, nil
	}
	return engine.VehicleCommand{}, engine.Expectation{}, fmt.Errorf("executor: %s asks the vehicle for nothing: no PX4 command", k)
}

// ToPX4 fills a px4.Command from a request: the command and parameters of
// the mapping, addressed to the request's vehicle (component 1, the
// autopilot) from source, with the retry count in confirmation as MAVLink
// asks.
func ToPX4(req session.ActionRequest, sourceSystem uint8, sourceComponent uint16) (px4.Command, error) {
	if req.Vehicle > math.MaxUint8 {
		return px4.Command{}, fmt.Errorf("executor: target vehicle %d: a PX4 system id is 0 to 255", req.Vehicle)
	}
	p := req.Command.Params
	c := px4.Command{
		TimestampUs: uint64(max(req.TimeNs, 0)) / 1000,
		Command:     req.Command.ID,
		Param1:      float32(p[0]), Param2: float32(p[1]), Param3: float32(p[2]), Param4: float32(p[3]),
		Param5: p[4], Param6: p[5], Param7: float32(p[6]),
		TargetSystem: uint8(req.Vehicle), TargetComponent: 1,
		SourceSystem: sourceSystem, SourceComponent: sourceComponent,
		FromExternal: true,
	}
	if req.Attempt > 1 {
		c.Confirmation = req.Attempt - 1
	}
	return c, nil
}
