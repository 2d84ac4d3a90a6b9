package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// The action audit. Every recorded receipt is checked on its own:
//   - it traces to a recorded decision of its stamp and kind whose chain
//     verified (or that claims no assessment) and whose re-run matched, and
//     to a host-supplied executor that serves the kind (action_untraced);
//   - its command is that executor's documented mapping of the kind
//     (action_command);
//   - evidence it accepted names its action, its executor and its vehicle,
//     and an acknowledgement names its command (action_evidence);
//
// and the trail as a whole must be the one the Loop and the Runner derive
// from the recording's inputs, the recorded evidence included, with the
// host-supplied executors: receipt for receipt, outcome for outcome
// (action_diverged; times within VerifyOptions.ReceiptTimeSkew). An outcome
// the recorded evidence does not support, a retry the deadlines did not ask
// for, a missing or an extra receipt all show there. A receipt of evidence
// refused while no action was outstanding names nothing to trace: only the
// comparison checks it.

// actionAudit holds the recorded and re-derived receipts until both sides
// of a pair are known, and the verdicts on decisions the receipts name.
type actionAudit struct {
	recorded fifo[session.ActionReceipt]
	// decided are the audited decisions, oldest first: kind, and whether
	// their chain and re-run hold. Their stamps rise in every recording
	// ghost writes, so a lookup is a binary search; the first stamp out of
	// order moves them to decidedMap for good.
	decided    fifo[decidedAt]
	decidedMap map[int64]decidedVerdict
	order      fifo[int64] // stamps of decidedMap, oldest first, to bound it
	// waiting are recorded receipts whose decision is not audited yet.
	waiting fifo[session.ActionReceipt]
	execs   []session.Executor
	// unsupplied is the first executor a receipt named that the host did
	// not supply, "" while there is none.
	unsupplied string
	// enables is the first difference found between the kinds the
	// recording's host enabled and this host's (enablesDiffer), which the
	// divergences after it share; recordedAny is whether the recording
	// holds any receipt.
	enables     problemCause
	recordedAny bool
}

// maxDecidedReserve bounds the storage the decided verdicts take up front
// (3 MiB).
const maxDecidedReserve = 1 << 17

type decidedAt struct {
	stamp int64
	v     decidedVerdict
}

// remember keeps the verdict on the decision at stamp, forgetting the
// oldest beyond max.
func (a *actionAudit) remember(stamp int64, d decidedVerdict, max int) {
	if a.decidedMap == nil {
		if a.decided.items == nil {
			// The queue settles at twice its bound (fifo): taking that
			// at once spares a long run the copies of growing by
			// doubling, on the Loop's goroutine (BENCHMARKS.md).
			a.decided.items = make([]decidedAt, 0, min(2*max, maxDecidedReserve))
		}
		n := a.decided.len()
		switch {
		case n == 0 || a.decided.items[len(a.decided.items)-1].stamp < stamp:
			a.decided.push(decidedAt{stamp, d})
			if n+1 > max {
				a.decided.pop()
			}
			return
		case a.decided.items[len(a.decided.items)-1].stamp == stamp:
			a.decided.items[len(a.decided.items)-1].v = d
			return
		}
		a.decidedMap = make(map[int64]decidedVerdict, n)
		for a.decided.len() > 0 {
			e := a.decided.pop()
			a.decidedMap[e.stamp] = e.v
			a.order.push(e.stamp)
		}
	}
	if _, ok := a.decidedMap[stamp]; !ok {
		a.order.push(stamp)
	}
	a.decidedMap[stamp] = d
	for a.order.len() > max {
		delete(a.decidedMap, a.order.pop())
	}
}

// verdict returns the remembered verdict on the decision at stamp.
func (a *actionAudit) verdict(stamp int64) (decidedVerdict, bool) {
	if a.decidedMap != nil {
		d, ok := a.decidedMap[stamp]
		return d, ok
	}
	es := a.decided.items[a.decided.head:]
	i, ok := slices.BinarySearchFunc(es, stamp, func(e decidedAt, s int64) int { return cmp.Compare(e.stamp, s) })
	if !ok {
		return decidedVerdict{}, false
	}
	return es[i].v, true
}

type decidedVerdict struct {
	kind decisions.Kind
	ok   bool
}

// receipt takes one recorded receipt message.
func (v *verifier) receipt(data []byte, schema string, logTime uint64) {
	var m ros2msg.ActionReceipt
	if schema != "ghost/msg/ActionReceipt" && schema != "ghost/ActionReceipt" {
		v.report.find(FindingUndecodableReceipt, 1)
		v.report.note(v.opts.MaxProblems, FindingUndecodableReceipt, "", "", "%s: message at log time %d has schema %q, not ghost/msg/ActionReceipt", v.actionsT, logTime, schema)
		return
	}
	if err := m.UnmarshalCDR(data); err != nil {
		v.report.find(FindingUndecodableReceipt, 1)
		v.report.note(v.opts.MaxProblems, FindingUndecodableReceipt, "", "", "%s: message at log time %d does not decode as an ActionReceipt: %v", v.actionsT, logTime, err)
		return
	}
	rc := session.ReceiptFromWire(&m)
	ev := rc.Event.String()
	if rc.Event == session.ReceiptFailed {
		ev = "failed_" + rc.Failure.String()
	}
	v.report.Actions[ev]++
	v.acts.recordedAny = true
	if rc.Executor != "" && rc.Failure != engine.FailBlockedByPolicy && int(rc.Kind) < len(v.report.acted) {
		v.report.acted[rc.Kind] = true
	}
	v.acts.recorded.push(rc)
	if !unattached(&rc) {
		v.checkReceipt(&rc)
		v.acts.waiting.push(rc)
	}
	v.compareReceipts(false)
}

// derivedReceipt takes one receipt a candidate's Runner made.
func (v *verifier) derivedReceipt(c *candidate, rc session.ActionReceipt) {
	if c.retired {
		return
	}
	rc.Evidence = slices.Clone(rc.Evidence)
	c.receipts.push(rc)
	if c.receipts.len() > v.opts.MaxHeld && c == v.primary() {
		d := c.receipts.pop()
		v.actionProblem(FindingActionDiverged, &d, "the recording's inputs and evidence give this receipt, but it was not recorded")
	}
	v.compareReceipts(false)
}

// checkReceipt applies the checks that need the receipt alone.
func (v *verifier) checkReceipt(rc *session.ActionReceipt) {
	ex := v.executor(rc.Executor)
	switch {
	case ex == nil:
		v.actionProblem(FindingActionUntraced, rc, "executor %q was not supplied by this host", capText(rc.Executor, 64))
		return
	case !slices.Contains(ex.Kinds(), rc.Kind):
		v.actionProblem(FindingActionUntraced, rc, "executor %s does not serve %s", rc.Executor, rc.Kind)
		return
	}
	if want, _, err := ex.Command(rc.Kind); err != nil || !want.Equal(rc.Command) {
		v.actionProblem(FindingActionCommand, rc, "command %d %v is not %s's mapping of %s (%d %v)", rc.Command.ID, rc.Command.Params, rc.Executor, rc.Kind, want.ID, want.Params)
	}
	if rc.Event != session.ReceiptEvidenceAccepted {
		return
	}
	for i, e := range rc.Evidence {
		var why string
		switch {
		case e.ActionID != rc.ActionID:
			why = fmt.Sprintf("names action %d", e.ActionID)
		case e.Executor != rc.Executor:
			why = fmt.Sprintf("comes from executor %q", capText(e.Executor, 64))
		case e.Vehicle != rc.Vehicle || e.Vehicle != v.opts.Session.TargetVehicle:
			why = fmt.Sprintf("comes from vehicle %d (target %d)", e.Vehicle, v.opts.Session.TargetVehicle)
		case e.Kind == engine.EvidenceAck && e.Command != rc.Command.ID:
			why = fmt.Sprintf("acknowledges command %d", e.Command)
		case e.Kind != engine.EvidenceAck && e.Kind != engine.EvidenceState:
			why = fmt.Sprintf("has kind %d", uint8(e.Kind))
		}
		if why != "" {
			v.actionProblem(FindingActionEvidence, rc, "accepted evidence item %d %s", i, why)
			return
		}
	}
}

// traceWaiting checks the waiting receipts whose decision is audited (all,
// at the end).
func (v *verifier) traceWaiting(end bool) {
	for v.acts.waiting.len() > 0 {
		rc := v.acts.waiting.front()
		if !end && rc.Stamp > v.lastStamp {
			return
		}
		d, ok := v.acts.verdict(rc.Stamp)
		switch {
		case !ok:
			v.actionProblem(FindingActionUntraced, rc, "no recorded decision at stamp %d", rc.Stamp)
		case d.kind != rc.Kind:
			v.actionProblem(FindingActionUntraced, rc, "the decision at stamp %d is %s", rc.Stamp, d.kind)
		case !d.ok:
			v.actionProblem(FindingActionUntraced, rc, "the decision at stamp %d did not verify", rc.Stamp)
		}
		v.acts.waiting.pop()
	}
}

// compareReceipts pairs recorded and re-derived receipts in order; with
// end, what is left on either side is a divergence.
func (v *verifier) compareReceipts(end bool) {
	a := &v.acts
	derived := &fifo[session.ActionReceipt]{}
	if c := v.primary(); c != nil && (v.firstStamp >= 0 || end) {
		derived = &c.receipts
	}
	for a.recorded.len() > 0 && derived.len() > 0 {
		r, d := a.recorded.pop(), derived.pop()
		same, dt := sameReceipt(&r, &d, v.opts.ReceiptTimeSkew)
		if !same {
			if c, ok := enablesDiffer(&r, &d); ok && a.enables.cause == "" {
				a.enables = c
			}
			vehicles := ""
			if r.Vehicle != d.Vehicle {
				vehicles = fmt.Sprintf(" (recorded for vehicle %d, re-derived for vehicle %d)", r.Vehicle, d.Vehicle)
			}
			v.actionProblem(FindingActionDiverged, &r, "recorded %q at %d, but the recording's inputs and evidence give %q at %d%s", r.String(), r.TimeNs, d.String(), d.TimeNs, vehicles)
			continue
		}
		if dt > 0 {
			v.report.ReceiptTimeSkewed++
			v.report.ReceiptTimeSkewMaxNs = max(v.report.ReceiptTimeSkewMaxNs, int64(dt))
		}
	}
	if !end {
		for a.recorded.len() > v.opts.MaxHeld {
			r := a.recorded.pop()
			v.actionProblem(FindingActionDiverged, &r, "recorded, but the recording's inputs and evidence give no such receipt")
		}
		return
	}
	for a.recorded.len() > 0 {
		r := a.recorded.pop()
		why := "recorded, but the recording's inputs and evidence give no such receipt"
		if len(a.execs) == 0 {
			why += " (no executor was supplied to re-check it)"
		}
		v.actionProblem(FindingActionDiverged, &r, "%s", why)
	}
	for derived.len() > 0 {
		d := derived.pop()
		if !a.recordedAny && a.enables.cause == "" {
			// No receipt at all: the recording was made without the
			// executors this host supplied.
			a.enables = problemCause{cause: CauseExecutorNotUsed, subject: capText(d.Executor, 64)}
		}
		v.actionProblem(FindingActionDiverged, &d, "the recording's inputs and evidence give this receipt, but it was not recorded")
	}
}

// enablesDiffer tells, from a recorded receipt r and the re-derived d it
// differs from, whether the hosts enabled different kinds: this host
// blocked a kind the recording's host acted on (CauseKindNotEnabled), or
// the other way round (CauseKindEnabled); the subject is the kind.
func enablesDiffer(r, d *session.ActionReceipt) (problemCause, bool) {
	blocked := func(rc *session.ActionReceipt) bool { return rc.Failure == engine.FailBlockedByPolicy }
	switch {
	case blocked(d) && !blocked(r) && r.Kind == d.Kind:
		return problemCause{f: FindingActionDiverged, cause: CauseKindNotEnabled, subject: d.Kind.String()}, true
	case blocked(r) && !blocked(d) && r.Kind == d.Kind:
		return problemCause{f: FindingActionDiverged, cause: CauseKindEnabled, subject: r.Kind.String()}, true
	}
	return problemCause{}, false
}

// sameReceipt reports whether a recorded receipt r is the re-derived d,
// with times at most skew apart; the difference is returned either way.
func sameReceipt(r, d *session.ActionReceipt, skew time.Duration) (bool, time.Duration) {
	dt := time.Duration(timediff.Abs(timediff.Sub(r.TimeNs, d.TimeNs)))
	return r.ActionID == d.ActionID && r.Stamp == d.Stamp && r.Kind == d.Kind && r.Executor == d.Executor &&
		r.Vehicle == d.Vehicle && r.Event == d.Event && r.Attempt == d.Attempt && r.Command.Equal(d.Command) &&
		r.Failure == d.Failure && slices.Equal(r.Evidence, d.Evidence) && r.Detail == d.Detail && dt <= skew, dt
}

// unattached reports whether rc records evidence refused while no action
// was outstanding (a late acknowledgement, say): it names no action,
// executor or decision to trace, and is checked only against the
// re-derived trail.
func unattached(rc *session.ActionReceipt) bool {
	return rc.Event == session.ReceiptEvidenceRejected && rc.ActionID == 0 && rc.Executor == ""
}

func (v *verifier) executor(id string) session.Executor {
	for _, e := range v.acts.execs {
		if e.ID() == id {
			return e
		}
	}
	return nil
}

// actionProblem reports a problem of one receipt. A receipt by an
// executor the host did not supply, and any receipt while the host
// supplied none, share that cause: the fix is to supply the executor. So
// do the receipts of a recording whose policy the host did not supply,
// and the divergences that follow from other enables than the
// recording's host's.
func (v *verifier) actionProblem(f Finding, rc *session.ActionReceipt, format string, args ...any) {
	v.report.find(f, 1)
	cause, subject := "", ""
	switch {
	case rc.Executor != "" && v.executor(rc.Executor) == nil:
		cause, subject = CauseExecutorNotSupplied, capText(rc.Executor, 64)
		if v.acts.unsupplied == "" {
			v.acts.unsupplied = subject
		}
	case len(v.acts.execs) == 0 && v.acts.unsupplied != "":
		cause, subject = CauseExecutorNotSupplied, v.acts.unsupplied
	case v.firstStamp >= 0 && v.primary() == nil && !v.supplied(v.firstPolicy):
		// Nothing was re-run: no receipt traces to a verified decision,
		// and none was re-derived.
		cause, subject = CausePolicyNotSupplied, capText(v.firstPolicy, 80)
	case rc.Executor != "" && rc.Vehicle != v.opts.Session.TargetVehicle:
		cause, subject = CauseVehicleNotTarget, strconv.FormatUint(uint64(rc.Vehicle), 10)
	case v.acts.enables.cause != "" && f == FindingActionDiverged:
		cause, subject = v.acts.enables.cause, v.acts.enables.subject
	}
	v.report.note(v.opts.MaxProblems, f, cause, subject, "%s: action %d (%s of %s at stamp %d): %s", f, rc.ActionID, rc.Event, rc.Kind, rc.Stamp, fmt.Sprintf(format, args...))
}

// actionSinkFunc adapts a function to a session.ActionSink.
type actionSinkFunc func(session.ActionReceipt) error

func (f actionSinkFunc) PublishReceipt(rc session.ActionReceipt) error { return f(rc) }
