package report

import (
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// ActionEvent is what one action receipt records, numbered as
// ActionReceipt.msg EVENT_*.
type ActionEvent uint8

// Action events.
const (
	EventSent ActionEvent = iota
	EventRetried
	EventEvidenceAccepted
	EventEvidenceRejected
	EventAccepted
	EventReached
	EventFailed
	EventSuperseded
	EventRefused
	// NumActionEvents is the number of events in the catalog.
	NumActionEvents
)

var actionEventNames = [NumActionEvents]string{
	"sent", "retried", "evidence_accepted", "evidence_rejected", "accepted", "reached", "failed", "superseded", "refused",
}

// String returns the event's snake_case name, or "event(N)".
func (e ActionEvent) String() string {
	if e < NumActionEvents {
		return actionEventNames[e]
	}
	return "event(" + strconv.Itoa(int(e)) + ")"
}

// Final reports whether the event ends its action.
func (e ActionEvent) Final() bool {
	return e == EventReached || e == EventFailed || e == EventSuperseded || e == EventRefused
}

// Failure classes, numbered as ActionReceipt.msg FAILURE_*.
const (
	FailureNone uint8 = iota
	FailureNotApplicable
	FailureBlockedByPolicy
	FailureTransport
	FailureExecutor
	// NumFailures is the number of failure classes in the catalog.
	NumFailures
)

var failureNames = [NumFailures]string{"none", "not_applicable", "blocked_by_policy", "transport", "executor"}

// FailureName names a failure class, or "failure(N)".
func FailureName(f uint8) string {
	if f < NumFailures {
		return failureNames[f]
	}
	return "failure(" + strconv.Itoa(int(f)) + ")"
}

// Evidence item kinds (ActionEvidenceItem.msg KIND_*).
const (
	evidenceAck   = 0
	evidenceState = 1
)

// maxActionRows bounds the rows of the action table; the lane links only
// to actions that have a row.
const maxActionRows = 5000

// maxSteps bounds the steps kept per action; the outcome is kept beyond it.
const maxSteps = 24

// Action is the trail of one action, from its receipts: a decision acting
// on the vehicle through an executor.
type Action struct {
	// ID is the action's correlation id.
	ID uint64
	// Kind and DecisionNs are the decision the action executes.
	Kind       decisions.Kind
	DecisionNs int64
	// Executor is the executor's id; Command the command its mapping gives.
	Executor string
	Command  uint32
	// Steps are the receipts in recording order (at most maxSteps; the
	// rest are counted in StepsOmitted, the outcome is kept below).
	Steps        []ActionStep
	StepsOmitted uint64
	// Sends counts sent and retried receipts.
	Sends int
	// Ack is the result of the last acknowledgement in the trail; HasAck
	// says there was one.
	Ack    decisions.AckResult
	HasAck bool
	// Outcome is the final step (reached, failed, superseded, refused);
	// HasOutcome false while the action was still open at the end of the
	// recording.
	Outcome    ActionStep
	HasOutcome bool
}

// ActionStep is one receipt of an action.
type ActionStep struct {
	Event ActionEvent
	// AtNs places the receipt on the stamp axis: its log time shifted by
	// the stamp-to-log offset of the latest stamped message, and never
	// before the decision it acts on. LogNs is its log time.
	AtNs, LogNs int64
	// Attempt is the receipt's send count; Failure its failure class.
	Attempt uint8
	Failure uint8
	// Ack is the result of an acknowledgement among the receipt's evidence
	// (-1 when none); NavState the navigation state observed (-1 when none).
	Ack, NavState int16
	// Detail is the receipt's own words.
	Detail string
}

// Actions describes the action trail of a recording.
type Actions struct {
	// Topic is the receipts topic; empty when the recording has none.
	Topic string
	// Schema is the channel's schema name.
	Schema string
	// Messages counts the receipts recorded; Undecodable those that did
	// not decode (not in Trail).
	Messages, Undecodable uint64
	// ByEvent counts receipts by event (events outside the catalog in
	// OtherEvents); ByFailure counts failed and refused receipts by class.
	ByEvent     [NumActionEvents]uint64
	OtherEvents uint64
	ByFailure   [NumFailures + 1]uint64
	// ByAck counts the acknowledgements among accepted evidence by result
	// (results outside MAV_RESULT in the last element).
	ByAck [decisions.NumAckResults + 1]uint64
	// Trail holds the actions in the order first seen (at most
	// Options.MaxActions); Omitted counts later ones.
	Trail   []Action
	Omitted uint64
	// EvidenceTopic is the topic of the executors' evidence batches, when
	// the recording has one; EvidenceBatches counts them and
	// EvidenceUndecodable those that did not decode.
	EvidenceTopic                        string
	EvidenceBatches, EvidenceUndecodable uint64
	// Escalations are the changes to a more severe kind after an action
	// that did not reach its mode (see Escalation).
	Escalations []Escalation
}

// Escalation marks a change of decided kind to a more severe action kind
// (hold < yield_to_pilot < engage_rtl < engage_land < engage_kill) while
// the last action of the previous kind has not reached the vehicle state it
// commands: it failed (transport, executor, blocked_by_policy) or was
// refused, or it was still open (sent or accepted) when the new kind was
// decided, which superseded it. An action that failed as not_applicable
// (the vehicle was disarmed, or already in the mode) is not a refusal by
// the vehicle, and a change after it is not an escalation. The mark says
// what the recording shows, not why the policy decided: it is derived from
// the receipts and the decisions alone.
type Escalation struct {
	// StampNs is the first decision of the more severe kind; Episode is the
	// number of its episode.
	StampNs int64
	Episode int
	// From and To are the previous and the new kind.
	From, To decisions.Kind
	// ActionID is the action of From that did not reach its state.
	ActionID uint64
	// Why says what became of that action.
	Why string
	// Reason is the reason of the first decision of the more severe kind:
	// the rule that made it. Only a rule that reads what actions achieved
	// escalates (Audit.Escalating); another one, a battery rule say, made
	// the change whatever became of the action.
	Reason string
	// PolicyID is the policy of that decision.
	PolicyID string
}

// actionSeverity ranks the kinds that command the vehicle; 0 for the kinds
// that command nothing (proceed, abstain_uncertain, outside the catalog).
func actionSeverity(k decisions.Kind) int {
	switch k {
	case decisions.KindHold:
		return 1
	case decisions.KindYieldToPilot:
		return 2
	case decisions.KindEngageRTL:
		return 3
	case decisions.KindEngageLand:
		return 4
	case decisions.KindEngageKill:
		return 5
	}
	return 0
}

// receipt feeds one decoded action receipt recorded at logNs.
func (c *Collector) receipt(logNs int64, m *ros2msg.ActionReceipt) {
	a := &c.f.Actions
	ev := ActionEvent(m.Event)
	if ev < NumActionEvents {
		a.ByEvent[ev]++
	} else {
		a.OtherEvents++
	}
	if ev == EventFailed || ev == EventRefused {
		a.ByFailure[min(m.Failure, NumFailures)]++
	}
	if m.ActionID == 0 {
		// No action: evidence the Runner rejected before it could name
		// one. It is counted above; it has no row in the trail.
		return
	}
	// Placed by the stamp-to-log offset of the latest stamped message, as
	// an undecodable message is: a receipt carries no belief stamp of its
	// own time.
	at := m.DecisionStampSimNs
	if c.f.HasStamps {
		at = max(satAdd64(logNs, c.lastSkew), m.DecisionStampSimNs)
	}
	i, ok := c.actionIndex[m.ActionID]
	if !ok {
		if len(a.Trail) >= c.opts.MaxActions {
			a.Omitted++
			return
		}
		a.Trail = append(a.Trail, Action{ID: m.ActionID, Kind: decisions.Kind(m.Kind), DecisionNs: m.DecisionStampSimNs,
			Executor: capText(m.ExecutorID, 64), Command: m.Command})
		i = len(a.Trail) - 1
		c.actionIndex[m.ActionID] = i
	}
	act := &a.Trail[i]
	st := ActionStep{Event: ev, AtNs: at, LogNs: logNs, Attempt: m.Attempt, Failure: m.Failure, Ack: -1, NavState: -1,
		Detail: capText(m.Detail, 200)}
	for _, e := range m.Evidence {
		switch e.Kind {
		case evidenceAck:
			st.Ack = int16(e.Result)
			if ev == EventEvidenceAccepted {
				a.ByAck[min(int(e.Result), decisions.NumAckResults)]++
			}
		case evidenceState:
			st.NavState = int16(e.Mode)
		}
	}
	if ev == EventEvidenceAccepted && st.Ack >= 0 {
		act.Ack, act.HasAck = decisions.AckResult(st.Ack), true
	}
	if ev == EventSent || ev == EventRetried {
		act.Sends++
	}
	if ev.Final() {
		act.Outcome, act.HasOutcome = st, true
	}
	if len(act.Steps) < maxSteps {
		act.Steps = append(act.Steps, st)
	} else {
		act.StepsOmitted++
	}
}

// escalations derives the escalation marks from the episodes and the
// action trail (see Escalation).
func escalations(f *Flight) []Escalation {
	var out []Escalation
	acts := f.Actions.Trail
	j := 0
	for i := 1; i < len(f.Episodes); i++ {
		prev, cur := &f.Episodes[i-1], &f.Episodes[i]
		if actionSeverity(cur.Kind) <= actionSeverity(prev.Kind) || actionSeverity(prev.Kind) == 0 {
			continue
		}
		// The last action of the previous kind decided in its episode.
		var last *Action
		for ; j < len(acts) && acts[j].DecisionNs < cur.StartNs; j++ {
			if acts[j].Kind == prev.Kind && acts[j].DecisionNs >= prev.StartNs {
				last = &acts[j]
			}
		}
		if last == nil {
			continue
		}
		why, ok := notReached(last)
		if !ok {
			continue
		}
		e := Escalation{StampNs: cur.StartNs, Episode: cur.N, From: prev.Kind, To: cur.Kind, ActionID: last.ID, Why: why, PolicyID: cur.PolicyID}
		if len(cur.Reasons) > 0 {
			e.Reason = cur.Reasons[0].Name
		}
		out = append(out, e)
	}
	return out
}

// byReason writes the reason of the escalation's decision, " (reason X)",
// or "" when none was recorded.
func (e Escalation) byReason() string {
	if e.Reason == "" {
		return ""
	}
	return " (reason " + e.Reason + ")"
}

// notReached says what became of an action that did not reach its state;
// ok is false when it did, or when it failed as not_applicable.
func notReached(a *Action) (why string, ok bool) {
	id := "action " + strconv.FormatUint(a.ID, 10) + " (" + a.Kind.String() + ")"
	if !a.HasOutcome {
		return id + " was still open", true
	}
	o := a.Outcome
	switch o.Event {
	case EventReached:
		return "", false
	case EventFailed, EventRefused:
		if o.Failure == FailureNotApplicable {
			return "", false
		}
		return id + " " + o.Event.String() + " (" + FailureName(o.Failure) + "): " + o.Detail, true
	case EventSuperseded:
		state := "sent"
		if a.HasAck {
			state = "acknowledged " + a.Ack.String()
		}
		return id + " was " + state + " but had not reached its state when it was superseded", true
	}
	return id + " ended with " + o.Event.String(), true
}

// ActionRow is one row of the action table as text (the golden tests
// compare these).
type ActionRow struct {
	ID, Kind, Decided, Sends, Ack, Outcome, At, Detail string
}

// ActionRows returns the action table's rows for f, as Render prints them.
func ActionRows(f *Flight) []ActionRow {
	t := newTimeAxis(f)
	n := min(len(f.Actions.Trail), maxActionRows)
	rows := make([]ActionRow, 0, n)
	for i := range n {
		a := &f.Actions.Trail[i]
		r := ActionRow{
			ID:      strconv.FormatUint(a.ID, 10),
			Kind:    a.Kind.String(),
			Decided: fmtSec(t.seconds(a.DecisionNs)),
			Sends:   strconv.Itoa(a.Sends),
			Ack:     "none",
			Outcome: a.OutcomeText(),
			At:      "",
		}
		if a.HasAck {
			r.Ack = a.Ack.String()
		}
		if a.HasOutcome {
			r.At, r.Detail = fmtSec(t.seconds(a.Outcome.AtNs)), a.Outcome.Detail
		} else if len(a.Steps) > 0 {
			r.Detail = a.Steps[len(a.Steps)-1].Detail
		}
		rows = append(rows, r)
	}
	return rows
}

// OutcomeText says in a few words what became of an action: "reached",
// "failed: executor (DENIED)", "not applicable", "open at the end".
func (a *Action) OutcomeText() string {
	if !a.HasOutcome {
		return "open at the end"
	}
	o := a.Outcome
	switch o.Event {
	case EventFailed, EventRefused:
		switch o.Failure {
		case FailureNotApplicable:
			return "not applicable"
		case FailureBlockedByPolicy:
			return "blocked by policy"
		}
		s := o.Event.String() + ": " + FailureName(o.Failure)
		switch {
		case o.Failure == FailureExecutor && a.HasAck && !a.Ack.Accepted():
			s += " (" + a.Ack.String() + ")"
		case o.Failure == FailureExecutor && a.HasAck:
			s += " (not reached)"
		case o.Failure == FailureTransport:
			s += " (no ack)"
		}
		return s
	}
	return o.Event.String()
}
