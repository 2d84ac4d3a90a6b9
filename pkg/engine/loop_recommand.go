package engine

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Re-commands: what the Loop does when the vehicle does not follow a
// command while the policy still decides its kind.
//
// An episode is a streak of decisions of one kind; its first command is
// the edge-triggered execute of loop_actions.go. While the streak lasts
// and no action is outstanding, a decision of the streak commands the
// kind again, as a new action with a new id, when
//   - the kind's last command was refused (every acknowledgement's refusal
//     but UNSUPPORTED), not reached, or failed as transport; or it was
//     reached and a context of the streak showed the vehicle in the kind's
//     flight mode, and this one shows it armed in another (it left);
//   - the decision's context shows the vehicle armed and not already in
//     the kind's flight mode (notApplicable: nothing to act on otherwise);
//   - at least the re-command interval has passed, in the deadlines' time
//     (arrival time, or the vehicle's: vehicle_clock.go), since the
//     episode's previous command was first sent;
//   - the episode has sent fewer than 1 + the re-command bound commands;
//   - the kind is not engage_kill: a forced disarm is sent once per
//     episode, again only when the policy decides it anew.
//
// Where a failure is not followed by a re-command for a reason the Loop
// knows when it concludes (re-commanding off, the bound reached, kill,
// UNSUPPORTED), the failure's conclusion says why in its detail; where it
// is, the detail says when. Everything is decided from arrival times,
// belief stamps and the recorded inputs and evidence, so replay and verify
// derive every re-command again.
//
// What the policy sees: while a re-command is under way (sent, no
// acknowledgement yet) the kind's state stays the previous command's
// failure, so a rule's `for` over the failure does not restart at every
// re-command; a re-command that ends as the command before it keeps that
// outcome's since. Commands counts the episode's commands so far (the
// first and the re-commands sent), from the moment each is sent.

// recommandable reports whether a command that ended o may be sent again:
// a refusal other than UNSUPPORTED (sending it again cannot help), not
// reached, or transport.
func recommandable(o decisions.ActionOutcome) bool {
	return o.Refused() && o != decisions.ActionUnsupported || o == decisions.ActionNotReached || o == decisions.ActionTransport
}

// inKindMode reports whether flight mode m is the one kind k commands.
func inKindMode(k decisions.Kind, m decisions.FlightMode) bool {
	switch k {
	case decisions.KindEngageRTL:
		return m == decisions.FlightModeRTL
	case decisions.KindEngageLand:
		return m == decisions.FlightModeLand
	case decisions.KindEngageKill:
		return m == decisions.FlightModeKill
	case decisions.KindYieldToPilot:
		return m == decisions.FlightModeManual || m == decisions.FlightModeStabilize
	}
	return false
}

// recommand sends the kind of cmd, a repeated decision of the episode,
// again when the rules above ask for it.
func (l *Loop) recommand(a *actionState, now int64, cmd *Command, out *Output) {
	cfg := &l.actions
	k := cmd.Decision.Kind
	if a.cur.valid || a.epSends == 0 {
		return // under way, or the episode never sent a command
	}
	route := &cfg.routes[k]
	if route.Executor == "" || !route.Enabled {
		return
	}
	f := cmd.Context.Flight
	if f.Armed && inKindMode(k, f.Mode) {
		a.inMode = true
		return
	}
	t := &a.kinds[k]
	var why string
	switch {
	case !f.Armed:
		return // nothing to act on
	case recommandable(t.outcome):
		why = "its last command ended " + t.outcome.String()
	case t.outcome == decisions.ActionReached && a.inMode:
		why = fmt.Sprintf("the vehicle left the commanded mode (flight mode %s)", f.Mode)
	default:
		return
	}
	if k == decisions.KindEngageKill || cfg.recommand == 0 || int(a.epSends) > cfg.maxRecommands ||
		waited(now, a.epLastSend) < cfg.recommand {
		return
	}
	a.nextID++
	a.epSends, a.epLastSend, a.inMode = a.epSends+1, now, false
	a.cur = activeAction{valid: true, id: a.nextID, stamp: cmd.Decision.DecisionStampSimNs, kind: k, executor: route.Executor,
		attempt: 1, sentAt: now, commands: a.epSends, recommand: true}
	t.commands = a.epSends
	out.Actions = append(out.Actions, l.actionCmd(&a.cur, ActionExecute, fmt.Sprintf(
		"re-command %d of %d: decision %d still decides %s and %s", a.epSends-1, cfg.maxRecommands,
		cmd.Decision.DecisionStampSimNs, k, why)))
}

// recommandPlan says, for the detail of the outstanding action's failure
// (seen, as the policy sees it), whether and when the episode commands
// the kind again.
func (l *Loop) recommandPlan(a *actionState, seen decisions.ActionOutcome) string {
	cfg := &l.actions
	k := a.cur.kind
	switch {
	case k == decisions.KindEngageKill:
		return "; not re-commanded: engage_kill is sent again only when the policy decides it anew"
	case !recommandable(seen):
		return "; not re-commanded: the vehicle does not support the command"
	case cfg.recommand == 0:
		return "; not re-commanded: re-commanding is off"
	case int(a.epSends) > cfg.maxRecommands:
		return fmt.Sprintf("; not re-commanded: the episode sent %d commands, the first and %d re-commands (the bound)",
			a.epSends, cfg.maxRecommands)
	}
	return fmt.Sprintf("; re-command %d of %d due %s%s after this command's first send while %s is decided and the vehicle is armed and not in its mode",
		a.epSends, cfg.maxRecommands, time.Duration(cfg.recommand), cfg.clockWords(), k)
}
