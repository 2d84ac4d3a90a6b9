package mapping

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// State is one mapped estimator sample: every value ghost publishes in a
// VehicleState for it, source-neutral (world ENU, body FLU, SI units). The
// caller adds stamp_wall_ns and the sensors list, which no source here
// provides, and converts to the wire type. A value the source does not give
// is NaN; its covariance axis, if it has one, is unknown too.
type State struct {
	// StampNs is the source's own sample time (stamp_sim_ns).
	StampNs int64
	// PositionENU is nav.position_enu_m.
	PositionENU [3]float64
	// OrientationQ is nav.orientation_q: w, x, y, z, the rotation from body
	// FLU to world ENU, unit norm, w >= 0.
	OrientationQ [4]float64
	// VelocityENU is nav.linear_velocity_world_mps.
	VelocityENU [3]float64
	// AngularVelocityENU is nav.angular_velocity_world_rps.
	AngularVelocityENU [3]float64
	// VelocityFLU is nav.linear_velocity_body_mps.
	VelocityFLU [3]float64
	// AngularVelocityFLU is nav.angular_velocity_body_rps.
	AngularVelocityFLU [3]float64
	// AccelFLU is nav.accel_body_mps2 (no source here gives it: NaN).
	AccelFLU [3]float64
	// AccelBias is nav.accel_bias_mps2 (not estimated by these sources: NaN).
	AccelBias [3]float64
	// GyroBias is nav.gyro_bias_rps (not estimated by these sources: NaN).
	GyroBias [3]float64
	// Covariance is nav.covariance_15x15, row-major over [position,
	// velocity, orientation tangent, accel bias, gyro bias]; an unknown axis
	// has NaN on its whole row and column.
	Covariance [decisions.CovarianceLen]float64
	// Flight is the flight status in force at the sample.
	Flight decisions.FlightStatus
	// Mission is always DefaultMission: these sources know no ghost mission.
	Mission decisions.MissionStatus
}

// DefaultMission is the mission status of every mapped belief: idle, no
// goal, no progress, not started.
func DefaultMission() decisions.MissionStatus {
	return decisions.MissionStatus{Mode: decisions.MissionModeIdle, StartedSimNs: decisions.NotStarted}
}

// NoFlightStatus is the flight status before any status has been observed:
// disarmed, mode init, battery unknown, FlagNoStatus set. Disarmed because
// claiming armed without evidence could let an executor act on a vehicle
// nobody has seen armed; init because it is FlightStatus's "nothing yet".
func NoFlightStatus() decisions.FlightStatus {
	return decisions.FlightStatus{Mode: decisions.FlightModeInit, BatteryV: nan, BatteryPct: nan, ErrorFlags: FlagNoStatus}
}

// Belief returns the decisions.Belief of s (with its own copy of the
// covariance).
func (s *State) Belief() decisions.Belief {
	return decisions.Belief{
		StampSimNs:   s.StampNs,
		OrientationQ: s.OrientationQ,
		Covariance:   append([]float64(nil), s.Covariance[:]...),
		Flight:       s.Flight,
		Mission:      s.Mission,
	}
}

// Assess is ADR-0020's self-assessment of s under the thresholds (the node's
// configured ones): decisions.Assess over s's stamp and covariance.
func Assess(s *State, t decisions.Thresholds) (decisions.SelfAssessment, error) {
	return decisions.Assess(s.StampNs, s.Covariance[:], t)
}
