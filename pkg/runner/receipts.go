package runner

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels that sinks wrap their errors in, so the Runner can classify
// failures. An error wrapping none of them counts as a transport failure.
var (
	// ErrEncoding: the decision could not be encoded for this sink.
	ErrEncoding = errors.New("encoding failed")
	// ErrTransport: the encoded decision could not be delivered (network,
	// disk full, ...).
	ErrTransport = errors.New("transport failed")
	// ErrSinkClosed: the sink, or the Runner, is closed.
	ErrSinkClosed = errors.New("sink closed")
)

// ErrProvenance is matched by every *ProvenanceError.
var ErrProvenance = errors.New("provenance violation")

// FailureKind classifies a sink failure.
type FailureKind uint8

// Failure kinds.
const (
	FailureEncoding FailureKind = iota
	FailureTransport
	FailureClosed
)

// NumFailureKinds is the number of FailureKind values.
const NumFailureKinds = 3

var failureNames = [NumFailureKinds]string{"encoding", "transport", "closed"}

// String returns "encoding", "transport" or "closed".
func (k FailureKind) String() string {
	if int(k) < len(failureNames) {
		return failureNames[k]
	}
	return "failure_kind(" + strconv.Itoa(int(k)) + ")"
}

// sentinel returns the error k stands for.
func (k FailureKind) sentinel() error {
	switch k {
	case FailureEncoding:
		return ErrEncoding
	case FailureClosed:
		return ErrSinkClosed
	default:
		return ErrTransport
	}
}

// SinkError is a classified failure of one sink to publish one decision. It
// matches (errors.Is) the sentinel of its Kind and unwraps to Err.
type SinkError struct {
	SinkID string
	Kind   FailureKind
	Err    error
}

// Error reads "sink <id>: <kind> failure: <err>".
func (e *SinkError) Error() string {
	return fmt.Sprintf("sink %s: %s failure: %v", e.SinkID, e.Kind, e.Err)
}

// Unwrap returns the sink's own error.
func (e *SinkError) Unwrap() error { return e.Err }

// Is matches the sentinel of e.Kind.
func (e *SinkError) Is(target error) bool { return target == e.Kind.sentinel() }

// classify turns what a sink returned into a *SinkError under id: a
// *SinkError keeps its kind, then ErrSinkClosed, ErrEncoding, and anything
// else is a transport failure.
func classify(id string, err error) *SinkError {
	kind := FailureTransport
	var se *SinkError
	switch {
	case errors.As(err, &se):
		kind = se.Kind
	case errors.Is(err, ErrSinkClosed):
		kind = FailureClosed
	case errors.Is(err, ErrEncoding):
		kind = FailureEncoding
	}
	return &SinkError{SinkID: id, Kind: kind, Err: err}
}

// Receipt reports what one sink did with one decision: Err is nil when it
// was published, otherwise a *SinkError.
type Receipt struct {
	SinkID string
	Stamp  int64
	Err    error
}

// ProvenanceRule names the provenance invariant a Command broke.
type ProvenanceRule string

// The provenance invariants the Runner checks before any write.
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
	// (Command.PolicyID) and, if configured, RunnerOptions.ExpectedPolicyID.
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
