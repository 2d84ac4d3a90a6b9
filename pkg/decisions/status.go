package decisions

import (
	"encoding/json"
	"fmt"
	"math"
	"sync/atomic"
)

// FlightMode is the autopilot mode carried by the belief (FlightStatus.msg MODE_*).
type FlightMode uint8

// Flight modes, numbered as in FlightStatus.msg.
const (
	FlightModeInit FlightMode = iota
	FlightModeManual
	FlightModeStabilize
	FlightModeOffboard
	FlightModeRTL
	FlightModeLand
	FlightModeKill
)

var flightModeNames = [...]string{"init", "manual", "stabilize", "offboard", "rtl", "land", "kill"}

// Valid reports whether m is one of the FlightStatus.msg modes.
func (m FlightMode) Valid() bool { return int(m) < len(flightModeNames) }

// String returns the mode's lowercase name, or "flight_mode(N)".
func (m FlightMode) String() string {
	if m.Valid() {
		return flightModeNames[m]
	}
	return fmt.Sprintf("flight_mode(%d)", uint8(m))
}

// FlightStatus is the autopilot status carried by the belief (FlightStatus.msg).
type FlightStatus struct {
	Armed bool
	Mode  FlightMode
	// BatteryV is the battery voltage; NaN when unknown.
	BatteryV float64
	// BatteryPct is the remaining charge as a fraction in [0, 1]; NaN when unknown.
	BatteryPct float64
	// ErrorFlags are autopilot-specific error bits.
	ErrorFlags uint64
}

// Validate checks the mode, a battery fraction in [0, 1] or unknown, and a
// voltage that is unknown or finite and >= 0.
func (f FlightStatus) Validate() error {
	if !f.Mode.Valid() {
		return invalid("FlightStatus", "flight_mode", uint8(f.Mode), "not a FlightStatus MODE_* value (0 to 6)")
	}
	if !math.IsNaN(f.BatteryPct) && !(f.BatteryPct >= 0 && f.BatteryPct <= 1) {
		return invalid("FlightStatus", "battery_pct", f.BatteryPct, "must be in [0, 1] or NaN (unknown)")
	}
	if !math.IsNaN(f.BatteryV) && (math.IsInf(f.BatteryV, 0) || f.BatteryV < 0) {
		return invalid("FlightStatus", "battery_v", f.BatteryV, "must be finite and >= 0, or NaN (unknown)")
	}
	return nil
}

// MissionMode is the mission state carried by the belief (MissionStatus.msg MODE_*).
type MissionMode uint8

// Mission modes, numbered as in MissionStatus.msg.
const (
	MissionModeIdle MissionMode = iota
	MissionModeExplore
	MissionModeNavigate
	MissionModeReturn
	MissionModeDone
	MissionModeAbort
)

var missionModeNames = [...]string{"idle", "explore", "navigate", "return", "done", "abort"}

// Valid reports whether m is one of the MissionStatus.msg modes.
func (m MissionMode) Valid() bool { return int(m) < len(missionModeNames) }

// String returns the mode's lowercase name, or "mission_mode(N)".
func (m MissionMode) String() string {
	if m.Valid() {
		return missionModeNames[m]
	}
	return fmt.Sprintf("mission_mode(%d)", uint8(m))
}

// Goal is a navigation goal (Goal.msg); position and yaw are each optional.
type Goal struct {
	HasPosition bool
	PositionENU [3]float64
	// YawRad is NaN when the goal has no yaw.
	YawRad float64
	// MetadataJSON is opaque metadata as a JSON object; "{}" when empty.
	MetadataJSON string
}

// Validate checks a finite position when present, a finite yaw or NaN, and
// metadata that is a JSON object.
func (g Goal) Validate() error {
	if g.HasPosition {
		for i, v := range g.PositionENU {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid("Goal", fmt.Sprintf("position_enu_m[%d]", i), v, "must be finite when has_position")
			}
		}
	}
	if math.IsInf(g.YawRad, 0) {
		return invalid("Goal", "yaw_rad", g.YawRad, "must be finite or NaN (no yaw)")
	}
	if !isJSONObject(g.MetadataJSON) {
		return invalid("Goal", "metadata_json", g.MetadataJSON, "must be a JSON object")
	}
	return nil
}

// isJSONObject reports whether s is valid JSON whose value is an object.
// Every belief carries a goal, validated when the Loop admits it and again
// when it is decided, and a mission's goal rarely changes: the last valid
// text is remembered, so a repeat costs one string comparison (a pointer
// comparison when the decoder shares the string) instead of a JSON scan.
func isJSONObject(s string) bool {
	if last := lastJSONObject.Load(); last != nil && *last == s {
		return true
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i >= len(s) || s[i] != '{' || !json.Valid([]byte(s)) {
		return false
	}
	if len(s) <= maxRememberedJSON {
		kept := s // only a miss moves a string header to the heap
		lastJSONObject.Store(&kept)
	}
	return true
}

// lastJSONObject is the last text isJSONObject accepted, when at most
// maxRememberedJSON bytes (a large one is not kept alive).
var lastJSONObject atomic.Pointer[string]

const maxRememberedJSON = 4096

// MissionStatus is the mission state carried by the belief (MissionStatus.msg).
type MissionStatus struct {
	Mode MissionMode
	// Goal is the current goal, nil when there is none.
	Goal *Goal
	// Progress is a fraction in [0, 1].
	Progress float64
	// StartedSimNs is -1 when the mission has not started, otherwise >= 0.
	StartedSimNs int64
}

// NotStarted is the StartedSimNs of a mission that has not started.
const NotStarted = -1

// Validate checks the mode, progress in [0, 1], the start stamp and the goal.
func (m MissionStatus) Validate() error {
	if !m.Mode.Valid() {
		return invalid("MissionStatus", "mode", uint8(m.Mode), "not a MissionStatus MODE_* value (0 to 5)")
	}
	if !(m.Progress >= 0 && m.Progress <= 1) {
		return invalid("MissionStatus", "progress", m.Progress, "must be in [0, 1]")
	}
	if m.StartedSimNs < NotStarted {
		return invalid("MissionStatus", "started_sim_ns", m.StartedSimNs, "must be -1 (not started) or >= 0")
	}
	if m.Goal != nil {
		if err := m.Goal.Validate(); err != nil {
			return fmt.Errorf("MissionStatus.current_goal[0]: %w", err)
		}
	}
	return nil
}

// Equal reports whether m and o hold the same values (goals compared by
// value, floats bit for bit so NaN equals NaN).
func (m MissionStatus) Equal(o MissionStatus) bool {
	if m.Mode != o.Mode || !sameFloat(m.Progress, o.Progress) || m.StartedSimNs != o.StartedSimNs {
		return false
	}
	if (m.Goal == nil) != (o.Goal == nil) {
		return false
	}
	if m.Goal == nil {
		return true
	}
	g, h := m.Goal, o.Goal
	return g.HasPosition == h.HasPosition && sameFloat(g.YawRad, h.YawRad) && g.MetadataJSON == h.MetadataJSON &&
		sameFloat(g.PositionENU[0], h.PositionENU[0]) && sameFloat(g.PositionENU[1], h.PositionENU[1]) &&
		sameFloat(g.PositionENU[2], h.PositionENU[2])
}

// PerceptionMode is what the perception mode detector reports
// (PerceptionMode.msg MODE_*, ADR-0008/0010).
type PerceptionMode uint8

// Perception modes, numbered as in PerceptionMode.msg.
const (
	PerceptionNominal PerceptionMode = iota
	PerceptionLowTexture
	PerceptionLowLight
	PerceptionIMUSaturation
	PerceptionVIOLost
	PerceptionMapAmbiguous
	PerceptionMotionAggressive
	PerceptionDead
)

var perceptionModeNames = [...]string{
	"nominal", "low_texture", "low_light", "imu_saturation", "vio_lost", "map_ambiguous", "motion_aggressive", "perception_dead",
}

// Valid reports whether m is one of the PerceptionMode.msg modes.
func (m PerceptionMode) Valid() bool { return int(m) < len(perceptionModeNames) }

// String returns the mode's snake_case name, or "perception_mode(N)".
func (m PerceptionMode) String() string {
	if m.Valid() {
		return perceptionModeNames[m]
	}
	return fmt.Sprintf("perception_mode(%d)", uint8(m))
}

// PerceptionReport is one report of the mode detector, in force from its
// stamp until the next report (PerceptionMode.msg).
type PerceptionReport struct {
	StampSimNs int64
	Mode       PerceptionMode
}

// Validate checks stamp >= 0 and the mode.
func (p PerceptionReport) Validate() error {
	if p.StampSimNs < 0 {
		return invalid("PerceptionMode", "stamp_sim_ns", p.StampSimNs, "must be >= 0")
	}
	if !p.Mode.Valid() {
		return invalid("PerceptionMode", "mode", uint8(p.Mode), "not a PerceptionMode MODE_* value (0 to 7)")
	}
	return nil
}

// sameFloat compares bit for bit, so NaN equals NaN and -0.0 differs from 0.0.
func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
