package decisions

import "fmt"

// Rationale is the auditable record binding a decision to its inputs
// (DecisionRationale.msg). It is published with every decision on
// /decisions; a decision is never published without it.
type Rationale struct {
	Decision         Decision
	BeliefStampSimNs int64
	// SelfAssessmentSHA256 is the SHA-256 (64 lowercase hex) of the
	// canonical JSON of the assessment the decision used; "" when the
	// decision was taken without one.
	SelfAssessmentSHA256 string
	// PolicyID identifies the producing policy, same form as a reason.
	PolicyID      string
	SchemaVersion uint8
}

// Validate applies the reference's rules: a valid decision, stamp >= 0 and
// equal to the decision's stamp, a hash that is empty or 64 lowercase hex, a
// policy id of the reason form, schema version 1.
func (r *Rationale) Validate() error {
	if err := r.Decision.Validate(); err != nil {
		return fmt.Errorf("DecisionRationale.decision: %w", err)
	}
	return r.validateBinding()
}

// validateBinding is Validate without the decision's own fields, for a
// rationale built around a decision already validated.
func (r *Rationale) validateBinding() error {
	if r.BeliefStampSimNs < 0 {
		return invalid("DecisionRationale", "belief_stamp_sim_ns", r.BeliefStampSimNs, "must be >= 0")
	}
	if r.BeliefStampSimNs != r.Decision.DecisionStampSimNs {
		return invalid("DecisionRationale", "belief_stamp_sim_ns", r.BeliefStampSimNs,
			fmt.Sprintf("must equal decision.decision_stamp_sim_ns %d", r.Decision.DecisionStampSimNs))
	}
	if r.SelfAssessmentSHA256 != "" && !isSHA256Hex(r.SelfAssessmentSHA256) {
		return invalid("DecisionRationale", "self_assessment_sha256", r.SelfAssessmentSHA256, "must be empty or 64 lowercase hex characters")
	}
	if !isIdentifier(r.PolicyID) {
		return invalid("DecisionRationale", "policy_id", r.PolicyID, "must match ^[a-z][a-z0-9_]*$, 1 to 64 characters")
	}
	if r.SchemaVersion != SchemaVersion {
		return invalid("DecisionRationale", "schema_version", r.SchemaVersion, "must be 1")
	}
	return nil
}

// AppendCanonicalJSON appends the rationale record as the reference writes it
// on /decisions in JSON form: canonical rules, the decision nested, an absent
// hash as null.
func (r *Rationale) AppendCanonicalJSON(b []byte) []byte {
	b = append(b, `{"belief_stamp_sim_ns":`...)
	b = appendInt(b, r.BeliefStampSimNs)
	b = append(b, `,"decision":`...)
	b = r.Decision.AppendCanonicalJSON(b)
	b = append(b, `,"policy_id":`...)
	b = appendJSONString(b, r.PolicyID)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(r.SchemaVersion))
	b = append(b, `,"self_assessment_sha256":`...)
	if r.SelfAssessmentSHA256 == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, r.SelfAssessmentSHA256)
	}
	return append(b, '}')
}
