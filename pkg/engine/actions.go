package engine

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Defaults of ActionOptions.
const (
	DefaultAckTimeout   = 1 * time.Second
	DefaultMaxRetries   = 2
	DefaultReachTimeout = 5 * time.Second
	// DefaultRecommandInterval is the shortest time between two commands
	// of one decided kind while the vehicle does not follow it.
	DefaultRecommandInterval = 5 * time.Second
	// DefaultMaxRecommands bounds the re-commands of one episode (a streak
	// of decisions of one kind).
	DefaultMaxRecommands = 5
	// MaxEvidenceItems bounds one evidence batch; a longer one is rejected.
	MaxEvidenceItems = 16
)

// ActionOptions configure how the Loop turns decisions into actions. The
// zero value routes no kind: every decision is advisory, nothing executes.
type ActionOptions struct {
	// Routes say, per decision kind, which executor serves it and whether
	// the operator enabled it. A kind without an executor is advisory.
	Routes [decisions.NumKinds]ActionRoute
	// AckTimeout is how long, in Deadlines' time, a sent command waits for its
	// acknowledgement before the Loop retries it (or, after the last retry,
	// fails it as transport). Default DefaultAckTimeout.
	AckTimeout time.Duration
	// MaxRetries is how many times a command is re-sent; 0 means
	// DefaultMaxRetries, negative means never.
	MaxRetries int
	// ReachTimeout is how long, in Deadlines' time, an accepted command waits
	// for the vehicle state it commands before it fails as executor.
	// Default DefaultReachTimeout.
	ReachTimeout time.Duration
	// RecommandInterval is how long, in Deadlines' time, after the previous
	// command of an episode (a streak of decisions of one kind) the Loop
	// waits before it commands the kind again, when the vehicle refused
	// the command, did not reach or left the commanded mode and the
	// policy still decides the kind. 0 means DefaultRecommandInterval,
	// negative means never (see loop_actions.go for the rules).
	RecommandInterval time.Duration
	// MaxRecommands bounds the re-commands of one episode; 0 means
	// DefaultMaxRecommands, negative means never.
	MaxRecommands int
	// Deadlines is the time AckTimeout, ReachTimeout and RecommandInterval
	// count in: arrival time (DeadlinesArrival, the zero value) or the
	// vehicle's own, as its belief stamps tell it (DeadlinesVehicle; see
	// vehicle_clock.go).
	Deadlines DeadlineClock
}

// ActionRoute is the route of one decision kind.
type ActionRoute struct {
	// Executor is the id of the executor that serves the kind; "" makes
	// the kind advisory (published, never executed).
	Executor string
	// Enabled is the operator's enable: a routed kind that is not enabled
	// fails as blocked_by_policy, with no executor work.
	Enabled bool
	// Expect is the vehicle state that shows the command took effect.
	Expect Expectation
}

// Expectation is the observed vehicle state an action aims at: a
// navigation mode (PX4 nav_state), or disarmed.
type Expectation struct {
	Mode     uint8
	HasMode  bool
	Disarmed bool
}

// Met reports whether the observed mode and arming meet e; an empty
// expectation is never met.
func (e Expectation) Met(mode uint8, armed bool) bool {
	return e.HasMode && mode == e.Mode || e.Disarmed && !armed
}

// String reads "mode 4", "disarmed" or "nothing".
func (e Expectation) String() string {
	switch {
	case e.HasMode && e.Disarmed:
		return "mode " + strconv.Itoa(int(e.Mode)) + " or disarmed"
	case e.HasMode:
		return "mode " + strconv.Itoa(int(e.Mode))
	case e.Disarmed:
		return "disarmed"
	}
	return "nothing"
}

// EvidenceKind says what a piece of evidence is.
type EvidenceKind uint8

// Evidence kinds, numbered as ActionEvidenceItem.msg KIND_*.
const (
	EvidenceAck EvidenceKind = iota
	EvidenceState
)

// String returns "ack" or "state".
func (k EvidenceKind) String() string {
	switch k {
	case EvidenceAck:
		return "ack"
	case EvidenceState:
		return "state"
	}
	return "evidence_kind(" + strconv.Itoa(int(k)) + ")"
}

// Evidence is one piece of what an executor returned for an action: the
// vehicle's acknowledgement of a command or its observed state. It is
// evidence, not a verdict: the host (the session's Runner) checks its provenance and the Loop
// judges it.
type Evidence struct {
	Kind EvidenceKind
	// ActionID is the correlation id of the action it answers.
	ActionID uint64
	// Executor is the id of the executor that returned it.
	Executor string
	// Vehicle is the vehicle it comes from.
	Vehicle uint32
	// Command and Result: the acknowledged command id and its result
	// (EvidenceAck).
	Command uint32
	Result  decisions.AckResult
	// Mode and Armed: the observed navigation state and arming
	// (EvidenceState).
	Mode  uint8
	Armed bool
	// VehicleTimeUs is the vehicle's own timestamp of the message.
	VehicleTimeUs uint64
}

// String describes e in a few words.
func (e Evidence) String() string {
	switch e.Kind {
	case EvidenceAck:
		return fmt.Sprintf("ack of command %d: %s (action %d, executor %q, vehicle %d)", e.Command, e.Result, e.ActionID, capText(e.Executor, 64), e.Vehicle)
	case EvidenceState:
		return fmt.Sprintf("state mode %d armed %t (action %d, executor %q, vehicle %d)", e.Mode, e.Armed, e.ActionID, capText(e.Executor, 64), e.Vehicle)
	}
	return fmt.Sprintf("%s (action %d)", e.Kind, e.ActionID)
}

// EvidenceEvent delivers one batch of evidence as it arrived from an
// executor. The host checks its provenance (the session's Runner.AdmitEvidence)
// before the Loop sees it; the Loop then gets only the admitted items.
type EvidenceEvent struct {
	ArrivalNs int64
	Items     []Evidence
}

// Arrival returns the arrival time in ns.
func (e EvidenceEvent) Arrival() int64 { return e.ArrivalNs }

func (EvidenceEvent) isEvent() {}

// VehicleCommand is the command an executor's mapping gives for a kind:
// a MAVLink-style command id with seven parameters (NaN where the vehicle
// takes its current value).
type VehicleCommand struct {
	ID     uint32
	Params [7]float64
}

// Equal compares two commands, NaN parameters equal to NaN.
func (c VehicleCommand) Equal(o VehicleCommand) bool {
	if c.ID != o.ID {
		return false
	}
	for i := range c.Params {
		a, b := c.Params[i], o.Params[i]
		if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			return false
		}
	}
	return true
}

// ActionOp is what an ActionCommand asks of the host (the session's Runner).
type ActionOp uint8

// Action operations.
const (
	// ActionExecute: send the command for Kind through Executor (attempt 1).
	ActionExecute ActionOp = iota
	// ActionRetry: re-send the outstanding action's command (no
	// acknowledgement within ActionOptions.AckTimeout).
	ActionRetry
	// ActionConclude: the action reached an outcome (or an intermediate
	// one, Accepted); record it.
	ActionConclude
)

var actionOpNames = [...]string{"execute", "retry", "conclude"}

// String returns "execute", "retry" or "conclude".
func (o ActionOp) String() string {
	if int(o) < len(actionOpNames) {
		return actionOpNames[o]
	}
	return "action_op(" + strconv.Itoa(int(o)) + ")"
}

// Outcome is what became of an action.
type Outcome uint8

// Outcomes of ActionConclude commands.
const (
	// OutcomeAccepted: the vehicle acknowledged the command (not final:
	// the Loop waits for the commanded state).
	OutcomeAccepted Outcome = iota
	// OutcomeReached: the vehicle was observed in the commanded state.
	OutcomeReached
	// OutcomeFailed: see the ActionCommand's Failure.
	OutcomeFailed
	// OutcomeSuperseded: a newer decision replaced the action before it
	// concluded; nothing more is sent for it.
	OutcomeSuperseded
)

var outcomeNames = [...]string{"accepted", "reached", "failed", "superseded"}

// String returns the outcome's snake_case name.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Final reports whether the outcome ends the action.
func (o Outcome) Final() bool { return o != OutcomeAccepted }

// FailureClass types an action's failure.
type FailureClass uint8

// Failure classes, numbered as ActionReceipt.msg FAILURE_*.
const (
	FailNone FailureClass = iota
	// FailNotApplicable: the command cannot or need not act in the
	// decision's context (the vehicle is disarmed, or its flight mode is
	// already the commanded one).
	FailNotApplicable
	// FailBlockedByPolicy: the kind has an executor but the operator did
	// not enable it.
	FailBlockedByPolicy
	// FailTransport: no acknowledgement by the deadline after the last
	// retry.
	FailTransport
	// FailExecutor: the vehicle refused the command (DENIED, FAILED,
	// UNSUPPORTED, ...) or did not reach the commanded state in time.
	FailExecutor
)

// NumFailureClasses is the number of FailureClass values.
const NumFailureClasses = 5

var failureClassNames = [NumFailureClasses]string{"none", "not_applicable", "blocked_by_policy", "transport", "executor"}

// String returns the class's snake_case name.
func (f FailureClass) String() string {
	if int(f) < len(failureClassNames) {
		return failureClassNames[f]
	}
	return "failure_class(" + strconv.Itoa(int(f)) + ")"
}

// ActionCommand is what the Loop asks of the host (the session's Runner)
// about an action. The Runner executes only these; it never retries, re-orders or invents one.
type ActionCommand struct {
	Op ActionOp
	// ID is the action's correlation id, unique in the session, from 1.
	ID uint64
	// Stamp and Kind are the decision the action executes.
	Stamp int64
	Kind  decisions.Kind
	// Executor is the id of the executor the kind is routed to.
	Executor string
	// Attempt is 1 for ActionExecute, 2.. for ActionRetry, and the number
	// of sends so far for ActionConclude (0 when nothing was sent).
	Attempt uint8
	// Outcome and Failure: what became of the action (ActionConclude).
	Outcome Outcome
	Failure FailureClass
	// Evidence is the admitted evidence that led to this command, if any.
	// It is valid until the next Step with the same Output.
	Evidence []Evidence
	// Detail says why, in one line.
	Detail string
}

// capText shortens s to at most n bytes, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
