package decisions

import "fmt"

// Context is everything a policy may look at for one belief stamp
// (ADR-0021's DecisionContext): the belief's stamp, flight and mission status,
// the self-assessment of that belief if one arrived, the perception mode in
// force at the stamp, and an optional calibration envelope.
type Context struct {
	BeliefStampSimNs int64
	// SelfAssessment is nil when the decision must be taken without one.
	SelfAssessment *SelfAssessment
	// Calibration is nil unless a calibration stage adjusted the level.
	Calibration *Calibration
	Flight      FlightStatus
	Mission     MissionStatus
	// Perception is the latest report with a stamp <= BeliefStampSimNs,
	// nil when none precedes it.
	Perception *PerceptionReport
}

// Validate checks the stamp, that an assessment describes this very belief
// stamp, and every part that is present.
func (c *Context) Validate() error {
	if c.BeliefStampSimNs < 0 {
		return invalid("DecisionContext", "belief_stamp_sim_ns", c.BeliefStampSimNs, "must be >= 0")
	}
	if a := c.SelfAssessment; a != nil {
		if err := a.Validate(); err != nil {
			return fmt.Errorf("DecisionContext.self_assessment: %w", err)
		}
		if a.BeliefStampSimNs != c.BeliefStampSimNs {
			return invalid("DecisionContext", "self_assessment.belief_stamp_sim_ns", a.BeliefStampSimNs,
				fmt.Sprintf("must equal the context's belief_stamp_sim_ns %d", c.BeliefStampSimNs))
		}
	}
	if c.Calibration != nil {
		if err := c.Calibration.Validate(); err != nil {
			return fmt.Errorf("DecisionContext.calibrated: %w", err)
		}
	}
	if err := c.Flight.Validate(); err != nil {
		return fmt.Errorf("DecisionContext.flight: %w", err)
	}
	if err := c.Mission.Validate(); err != nil {
		return fmt.Errorf("DecisionContext.mission: %w", err)
	}
	if c.Perception != nil {
		if err := c.Perception.Validate(); err != nil {
			return fmt.Errorf("DecisionContext.perception: %w", err)
		}
	}
	return nil
}

// SelfAssessmentSHA256 is the hash a rationale for this context must carry:
// the SHA-256 of the assessment's canonical JSON, or "" when there is none.
func (c *Context) SelfAssessmentSHA256() string {
	if c.SelfAssessment == nil {
		return ""
	}
	return c.SelfAssessment.SHA256()
}
