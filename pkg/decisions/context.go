package decisions

import (
	"fmt"
	"strconv"
)

// Context is everything a policy may look at for one belief stamp
// (ADR-0021's DecisionContext): the belief's stamp, flight and mission status,
// the self-assessment of that belief if one arrived, the perception mode in
// force at the stamp, and an optional calibration envelope. Beyond the ADR,
// it may carry what became of the commands earlier decisions caused
// (Actions); no contract message or hash covers that part.
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
	// Actions is the action state of every kind, as the runner derived it
	// from the session's decisions and the evidence its executors returned
	// before this context was decided. nil when the session routes no kind
	// to an executor (every decision advisory): every kind then reads as
	// not routed, with no command (ActionNone).
	Actions *ActionStates
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
	if c.Actions != nil {
		if err := c.Actions.validate(c.BeliefStampSimNs); err != nil {
			return err
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

// ActionOutcome is what became of the last command of one decision kind:
// still under way (sent, accepted, in_progress), reached, superseded, or
// failed with its reason. The failures refine the runner's failure
// classes: the refusals (an acknowledgement with a MAV_RESULT other than
// ACCEPTED or IN_PROGRESS, each under its own name) and not_reached are the
// executor class (the vehicle refused the command, or did not reach the
// commanded state in time); transport, not_applicable and
// blocked_by_policy are those classes.
type ActionOutcome uint8

// Action outcomes; the order is the policy language's (rules). An
// acknowledgement's MAV_RESULT gives accepted, in_progress, denied,
// temporarily_rejected, unsupported, failed or cancelled, and
// unknown_result for any other value.
const (
	// ActionNone: no command of the kind in this session.
	ActionNone ActionOutcome = iota
	// ActionSent: sent (or re-sent), no acknowledgement yet.
	ActionSent
	// ActionAccepted: acknowledged ACCEPTED; the commanded state is not
	// observed yet.
	ActionAccepted
	// ActionInProgress: acknowledged IN_PROGRESS; the commanded state is
	// not observed yet.
	ActionInProgress
	// ActionReached: the vehicle was observed in the commanded state.
	ActionReached
	// ActionSuperseded: a decision of another kind replaced it before it
	// concluded.
	ActionSuperseded
	// ActionDenied: acknowledged DENIED.
	ActionDenied
	// ActionTemporarilyRejected: acknowledged TEMPORARILY_REJECTED (PX4's
	// answer to a mode that cannot run now).
	ActionTemporarilyRejected
	// ActionUnsupported: acknowledged UNSUPPORTED.
	ActionUnsupported
	// ActionFailed: acknowledged FAILED (valid, but its execution failed).
	ActionFailed
	// ActionCancelled: acknowledged CANCELLED.
	ActionCancelled
	// ActionUnknownResult: acknowledged with a result MAV_RESULT does not
	// define (7 and above, as PX4's VehicleCommandAck knows it).
	ActionUnknownResult
	// ActionNotReached: accepted, but the commanded state was not observed
	// by the reach deadline.
	ActionNotReached
	// ActionTransport: no acknowledgement after the last retry.
	ActionTransport
	// ActionNotApplicable: nothing to act on (the vehicle was disarmed, or
	// already in the commanded mode); nothing was sent.
	ActionNotApplicable
	// ActionBlockedByPolicy: the kind has an executor but the operator did
	// not enable it; nothing was sent.
	ActionBlockedByPolicy
)

// NumActionOutcomes is the number of ActionOutcome values.
const NumActionOutcomes = 16

var actionOutcomeNames = [NumActionOutcomes]string{
	"none", "sent", "accepted", "in_progress", "reached", "superseded", "denied", "temporarily_rejected",
	"unsupported", "failed", "cancelled", "unknown_result", "not_reached", "transport", "not_applicable", "blocked_by_policy",
}

// Valid reports whether o is one of the outcomes.
func (o ActionOutcome) Valid() bool { return o < NumActionOutcomes }

// String returns the outcome's snake_case name, or "action_outcome(N)".
func (o ActionOutcome) String() string {
	if o.Valid() {
		return actionOutcomeNames[o]
	}
	return "action_outcome(" + strconv.Itoa(int(o)) + ")"
}

// Failed reports whether o is a failure (denied to blocked_by_policy).
func (o ActionOutcome) Failed() bool { return o >= ActionDenied && o.Valid() }

// Refused reports whether o is an acknowledgement's refusal (denied to
// unknown_result).
func (o ActionOutcome) Refused() bool { return o >= ActionDenied && o <= ActionUnknownResult }

// ActionState is the action state of one decision kind.
type ActionState struct {
	// Routed: an executor serves the kind. Enabled: and the operator
	// enabled it, so deciding the kind sends a command.
	Routed, Enabled bool
	// ID is the correlation id of the kind's last action, 0 when none.
	ID uint64
	// DecisionStampSimNs is the stamp of the decision the last action
	// executes.
	DecisionStampSimNs int64
	// Outcome is what became of it so far.
	Outcome ActionOutcome
	// Attempts is how many times its command was sent.
	Attempts uint8
	// Commands is how many commands of the kind its latest episode (the
	// streak of decisions of the kind, the current one while the kind is
	// decided) sent: 1 for its first, one more for each re-command,
	// counted when it is sent; 0 when none was sent.
	Commands uint8
	// SinceStampSimNs is the belief stamp of the first context that saw
	// Outcome: the clock of a rule's `for`, so a condition on the outcome
	// that every context evaluates holds since exactly this stamp. -1 with
	// ActionNone.
	SinceStampSimNs int64
}

// ActionStates is the action state of every kind, indexed by Kind.
type ActionStates [NumKinds]ActionState

func (s *ActionStates) validate(stamp int64) error {
	for k := range s {
		a := &s[k]
		field := func(f string) string { return "actions[" + Kind(k).String() + "]." + f }
		switch {
		case !a.Outcome.Valid():
			return invalid("DecisionContext", field("outcome"), uint8(a.Outcome), "not an action outcome (0 to 15)")
		case a.Enabled && !a.Routed:
			return invalid("DecisionContext", field("enabled"), true, "an enabled kind must be routed to an executor")
		case (a.Outcome == ActionNone) != (a.ID == 0):
			return invalid("DecisionContext", field("id"), a.ID, "must be 0 exactly when the outcome is none")
		case a.Outcome != ActionNone && !a.Routed:
			return invalid("DecisionContext", field("outcome"), a.Outcome.String(), "a kind no executor serves has no command")
		case a.Outcome != ActionNone && (a.SinceStampSimNs < 0 || a.SinceStampSimNs > stamp):
			return invalid("DecisionContext", field("since_stamp_sim_ns"), a.SinceStampSimNs,
				fmt.Sprintf("must be in [0, %d], the context's belief stamp", stamp))
		}
	}
	return nil
}
