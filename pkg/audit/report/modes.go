package report

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// agreement says how the vehicle's flight mode compares with a decided
// kind.
type agreement uint8

const (
	notCompared agreement = iota
	agrees
	differs
)

// modeMapping is the flight mode each kind expects, as the report's legend
// states it (ModeMapping). FlightStatus names no loiter or hold mode (PX4's
// AUTO_LOITER reads init), so hold agrees with no named mode.
var modeMapping = [decisions.NumKinds]struct {
	modes uint16 // bit m: mode m agrees
	text  string
}{
	decisions.KindProceed:          {modeBits(decisions.FlightModeManual, decisions.FlightModeStabilize, decisions.FlightModeOffboard), "manual, stabilize or offboard: the mission or the pilot flies; rtl, land or kill differ"},
	decisions.KindHold:             {0, "loiter or hold, which FlightStatus cannot name (PX4 loiter reads init): every named mode differs"},
	decisions.KindYieldToPilot:     {modeBits(decisions.FlightModeManual, decisions.FlightModeStabilize), "manual or stabilize"},
	decisions.KindEngageRTL:        {modeBits(decisions.FlightModeRTL), "rtl"},
	decisions.KindEngageLand:       {modeBits(decisions.FlightModeLand), "land (or disarmed, landed)"},
	decisions.KindEngageKill:       {modeBits(decisions.FlightModeKill), "kill (or disarmed)"},
	decisions.KindAbstainUncertain: {0, "none: abstaining commands nothing, so nothing is compared"},
}

func modeBits(ms ...decisions.FlightMode) uint16 {
	var b uint16
	for _, m := range ms {
		b |= 1 << m
	}
	return b
}

// compareMode compares one decided kind with one flight mode of an armed
// or disarmed vehicle. Nothing is compared for abstain_uncertain, for mode
// init (FlightStatus names no mode: before the first status, or a mode it
// has no name for) and for values outside the catalogs; a disarmed vehicle
// agrees with land and kill and is otherwise not compared.
func compareMode(k decisions.Kind, m decisions.FlightMode, armed bool) agreement {
	switch {
	case !k.Valid() || k == decisions.KindAbstainUncertain:
		return notCompared
	case !armed:
		if k == decisions.KindEngageLand || k == decisions.KindEngageKill {
			return agrees
		}
		return notCompared
	case !m.Valid() || m == decisions.FlightModeInit:
		return notCompared
	case modeMapping[k].modes&(1<<m) != 0:
		return agrees
	}
	return differs
}

// bucketAgreement compares a time slice's decided kinds with its flight
// modes and arming: it differs only when no pair agrees and one differs,
// so a slice in which the decision or the mode changes is not flagged for
// the change itself. It returns the kind and mode of a differing pair.
func bucketAgreement(b *Bucket) (agreement, decisions.Kind, decisions.FlightMode) {
	if b.Kinds == 0 || b.Modes == 0 || b.Armed == 0 {
		return notCompared, 0, 0
	}
	res, dk, dm := notCompared, decisions.Kind(0), decisions.FlightMode(0)
	for _, k := range kindOrder {
		if b.Kinds&(1<<k) == 0 {
			continue
		}
		for m := decisions.FlightMode(0); m.Valid(); m++ {
			if b.Modes&(1<<m) == 0 {
				continue
			}
			for _, armed := range []bool{false, true} {
				if b.Armed&(1<<btoi(armed)) == 0 {
					continue
				}
				switch compareMode(k, m, armed) {
				case agrees:
					return agrees, k, m
				case differs:
					res, dk, dm = differs, k, m
				}
			}
		}
	}
	return res, dk, dm
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ModeMapping returns, for each kind in the legend's order, the flight
// modes that agree with it, in words.
func ModeMapping() [][2]string {
	var out [][2]string
	for _, k := range kindOrder {
		out = append(out, [2]string{k.String(), modeMapping[k].text})
	}
	return out
}
