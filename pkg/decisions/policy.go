package decisions

import (
	"errors"
	"fmt"
)

// Policy maps a decision context to a decision (ADR-0021). Decide never
// reads a clock, draws random numbers or performs I/O. A stateless policy is
// a pure function of the context, so re-running it on a context rebuilt from
// a recording gives the identical decision; a policy whose decision also
// depends on earlier contexts (rule delays, latches) implements
// StatefulPolicy.
type Policy interface {
	// ID is the policy's stable identifier, recorded in every rationale:
	// ^[a-z][a-z0-9_]*$, 1 to 64 characters.
	ID() string
	// Decide returns the decision for c; its stamp must be c's belief stamp.
	Decide(c Context) (Decision, error)
}

// StatefulPolicy is a Policy whose decision also depends on the contexts it
// decided before, in increasing stamp order (rule delays and latches). Its
// state is a function of those contexts only. The Loop owns one instance per
// session (NewInstance), calls Decide exactly once per context in stamp
// order, calls Checkpoint before each step and Rollback when the step fails,
// so that a failed step leaves the state as it was.
type StatefulPolicy interface {
	Policy
	// NewInstance returns an instance in the initial state that shares the
	// immutable definition.
	NewInstance() StatefulPolicy
	// Checkpoint saves the state; Rollback restores the last saved state.
	Checkpoint()
	Rollback()
}

// ErrUnknownPolicy is returned by LookupPolicy for an id it does not know.
var ErrUnknownPolicy = errors.New("unknown policy")

// LookupPolicy returns the built-in policy with the given id.
func LookupPolicy(id string) (Policy, error) {
	for _, p := range builtinPolicies {
		if p.ID() == id {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownPolicy, id, PolicyIDs())
}

// PolicyIDs lists the ids of the built-in policies.
func PolicyIDs() []string {
	ids := make([]string, len(builtinPolicies))
	for i, p := range builtinPolicies {
		ids[i] = p.ID()
	}
	return ids
}

var builtinPolicies = []Policy{ReferencePolicy{}}

// DecideWithRationale runs p on c and binds the decision to its inputs: the
// rationale carries the decision, the belief stamp, assessmentSHA256 and
// p's id. assessmentSHA256 is the SHA-256 of the context's self-assessment
// (c.SelfAssessmentSHA256()), "" when there is none; the caller computes it
// once for every party that needs it, and an auditor recomputes it from the
// assessment (a hash handed in for an absent assessment, or none for a
// present one, is refused here). The context, the decision and the
// rationale are validated; any violation is an error and nothing is
// returned.
func DecideWithRationale(p Policy, c Context, assessmentSHA256 string) (Decision, Rationale, error) {
	if err := c.Validate(); err != nil {
		return Decision{}, Rationale{}, err
	}
	if (assessmentSHA256 == "") != (c.SelfAssessment == nil) {
		return Decision{}, Rationale{}, invalid("DecisionRationale", "self_assessment_sha256", assessmentSHA256,
			"must be the SHA-256 of the context's self-assessment, empty exactly when it has none")
	}
	d, err := p.Decide(c)
	if err != nil {
		return Decision{}, Rationale{}, fmt.Errorf("policy %s at belief stamp %d: %w", p.ID(), c.BeliefStampSimNs, err)
	}
	if err := d.Validate(); err != nil {
		return Decision{}, Rationale{}, fmt.Errorf("policy %s: %w", p.ID(), err)
	}
	if d.DecisionStampSimNs != c.BeliefStampSimNs {
		return Decision{}, Rationale{}, fmt.Errorf("policy %s: %w", p.ID(), invalid("Decision", "decision_stamp_sim_ns",
			d.DecisionStampSimNs, fmt.Sprintf("must equal the context's belief stamp %d", c.BeliefStampSimNs)))
	}
	r := Rationale{
		Decision:             d,
		BeliefStampSimNs:     c.BeliefStampSimNs,
		SelfAssessmentSHA256: assessmentSHA256,
		PolicyID:             p.ID(),
		SchemaVersion:        SchemaVersion,
	}
	if err := r.validateBinding(); err != nil { // d is validated above
		return Decision{}, Rationale{}, fmt.Errorf("policy %s: %w", p.ID(), err)
	}
	return d, r, nil
}
