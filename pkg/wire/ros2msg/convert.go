package ros2msg

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Conversions between the wire structs of the CDR codec and the contracts of
// pkg/decisions, one pair per concept. They copy field by field and do not
// validate: enum values outside their catalog are carried as they are (the
// decisions types can hold them and their Validate methods report them).
// Only what a domain type cannot represent is an error.

// ThresholdsFromWire converts AssessmentThresholds.
func ThresholdsFromWire(m *AssessmentThresholds) decisions.Thresholds {
	return decisions.Thresholds{
		PositionKnownStdM:        m.PositionKnownStdM,
		PositionUnknownStdM:      m.PositionUnknownStdM,
		VelocityKnownStdMps:      m.VelocityKnownStdMps,
		VelocityUnknownStdMps:    m.VelocityUnknownStdMps,
		OrientationKnownStdRad:   m.OrientationKnownStdRad,
		OrientationUnknownStdRad: m.OrientationUnknownStdRad,
		SchemaVersion:            m.SchemaVersion,
	}
}

// ThresholdsToWire converts decisions.Thresholds.
func ThresholdsToWire(t decisions.Thresholds) AssessmentThresholds {
	return AssessmentThresholds{
		PositionKnownStdM:        t.PositionKnownStdM,
		PositionUnknownStdM:      t.PositionUnknownStdM,
		VelocityKnownStdMps:      t.VelocityKnownStdMps,
		VelocityUnknownStdMps:    t.VelocityUnknownStdMps,
		OrientationKnownStdRad:   t.OrientationKnownStdRad,
		OrientationUnknownStdRad: t.OrientationUnknownStdRad,
		SchemaVersion:            t.SchemaVersion,
	}
}

// SelfAssessmentFromWire converts BeliefSelfAssessment, mapping its nine
// named std and level fields onto the block*3+axis indexing of
// decisions.SelfAssessment. A NaN std ("none") stays NaN, as the domain type
// represents none.
func SelfAssessmentFromWire(m *BeliefSelfAssessment) decisions.SelfAssessment {
	lv := func(v uint8) decisions.Level { return decisions.Level(v) }
	return decisions.SelfAssessment{
		BeliefStampSimNs: m.BeliefStampSimNs,
		Std: [9]float64{
			m.PositionAxisXStdM, m.PositionAxisYStdM, m.PositionAxisZStdM,
			m.VelocityAxisXStdMps, m.VelocityAxisYStdMps, m.VelocityAxisZStdMps,
			m.OrientationAxisXStdRad, m.OrientationAxisYStdRad, m.OrientationAxisZStdRad,
		},
		AxisLevel: [9]decisions.Level{
			lv(m.PositionAxisXLevel), lv(m.PositionAxisYLevel), lv(m.PositionAxisZLevel),
			lv(m.VelocityAxisXLevel), lv(m.VelocityAxisYLevel), lv(m.VelocityAxisZLevel),
			lv(m.OrientationAxisXLevel), lv(m.OrientationAxisYLevel), lv(m.OrientationAxisZLevel),
		},
		BlockLevel:          [3]decisions.Level{lv(m.PositionOverallLevel), lv(m.VelocityOverallLevel), lv(m.OrientationOverallLevel)},
		OverallLevel:        lv(m.OverallLevel),
		ThresholdsUsed:      ThresholdsFromWire(&m.ThresholdsUsed),
		ThresholdsSHA256:    m.ThresholdsSHA256,
		CovarianceAvailable: m.CovarianceAvailable,
		SchemaVersion:       m.SchemaVersion,
	}
}

// SelfAssessmentToWire converts decisions.SelfAssessment.
func SelfAssessmentToWire(a *decisions.SelfAssessment) BeliefSelfAssessment {
	lv := func(l decisions.Level) uint8 { return uint8(l) }
	return BeliefSelfAssessment{
		BeliefStampSimNs:        a.BeliefStampSimNs,
		PositionAxisXStdM:       a.Std[3*decisions.BlockPosition+decisions.AxisX],
		PositionAxisYStdM:       a.Std[3*decisions.BlockPosition+decisions.AxisY],
		PositionAxisZStdM:       a.Std[3*decisions.BlockPosition+decisions.AxisZ],
		VelocityAxisXStdMps:     a.Std[3*decisions.BlockVelocity+decisions.AxisX],
		VelocityAxisYStdMps:     a.Std[3*decisions.BlockVelocity+decisions.AxisY],
		VelocityAxisZStdMps:     a.Std[3*decisions.BlockVelocity+decisions.AxisZ],
		OrientationAxisXStdRad:  a.Std[3*decisions.BlockOrientation+decisions.AxisX],
		OrientationAxisYStdRad:  a.Std[3*decisions.BlockOrientation+decisions.AxisY],
		OrientationAxisZStdRad:  a.Std[3*decisions.BlockOrientation+decisions.AxisZ],
		PositionAxisXLevel:      lv(a.AxisLevel[3*decisions.BlockPosition+decisions.AxisX]),
		PositionAxisYLevel:      lv(a.AxisLevel[3*decisions.BlockPosition+decisions.AxisY]),
		PositionAxisZLevel:      lv(a.AxisLevel[3*decisions.BlockPosition+decisions.AxisZ]),
		VelocityAxisXLevel:      lv(a.AxisLevel[3*decisions.BlockVelocity+decisions.AxisX]),
		VelocityAxisYLevel:      lv(a.AxisLevel[3*decisions.BlockVelocity+decisions.AxisY]),
		VelocityAxisZLevel:      lv(a.AxisLevel[3*decisions.BlockVelocity+decisions.AxisZ]),
		OrientationAxisXLevel:   lv(a.AxisLevel[3*decisions.BlockOrientation+decisions.AxisX]),
		OrientationAxisYLevel:   lv(a.AxisLevel[3*decisions.BlockOrientation+decisions.AxisY]),
		OrientationAxisZLevel:   lv(a.AxisLevel[3*decisions.BlockOrientation+decisions.AxisZ]),
		PositionOverallLevel:    lv(a.BlockLevel[decisions.BlockPosition]),
		VelocityOverallLevel:    lv(a.BlockLevel[decisions.BlockVelocity]),
		OrientationOverallLevel: lv(a.BlockLevel[decisions.BlockOrientation]),
		OverallLevel:            lv(a.OverallLevel),
		ThresholdsUsed:          ThresholdsToWire(a.ThresholdsUsed),
		ThresholdsSHA256:        a.ThresholdsSHA256,
		CovarianceAvailable:     a.CovarianceAvailable,
		SchemaVersion:           a.SchemaVersion,
	}
}

// DecisionFromWire converts Decision; a kind outside the catalog is carried.
func DecisionFromWire(m *Decision) decisions.Decision {
	return decisions.Decision{
		Kind:               decisions.Kind(m.Kind),
		DecisionStampSimNs: m.DecisionStampSimNs,
		Reason:             m.Reason,
		SchemaVersion:      m.SchemaVersion,
	}
}

// DecisionToWire converts decisions.Decision.
func DecisionToWire(d decisions.Decision) Decision {
	return Decision{
		Kind:               uint8(d.Kind),
		DecisionStampSimNs: d.DecisionStampSimNs,
		Reason:             d.Reason,
		SchemaVersion:      d.SchemaVersion,
	}
}

// RationaleFromWire converts DecisionRationale.
func RationaleFromWire(m *DecisionRationale) decisions.Rationale {
	return decisions.Rationale{
		Decision:             DecisionFromWire(&m.Decision),
		BeliefStampSimNs:     m.BeliefStampSimNs,
		SelfAssessmentSHA256: m.SelfAssessmentSHA256,
		PolicyID:             m.PolicyID,
		SchemaVersion:        m.SchemaVersion,
	}
}

// RationaleToWire converts decisions.Rationale.
func RationaleToWire(r *decisions.Rationale) DecisionRationale {
	return DecisionRationale{
		Decision:             DecisionToWire(r.Decision),
		BeliefStampSimNs:     r.BeliefStampSimNs,
		SelfAssessmentSHA256: r.SelfAssessmentSHA256,
		PolicyID:             r.PolicyID,
		SchemaVersion:        r.SchemaVersion,
	}
}

// FlightStatusFromWire converts FlightStatus; a mode outside the catalog is
// carried.
func FlightStatusFromWire(m *FlightStatus) decisions.FlightStatus {
	return decisions.FlightStatus{
		Armed:      m.Armed,
		Mode:       decisions.FlightMode(m.FlightMode),
		BatteryV:   m.BatteryV,
		BatteryPct: m.BatteryPct,
		ErrorFlags: m.ErrorFlags,
	}
}

// FlightStatusToWire converts decisions.FlightStatus.
func FlightStatusToWire(f decisions.FlightStatus) FlightStatus {
	return FlightStatus{
		Armed:      f.Armed,
		FlightMode: uint8(f.Mode),
		BatteryV:   f.BatteryV,
		BatteryPct: f.BatteryPct,
		ErrorFlags: f.ErrorFlags,
	}
}

// GoalFromWire converts Goal.
func GoalFromWire(m *Goal) decisions.Goal {
	return decisions.Goal{
		HasPosition:  m.HasPosition,
		PositionENU:  m.PositionEnuM,
		YawRad:       m.YawRad,
		MetadataJSON: m.MetadataJSON,
	}
}

// GoalToWire converts decisions.Goal.
func GoalToWire(g decisions.Goal) Goal {
	return Goal{
		HasPosition:  g.HasPosition,
		PositionEnuM: g.PositionENU,
		YawRad:       g.YawRad,
		MetadataJSON: g.MetadataJSON,
	}
}

// MissionStatusFromWire converts MissionStatus: no current goal gives a nil
// Goal. More than one goal (the decoder already rejects it, a hand-built
// struct may hold it) is an error, since the domain type holds at most one.
func MissionStatusFromWire(m *MissionStatus) (decisions.MissionStatus, error) {
	s := decisions.MissionStatus{
		Mode:         decisions.MissionMode(m.Mode),
		Progress:     m.Progress,
		StartedSimNs: m.StartedSimNs,
	}
	switch len(m.CurrentGoal) {
	case 0:
	case 1:
		g := GoalFromWire(&m.CurrentGoal[0])
		s.Goal = &g
	default:
		return decisions.MissionStatus{}, fmt.Errorf("convert ghost/msg/MissionStatus.current_goal: %d goals, at most 1: %w",
			len(m.CurrentGoal), ErrCDRBound)
	}
	return s, nil
}

// MissionStatusToWire converts decisions.MissionStatus.
func MissionStatusToWire(s decisions.MissionStatus) MissionStatus {
	m := MissionStatus{
		Mode:         uint8(s.Mode),
		Progress:     s.Progress,
		StartedSimNs: s.StartedSimNs,
	}
	if s.Goal != nil {
		m.CurrentGoal = []Goal{GoalToWire(*s.Goal)}
	}
	return m
}

// PerceptionFromWire converts PerceptionMode; a mode outside the catalog is
// carried.
func PerceptionFromWire(m *PerceptionMode) decisions.PerceptionReport {
	return decisions.PerceptionReport{StampSimNs: m.StampSimNs, Mode: decisions.PerceptionMode(m.Mode)}
}

// PerceptionToWire converts decisions.PerceptionReport.
func PerceptionToWire(p decisions.PerceptionReport) PerceptionMode {
	return PerceptionMode{StampSimNs: p.StampSimNs, Mode: uint8(p.Mode)}
}

// BeliefFromWire keeps the parts of a VehicleState that decisions depend on.
// The belief shares the covariance slice with m (decoding allocates a fresh
// one per message, so this costs no copy); do not modify it through m.
func BeliefFromWire(m *VehicleState) (decisions.Belief, error) {
	mission, err := MissionStatusFromWire(&m.Mission)
	if err != nil {
		return decisions.Belief{}, err
	}
	return decisions.Belief{
		StampSimNs:   m.StampSimNs,
		OrientationQ: m.Nav.OrientationQ,
		Covariance:   m.Nav.Covariance15x15,
		Flight:       FlightStatusFromWire(&m.Flight),
		Mission:      mission,
	}, nil
}

// BeliefToWire is the inverse of BeliefFromWire for the fields a Belief
// carries; the rest of the VehicleState (wall stamp, position, velocities,
// accelerations, biases, sensors) is zero. The covariance slice is shared.
func BeliefToWire(b *decisions.Belief) VehicleState {
	m := VehicleState{
		StampSimNs: b.StampSimNs,
		Flight:     FlightStatusToWire(b.Flight),
		Mission:    MissionStatusToWire(b.Mission),
	}
	m.Nav.OrientationQ = b.OrientationQ
	m.Nav.Covariance15x15 = b.Covariance
	return m
}

// CalibrationHistoryFromWire converts CalibrationHistory.
func CalibrationHistoryFromWire(m *CalibrationHistory) decisions.CalibrationHistory {
	return decisions.CalibrationHistory{
		CountWithin1Std:              m.CountWithin1Std,
		CountBeyond1Std:              m.CountBeyond1Std,
		CountBeyond3Std:              m.CountBeyond3Std,
		CountBeyond5Std:              m.CountBeyond5Std,
		OutcomesConsidered:           m.OutcomesConsidered,
		MostRecentObservedStampSimNs: m.MostRecentObservedStampSimNs,
		WorstPositionMahalanobis:     m.WorstPositionMahalanobis,
		WorstOrientationMahalanobis:  m.WorstOrientationMahalanobis,
		SchemaVersion:                m.SchemaVersion,
	}
}

// CalibrationHistoryToWire converts decisions.CalibrationHistory.
func CalibrationHistoryToWire(h decisions.CalibrationHistory) CalibrationHistory {
	return CalibrationHistory{
		OutcomesConsidered:           h.OutcomesConsidered,
		CountWithin1Std:              h.CountWithin1Std,
		CountBeyond1Std:              h.CountBeyond1Std,
		CountBeyond3Std:              h.CountBeyond3Std,
		CountBeyond5Std:              h.CountBeyond5Std,
		WorstPositionMahalanobis:     h.WorstPositionMahalanobis,
		WorstOrientationMahalanobis:  h.WorstOrientationMahalanobis,
		MostRecentObservedStampSimNs: h.MostRecentObservedStampSimNs,
		SchemaVersion:                h.SchemaVersion,
	}
}

// CalibratedFromWire converts CalibratedSelfAssessment into the raw
// assessment it carries and its calibration envelope (ADR-0027). The
// record's own schema_version has no domain counterpart and is not read.
func CalibratedFromWire(m *CalibratedSelfAssessment) (decisions.SelfAssessment, decisions.Calibration) {
	return SelfAssessmentFromWire(&m.RawAssessment), decisions.Calibration{
		AdjustedOverallLevel: decisions.Level(m.AdjustedOverallLevel),
		AdjustmentPolicyID:   m.AdjustmentPolicyID,
		AdjustmentReason:     m.AdjustmentReason,
		History:              CalibrationHistoryFromWire(&m.CalibrationHistory),
	}
}

// CalibratedToWire converts a raw assessment and its calibration envelope;
// the record's schema_version is decisions.SchemaVersion.
func CalibratedToWire(raw *decisions.SelfAssessment, c *decisions.Calibration) CalibratedSelfAssessment {
	return CalibratedSelfAssessment{
		RawAssessment:        SelfAssessmentToWire(raw),
		AdjustedOverallLevel: uint8(c.AdjustedOverallLevel),
		AdjustmentPolicyID:   c.AdjustmentPolicyID,
		AdjustmentReason:     c.AdjustmentReason,
		CalibrationHistory:   CalibrationHistoryToWire(c.History),
		SchemaVersion:        decisions.SchemaVersion,
	}
}
