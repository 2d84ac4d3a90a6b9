package decisions

// ReferencePolicyID is the id of ReferencePolicy.
const ReferencePolicyID = "uncertainty_aware_reference_v1"

// Reasons the reference policy gives.
const (
	ReasonNoAssessment     = "no_assessment"
	ReasonOverallUnknown   = "overall_unknown"
	ReasonOverallUncertain = "overall_uncertain"
	ReasonOverallKnown     = "overall_known"
)

// ReferencePolicy is ADR-0021's uncertainty_aware_reference_v1. It reads one
// level, the calibration's adjusted level when a calibration is present,
// otherwise the self-assessment's overall level:
//
//	no level   -> abstain_uncertain / no_assessment
//	unknown    -> abstain_uncertain / overall_unknown
//	uncertain  -> hold / overall_uncertain
//	known      -> proceed / overall_known
//
// It never commands RTL, land, kill or a pilot hand-over: those belong to
// policies that also read flight and mission status.
type ReferencePolicy struct{}

// ID returns ReferencePolicyID.
func (ReferencePolicy) ID() string { return ReferencePolicyID }

// Decide applies the table above.
func (ReferencePolicy) Decide(c Context) (Decision, error) {
	d := Decision{DecisionStampSimNs: c.BeliefStampSimNs, SchemaVersion: SchemaVersion}
	var level Level
	switch {
	case c.Calibration != nil:
		level = c.Calibration.AdjustedOverallLevel
	case c.SelfAssessment != nil:
		level = c.SelfAssessment.OverallLevel
	default:
		d.Kind, d.Reason = KindAbstainUncertain, ReasonNoAssessment
		return d, nil
	}
	switch level {
	case LevelKnown:
		d.Kind, d.Reason = KindProceed, ReasonOverallKnown
	case LevelUncertain:
		d.Kind, d.Reason = KindHold, ReasonOverallUncertain
	default:
		d.Kind, d.Reason = KindAbstainUncertain, ReasonOverallUnknown
	}
	return d, nil
}
