package engine

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// The action rules, in one place (the join rules live in join.go).
//
// Execute (edge-triggered): when the decided kind differs from the previous
// decision's kind, the outstanding action (if any) is superseded, and if the
// new kind is routed to an executor a new action starts: blocked_by_policy
// when the operator did not enable the kind, not_applicable when the
// decision's own context shows the command cannot or need not act (the
// vehicle is disarmed; its flight mode already is the commanded one),
// otherwise an execute command. A repeated kind starts nothing but a
// re-command (loop_recommand.go: the vehicle refused, did not reach or
// left the commanded mode, at most one per interval and a bounded number
// per streak; a policy can escalate meanwhile: it sees the failure,
// below). One more exception:
// when the streak's last action ended not_applicable because the vehicle
// was disarmed, the first later decision of the streak whose context makes
// the kind applicable (armed, not already in the commanded mode) starts it
// again, as a new action with a new id: a kind decided on the ground is
// sent once the vehicle arms. One that was not applicable because the
// vehicle already was in the commanded mode is not sent when the vehicle
// leaves that mode: leaving it is the pilot's or the autopilot's choice,
// which ghost does not fight; a policy that wants it back decides another
// kind first, or latches with clear: on_mode_change. A restarted action
// that ends otherwise is not started again.
//
// Evidence (for the outstanding action only; the Runner has checked its
// provenance): an acknowledgement ACCEPTED or IN_PROGRESS makes the action
// accepted, any other result fails it as executor; a state meeting the
// route's expectation, once accepted, makes it reached. A repeated
// acknowledgement changes nothing.
//
// Deadlines, in arrival time or, with DeadlinesVehicle, in the vehicle's
// time (vehicle_clock.go): no acknowledgement AckTimeout after the last
// send gives a retry, up to MaxRetries, then a transport failure; no
// expected state ReachTimeout after acceptance gives an executor failure.
//
// Within a step: evidence first, then deadlines, then the step's decisions
// in stamp order; so a retry the deadline asks for in the step whose
// decision supersedes the action is stale, and the Runner refuses it.
//
// What the policy sees (decisions.Context.Actions, when any kind is
// routed): per kind, its route and enable and what became of its last
// action (sent, accepted or in_progress by the acknowledgement's result,
// reached, superseded, or the failure: denied, temporarily_rejected,
// unsupported, failed, cancelled or unknown_result by the
// acknowledgement's result, not_reached, transport, not_applicable,
// blocked_by_policy), as of after
// the step's evidence and deadlines and before the step's own decisions:
// every decision of a step sees the same state, and an action a decision
// starts is seen from the next step on. Its since is the belief stamp of
// the first context that saw the outcome, the clock a rule's `for` counts
// in. It is a function of the recorded inputs and evidence only, so replay
// and verify derive it again exactly.

// actionState is the Loop's part of the action trail: the previous
// decided kind (for edges), the outstanding action, and what became of
// each kind's last action.
type actionState struct {
	nextID   uint64
	lastKind decisions.Kind
	decided  bool
	cur      activeAction
	kinds    [decisions.NumKinds]kindTrack
	// awaitArm: the streak's last action was not applicable because the
	// vehicle was disarmed, so arming may start it again.
	awaitArm bool
	// The streak's (episode's) commands (loop_recommand.go): how many were
	// sent, the arrival time of the newest, and whether a context of the
	// streak showed the vehicle in the kind's mode.
	epSends    uint8
	epLastSend int64
	inMode     bool
}

// kindTrack is what became of one kind's last action.
type kindTrack struct {
	id       uint64
	stamp    int64
	outcome  decisions.ActionOutcome
	attempts uint8
	commands uint8
	// seen: a context saw outcome, first at since.
	seen  bool
	since int64
}

// track records outcome o for the kind of the outstanding action. A
// re-command that ends as the command before it keeps that outcome's
// since: the failure has lasted since then.
func (a *actionState) track(o decisions.ActionOutcome) {
	c := &a.cur
	t := kindTrack{id: c.id, stamp: c.stamp, outcome: o, attempts: c.attempt, commands: c.commands}
	if prev := &a.kinds[c.kind]; c.recommand && prev.outcome == o {
		t.seen, t.since = prev.seen, prev.since
	}
	a.kinds[c.kind] = t
}

type activeAction struct {
	valid    bool
	id       uint64
	stamp    int64
	kind     decisions.Kind
	executor string
	attempt  uint8
	// commands: this action's command is the episode's commands-th (0
	// when nothing is sent); recommand: it is not the first.
	commands   uint8
	recommand  bool
	sentAt     int64
	accepted   bool
	acceptedAt int64
	// The newest observed state, applied on acceptance.
	haveState bool
	mode      uint8
	armed     bool
}

// actionConfig is ActionOptions with the defaults filled in.
type actionConfig struct {
	routes     [decisions.NumKinds]ActionRoute
	routed     bool // some kind has an executor
	ackTimeout uint64
	maxRetries int
	reach      uint64
	// recommand is the re-command interval, 0 when re-commanding is off;
	// maxRecommands bounds the re-commands of one episode.
	recommand     uint64
	maxRecommands int
	// deadlines is the time the deadlines above count in.
	deadlines DeadlineClock
}

func newActionConfig(o ActionOptions) (actionConfig, error) {
	c := actionConfig{routes: o.Routes, deadlines: o.Deadlines}
	if o.Deadlines >= numDeadlineClocks {
		return c, fmt.Errorf("%w: Actions.Deadlines = %d: want DeadlinesArrival (0) or DeadlinesVehicle (1)", ErrOptions, uint8(o.Deadlines))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		def  time.Duration
		dst  *uint64
	}{
		{"Actions.AckTimeout", o.AckTimeout, DefaultAckTimeout, &c.ackTimeout},
		{"Actions.ReachTimeout", o.ReachTimeout, DefaultReachTimeout, &c.reach},
	} {
		switch {
		case d.v < 0:
			return c, fmt.Errorf("%w: %s = %s: must be >= 0 (0 means %s)", ErrOptions, d.name, d.v, d.def)
		case d.v == 0:
			*d.dst = uint64(d.def)
		default:
			*d.dst = uint64(d.v)
		}
	}
	var err error
	if c.maxRetries, err = countOption("Actions.MaxRetries", o.MaxRetries, DefaultMaxRetries); err != nil {
		return c, err
	}
	switch {
	case o.RecommandInterval < 0:
		c.recommand = 0
	case o.RecommandInterval == 0:
		c.recommand = uint64(DefaultRecommandInterval)
	default:
		c.recommand = uint64(o.RecommandInterval)
	}
	if c.maxRecommands, err = countOption("Actions.MaxRecommands", o.MaxRecommands, DefaultMaxRecommands); err != nil {
		return c, err
	}
	if c.maxRecommands == 0 {
		c.recommand = 0
	}
	for k, r := range o.Routes {
		if r.Executor == "" {
			continue
		}
		c.routed = true
		if !ValidExecutorID(r.Executor) {
			return c, fmt.Errorf("%w: Actions.Routes[%s].Executor = %q: must match ^[a-z][a-z0-9_]*$, 1 to 64 characters",
				ErrOptions, decisions.Kind(k), capText(r.Executor, 64))
		}
	}
	return c, nil
}

// clockWords names the deadlines' time in a receipt's detail: nothing for
// arrival time, the default.
func (c *actionConfig) clockWords() string {
	if c.deadlines == DeadlinesVehicle {
		return " of vehicle time"
	}
	return ""
}

// ValidExecutorID reports whether s is a valid executor id: it matches
// ^[a-z][a-z0-9_]*$ and has 1 to 64 characters.
func ValidExecutorID(s string) bool { return len(s) <= 64 && validID(s) }

// validID reports whether s matches ^[a-z][a-z0-9_]*$.
func validID(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// settleActions appends to out the action commands the step's admitted
// evidence (nil for other events) and the deadlines at time now cause. It
// works on a, a copy of the session's action state that Step commits on
// success.
func (l *Loop) settleActions(a *actionState, now int64, evidence []Evidence, out *Output) {
	cfg := &l.actions
	if len(evidence) > 0 && a.cur.valid {
		l.applyEvidence(a, now, out.keepEvidence(evidence), out)
	}
	if c := &a.cur; c.valid {
		switch {
		case !c.accepted && waited(now, c.sentAt) >= cfg.ackTimeout:
			if int(c.attempt) <= cfg.maxRetries {
				c.attempt++
				c.sentAt = now
				if !c.recommand {
					a.kinds[c.kind].attempts = c.attempt
				}
				out.Actions = append(out.Actions, l.actionCmd(c, ActionRetry, fmt.Sprintf(
					"no acknowledgement %s%s after send %d", time.Duration(cfg.ackTimeout), cfg.clockWords(), c.attempt-1)))
			} else {
				l.conclude(a, OutcomeFailed, FailTransport, decisions.ActionTransport, nil, fmt.Sprintf(
					"no acknowledgement %s%s after the last of %d sends", time.Duration(cfg.ackTimeout), cfg.clockWords(), c.attempt), out)
			}
		case c.accepted && waited(now, c.acceptedAt) >= cfg.reach:
			l.conclude(a, OutcomeFailed, FailExecutor, decisions.ActionNotReached, nil, fmt.Sprintf(
				"accepted, but the vehicle was not observed in %s within %s%s", cfg.routes[c.kind].Expect, time.Duration(cfg.reach), cfg.clockWords()), out)
		}
	}
}

// actionStates returns what the policy sees of a for a context at stamp,
// the first of its step: a kind's outcome no context saw yet is seen from
// stamp on. It is nil when no kind is routed. Every context of a step gets
// the same state, kept in out.
func (l *Loop) actionStates(a *actionState, stamp int64, out *Output) *decisions.ActionStates {
	if !l.actions.routed {
		return nil
	}
	if out.haveActionStates {
		return &out.actionStates
	}
	s := &out.actionStates
	for k := range a.kinds {
		t := &a.kinds[k]
		r := &l.actions.routes[k]
		if t.outcome != decisions.ActionNone && !t.seen {
			t.seen, t.since = true, stamp
		}
		s[k] = decisions.ActionState{Routed: r.Executor != "", Enabled: r.Executor != "" && r.Enabled,
			ID: t.id, DecisionStampSimNs: t.stamp, Outcome: t.outcome, Attempts: t.attempts, Commands: t.commands, SinceStampSimNs: -1}
		if t.outcome != decisions.ActionNone {
			s[k].SinceStampSimNs = t.since
		}
	}
	out.haveActionStates = true
	return s
}

// startActions appends to out the action commands of the step's decisions,
// already in out.Commands, and says which action is outstanding after the
// step.
func (l *Loop) startActions(a *actionState, now int64, out *Output) {
	cfg := &l.actions
	for i := range out.Commands {
		cmd := &out.Commands[i]
		k := cmd.Decision.Kind
		repeat := a.decided && k == a.lastKind
		if repeat && !(a.kinds[k].outcome == decisions.ActionNotApplicable && !a.cur.valid && a.awaitArm) {
			l.recommand(a, now, cmd, out)
			continue
		}
		route := cfg.routes[k]
		why := notApplicable(k, cmd.Context.Flight)
		if repeat && (why != "" || route.Executor == "" || !route.Enabled) {
			continue // still nothing to act on
		}
		a.decided, a.lastKind = true, k
		if !repeat {
			a.epSends, a.inMode = 0, false
		}
		if a.cur.valid {
			l.conclude(a, OutcomeSuperseded, FailNone, decisions.ActionSuperseded, nil, fmt.Sprintf(
				"decision %d (%s) superseded it", cmd.Decision.DecisionStampSimNs, k), out)
		}
		if route.Executor == "" {
			continue // advisory
		}
		a.nextID++
		start := activeAction{valid: true, id: a.nextID, stamp: cmd.Decision.DecisionStampSimNs, kind: k, executor: route.Executor}
		a.awaitArm = why != "" && !cmd.Context.Flight.Armed
		switch {
		case !route.Enabled:
			a.cur = start
			l.conclude(a, OutcomeFailed, FailBlockedByPolicy, decisions.ActionBlockedByPolicy, nil, fmt.Sprintf(
				"%s is served by executor %s but not enabled", k, route.Executor), out)
		case why != "":
			a.cur = start
			l.conclude(a, OutcomeFailed, FailNotApplicable, decisions.ActionNotApplicable, nil, why, out)
		default:
			start.attempt, start.sentAt = 1, now
			a.epSends, a.epLastSend = a.epSends+1, now
			start.commands = a.epSends
			a.cur = start
			a.track(decisions.ActionSent)
			detail := fmt.Sprintf("the decided kind changed to %s", k)
			if repeat {
				detail = fmt.Sprintf("%s was not applicable before; decision %d's context makes it applicable", k, cmd.Decision.DecisionStampSimNs)
			}
			out.Actions = append(out.Actions, l.actionCmd(&a.cur, ActionExecute, detail))
		}
	}
	if a.cur.valid {
		out.ActiveAction = a.cur.id
	}
}

// applyEvidence judges the outstanding action's admitted evidence, in order.
func (l *Loop) applyEvidence(a *actionState, now int64, ev []Evidence, out *Output) {
	exp := l.actions.routes[a.cur.kind].Expect
	for i := range ev {
		e := &ev[i]
		c := &a.cur
		if !c.valid || e.ActionID != c.id {
			return
		}
		switch e.Kind {
		case EvidenceAck:
			if c.accepted {
				continue // a repeated or late acknowledgement changes nothing
			}
			if !e.Result.Accepted() {
				l.conclude(a, OutcomeFailed, FailExecutor, refusal(e.Result), ev[i:i+1], fmt.Sprintf(
					"the vehicle acknowledged command %d with %s", e.Command, e.Result), out)
				return
			}
			c.accepted, c.acceptedAt = true, now
			a.track(acceptance(e.Result))
			out.Actions = append(out.Actions, l.actionCmd(c, ActionConclude, "acknowledged "+e.Result.String(), ev[i:i+1]...))
			out.Actions[len(out.Actions)-1].Outcome = OutcomeAccepted
			if c.haveState && exp.Met(c.mode, c.armed) {
				l.conclude(a, OutcomeReached, FailNone, decisions.ActionReached, nil, fmt.Sprintf("observed %s", exp), out)
				return
			}
		case EvidenceState:
			c.haveState, c.mode, c.armed = true, e.Mode, e.Armed
			if c.accepted && exp.Met(e.Mode, e.Armed) {
				l.conclude(a, OutcomeReached, FailNone, decisions.ActionReached, ev[i:i+1], fmt.Sprintf("observed %s", exp), out)
				return
			}
		}
	}
}

// conclude ends the outstanding action with outcome o (f when it failed),
// which the policy sees as seen.
func (l *Loop) conclude(a *actionState, o Outcome, f FailureClass, seen decisions.ActionOutcome, ev []Evidence, detail string, out *Output) {
	if f == FailExecutor || f == FailTransport {
		detail += l.recommandPlan(a, seen)
	}
	cmd := l.actionCmd(&a.cur, ActionConclude, detail, ev...)
	cmd.Outcome, cmd.Failure = o, f
	out.Actions = append(out.Actions, cmd)
	a.track(seen)
	a.cur = activeAction{}
}

// acceptance is what the policy sees of an acknowledgement that accepted:
// ACCEPTED or IN_PROGRESS, each under its own name.
func acceptance(result decisions.AckResult) decisions.ActionOutcome {
	if result == decisions.AckInProgress {
		return decisions.ActionInProgress
	}
	return decisions.ActionAccepted
}

// refusal is what the policy sees of an acknowledgement that refused: each
// MAV_RESULT under its own name, unknown_result for a value MAV_RESULT
// does not define.
func refusal(result decisions.AckResult) decisions.ActionOutcome {
	switch result {
	case decisions.AckDenied:
		return decisions.ActionDenied
	case decisions.AckTemporarilyRejected:
		return decisions.ActionTemporarilyRejected
	case decisions.AckUnsupported:
		return decisions.ActionUnsupported
	case decisions.AckFailed:
		return decisions.ActionFailed
	case decisions.AckCancelled:
		return decisions.ActionCancelled
	}
	return decisions.ActionUnknownResult
}

// countOption resolves a bounded count of ActionOptions: 0 is its default
// def, a negative value none, and more than 250 an error.
func countOption(name string, v, def int) (int, error) {
	switch {
	case v == 0:
		return def, nil
	case v < 0:
		return 0, nil
	case v > 250:
		return 0, fmt.Errorf("%w: %s = %d: must be at most 250", ErrOptions, name, v)
	}
	return v, nil
}

func (l *Loop) actionCmd(c *activeAction, op ActionOp, detail string, ev ...Evidence) ActionCommand {
	return ActionCommand{Op: op, ID: c.id, Stamp: c.stamp, Kind: c.kind, Executor: c.executor,
		Attempt: c.attempt, Evidence: ev, Detail: detail}
}

// notApplicable says why kind k cannot or need not act in the flight status
// of the decision's context, or "".
func notApplicable(k decisions.Kind, f decisions.FlightStatus) string {
	if !f.Armed {
		return fmt.Sprintf("the vehicle is disarmed (FlightStatus.armed = false): %s has nothing to act on", k)
	}
	already := false
	switch k {
	case decisions.KindEngageRTL:
		already = f.Mode == decisions.FlightModeRTL
	case decisions.KindEngageLand:
		already = f.Mode == decisions.FlightModeLand
	case decisions.KindEngageKill:
		already = f.Mode == decisions.FlightModeKill
	case decisions.KindYieldToPilot:
		already = f.Mode == decisions.FlightModeManual || f.Mode == decisions.FlightModeStabilize
	}
	if already {
		return fmt.Sprintf("the vehicle's flight mode is already %s: %s need not act", f.Mode, k)
	}
	return ""
}
