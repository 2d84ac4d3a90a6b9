package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrProvenance is matched by every *ProvenanceError.
var ErrProvenance = errors.New("provenance violation")

// ProvenanceRule names the provenance invariant a Command broke.
type ProvenanceRule string

// The provenance invariants Provenance.Check applies (the session's Runner
// before any write), and those the Runner applies to evidence.
const (
	// RuleDecision: the decision is valid (kind in the closed catalog, stamp
	// >= 0, reason ^[a-z][a-z0-9_]*$ of 1 to 64 characters, schema 1).
	RuleDecision ProvenanceRule = "decision_valid"
	// RuleRationale: the rationale is valid (policy id of the reason form,
	// hash empty or 64 lowercase hex, schema 1).
	RuleRationale ProvenanceRule = "rationale_valid"
	// RuleRationaleDecision: rationale.decision equals the decision.
	RuleRationaleDecision ProvenanceRule = "rationale_decision"
	// RuleStamp: rationale.belief_stamp == decision.stamp ==
	// context.belief_stamp == context.self_assessment.belief_stamp.
	RuleStamp ProvenanceRule = "stamp"
	// RuleAssessmentHash: rationale.self_assessment_sha256 is the SHA-256 of
	// the canonical JSON of context.self_assessment, or empty exactly when
	// there is none.
	RuleAssessmentHash ProvenanceRule = "assessment_sha256"
	// RuleWithoutAssessment: the command's WithoutAssessment reason is set
	// exactly when the context has no self-assessment.
	RuleWithoutAssessment ProvenanceRule = "without_assessment"
	// RulePolicyID: rationale.policy_id is the id of the policy that decided
	// (Command.PolicyID) and, if configured, Provenance.ExpectedPolicyID.
	RulePolicyID ProvenanceRule = "policy_id"
	// RuleEvidenceBatch: an evidence batch has 1 to MaxEvidenceItems items
	// of a known kind.
	RuleEvidenceBatch ProvenanceRule = "evidence_batch"
	// RuleEvidenceCorrelation: evidence names the outstanding action.
	RuleEvidenceCorrelation ProvenanceRule = "evidence_correlation"
	// RuleEvidenceSource: evidence comes from the executor that was called.
	RuleEvidenceSource ProvenanceRule = "evidence_source"
	// RuleEvidenceVehicle: evidence comes from the configured target
	// vehicle.
	RuleEvidenceVehicle ProvenanceRule = "evidence_vehicle"
	// RuleEvidenceCommand: an acknowledgement names the command sent.
	RuleEvidenceCommand ProvenanceRule = "evidence_command"
)

// ProvenanceError reports a Command that broke a provenance invariant;
// nothing was written to any sink. It matches ErrProvenance.
type ProvenanceError struct {
	Rule   ProvenanceRule
	Stamp  int64 // the decision's stamp
	Detail string
}

// Error reads "provenance violation (<rule>) at stamp <n>: <detail>".
func (e *ProvenanceError) Error() string {
	return fmt.Sprintf("provenance violation (%s) at stamp %d: %s", e.Rule, e.Stamp, e.Detail)
}

// Is matches ErrProvenance.
func (e *ProvenanceError) Is(target error) bool { return target == ErrProvenance }

// Provenance checks that a Command is what a Loop emits for the context it
// carries, independently of how the Loop bound the decision: the hash is
// derived from the context's assessment alone. The host runs it before any
// write. The zero value checks every invariant but the expected policy; a
// Provenance belongs to one goroutine (it reuses a buffer).
type Provenance struct {
	// ExpectedPolicyID, when set, is the only policy id whose decisions
	// pass; any other is a provenance violation. Default "": the id each
	// Command names is checked against its rationale only.
	ExpectedPolicyID string
	buf              []byte
}

// Check applies the provenance invariants to cmd, cheapest first, and
// returns a *ProvenanceError naming the first one broken, or nil.
func (p *Provenance) Check(cmd *Command) error {
	d, rat, ctx := &cmd.Decision, &cmd.Rationale, &cmd.Context
	stamp := d.DecisionStampSimNs
	if err := d.Validate(); err != nil {
		return &ProvenanceError{RuleDecision, stamp, err.Error()}
	}
	if err := rat.Validate(); err != nil {
		return &ProvenanceError{RuleRationale, stamp, err.Error()}
	}
	if rat.Decision != *d {
		return &ProvenanceError{RuleRationaleDecision, stamp,
			fmt.Sprintf("DecisionRationale.decision = %s but the decision is %s", rat.Decision, *d)}
	}
	if rat.BeliefStampSimNs != stamp || ctx.BeliefStampSimNs != stamp {
		return &ProvenanceError{RuleStamp, stamp, fmt.Sprintf(
			"DecisionRationale.belief_stamp_sim_ns = %d, Decision.decision_stamp_sim_ns = %d, DecisionContext.belief_stamp_sim_ns = %d: must be equal",
			rat.BeliefStampSimNs, stamp, ctx.BeliefStampSimNs)}
	}
	if a := ctx.SelfAssessment; a != nil && a.BeliefStampSimNs != stamp {
		return &ProvenanceError{RuleStamp, stamp, fmt.Sprintf(
			"DecisionContext.self_assessment.belief_stamp_sim_ns = %d: must equal the decision stamp %d", a.BeliefStampSimNs, stamp)}
	}
	if err := p.checkHash(cmd); err != nil {
		return err
	}
	if int(cmd.WithoutAssessment) >= NumWithoutReasons {
		return &ProvenanceError{RuleWithoutAssessment, stamp, fmt.Sprintf(
			"Command.WithoutAssessment = %d: not a WithoutReason (0 to %d)", uint8(cmd.WithoutAssessment), NumWithoutReasons-1)}
	}
	if (cmd.WithoutAssessment == WithoutNone) != (ctx.SelfAssessment != nil) {
		has := "has"
		if ctx.SelfAssessment == nil {
			has = "has no"
		}
		return &ProvenanceError{RuleWithoutAssessment, stamp, fmt.Sprintf(
			"Command.WithoutAssessment = %s but the context %s self-assessment", cmd.WithoutAssessment, has)}
	}
	if rat.PolicyID != cmd.PolicyID {
		return &ProvenanceError{RulePolicyID, stamp, fmt.Sprintf(
			"DecisionRationale.policy_id = %q but the deciding policy is %q", rat.PolicyID, cmd.PolicyID)}
	}
	if want := p.ExpectedPolicyID; want != "" && rat.PolicyID != want {
		return &ProvenanceError{RulePolicyID, stamp, fmt.Sprintf(
			"DecisionRationale.policy_id = %q but this runner publishes only %q", rat.PolicyID, want)}
	}
	return nil
}

// checkHash checks the rationale's hash against the context's assessment.
//
// The expected hash is derived from the context's assessment alone, never
// from the rationale or anything the policy binding produced: the hash the
// Loop made when the assessment was decoded or admitted, only when the
// content it was computed from is the context's assessment bit for bit
// (AssessmentHash.For), else a fresh canonical JSON (the contract's plain
// writer) and SHA-256, without allocating. A binding that put another
// assessment's hash, a stale one or none into the rationale, or a context
// whose assessment changed after the decision, is therefore caught; a hash
// never vouches for content it was not computed from.
func (p *Provenance) checkHash(cmd *Command) error {
	got := cmd.Rationale.SelfAssessmentSHA256
	a := cmd.Context.SelfAssessment
	if a == nil {
		if got != "" {
			return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
				"DecisionRationale.self_assessment_sha256 = %q but the context has no self-assessment: must be empty", got)}
		}
		return nil
	}
	if h := cmd.assessmentHash; h.For(a) {
		if want := h.Hex(); got != want {
			return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
				"DecisionRationale.self_assessment_sha256 = %q but the context's self-assessment hashes to %s", got, want)}
		}
		return nil
	}
	p.buf = a.AppendCanonicalJSON(p.buf[:0])
	sum := sha256.Sum256(p.buf)
	var want [64]byte
	hex.Encode(want[:], sum[:])
	if got != string(want[:]) {
		return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
			"DecisionRationale.self_assessment_sha256 = %q but the context's self-assessment hashes to %s", got, string(want[:]))}
	}
	return nil
}
