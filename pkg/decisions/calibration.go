package decisions

// Calibration is the envelope a calibration stage may place in a context
// (ADR-0027): an adjusted overall level derived from how well past
// self-assessments matched observed outcomes. When present, policies read
// AdjustedOverallLevel instead of the assessment's overall level; the
// rationale hash still covers the raw assessment only.
type Calibration struct {
	AdjustedOverallLevel Level
	// AdjustmentPolicyID names the calibration policy, same form as a policy id.
	AdjustmentPolicyID string
	// AdjustmentReason is a stable snake_case reason.
	AdjustmentReason string
	History          CalibrationHistory
}

// CalibrationHistory summarises the outcomes a calibration considered.
type CalibrationHistory struct {
	CountWithin1Std    int64
	CountBeyond1Std    int64
	CountBeyond3Std    int64
	CountBeyond5Std    int64
	OutcomesConsidered int64
	// MostRecentObservedStampSimNs is -1 when no outcome was observed yet.
	MostRecentObservedStampSimNs int64
	WorstPositionMahalanobis     float64
	WorstOrientationMahalanobis  float64
	SchemaVersion                uint8
}

// Validate checks the level, the identifiers and the schema version.
func (c *Calibration) Validate() error {
	if !c.AdjustedOverallLevel.Valid() {
		return invalid("Calibration", "adjusted_overall_level", uint8(c.AdjustedOverallLevel), "must be 0 (known), 1 (uncertain) or 2 (unknown)")
	}
	if !isIdentifier(c.AdjustmentPolicyID) {
		return invalid("Calibration", "adjustment_policy_id", c.AdjustmentPolicyID, "must match ^[a-z][a-z0-9_]*$, 1 to 64 characters")
	}
	if !isIdentifier(c.AdjustmentReason) {
		return invalid("Calibration", "adjustment_reason", c.AdjustmentReason, "must match ^[a-z][a-z0-9_]*$, 1 to 64 characters")
	}
	if c.History.SchemaVersion != SchemaVersion {
		return invalid("Calibration", "calibration_history.schema_version", c.History.SchemaVersion, "must be 1")
	}
	return nil
}

// Equal reports whether c and o hold the same envelope, floats bit for bit.
func (c *Calibration) Equal(o *Calibration) bool {
	h, k := &c.History, &o.History
	return c.AdjustedOverallLevel == o.AdjustedOverallLevel && c.AdjustmentPolicyID == o.AdjustmentPolicyID &&
		c.AdjustmentReason == o.AdjustmentReason && h.CountWithin1Std == k.CountWithin1Std &&
		h.CountBeyond1Std == k.CountBeyond1Std && h.CountBeyond3Std == k.CountBeyond3Std &&
		h.CountBeyond5Std == k.CountBeyond5Std && h.OutcomesConsidered == k.OutcomesConsidered &&
		h.MostRecentObservedStampSimNs == k.MostRecentObservedStampSimNs &&
		sameFloat(h.WorstPositionMahalanobis, k.WorstPositionMahalanobis) &&
		sameFloat(h.WorstOrientationMahalanobis, k.WorstOrientationMahalanobis) && h.SchemaVersion == k.SchemaVersion
}
