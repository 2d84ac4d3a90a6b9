package rules

import (
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"go.yaml.in/yaml/v3"
)

// Conditions over the action state (decisions.Context.Actions): what
// became of the last command of a kind, and whether the kind is enabled.
//
//	{action: {kind: engage_land, outcome: {in: [refused, not_reached]}}}
//	{action: {kind: engage_kill, enabled: true}}
//	{action: {kind: engage_rtl, outcome: refused, commands: {ge: 3}}}
//
// commands is how many commands of the kind the current streak of its
// decisions sent (the first and the re-commands, decisions.ActionState
// Commands), so a policy can escalate after a number of refused commands.
//
// They are never unknown: a kind no executor serves, and every kind of a
// context without action state (an advisory session), reads as not enabled
// with outcome none.

var kindNames = enumNames(func(i int) (string, bool) { k := decisions.Kind(i); return k.String(), k.Valid() })
var outcomeNames = enumNames(func(i int) (string, bool) { o := decisions.ActionOutcome(i); return o.String(), o.Valid() })

// outcomeMask returns the bits of outcomes outs.
func outcomeMask(outs ...decisions.ActionOutcome) uint32 {
	m := uint32(0)
	for _, o := range outs {
		m |= 1 << o
	}
	return m
}

// Sets of outcomes the groups and the canonical form name.
var (
	maskPending  = outcomeMask(decisions.ActionSent, decisions.ActionAccepted, decisions.ActionInProgress)
	maskRejected = outcomeMask(decisions.ActionUnsupported, decisions.ActionFailed, decisions.ActionCancelled, decisions.ActionUnknownResult)
	maskRefused  = outcomeMask(decisions.ActionDenied, decisions.ActionTemporarilyRejected) | maskRejected
	maskExecutor = maskRefused | outcomeMask(decisions.ActionNotReached)
	maskFailure  = maskExecutor | outcomeMask(decisions.ActionTransport, decisions.ActionNotApplicable, decisions.ActionBlockedByPolicy)
)

// outcomeGroup names a set of outcomes; a group stands for its members
// wherever an outcome may be written.
type outcomeGroup struct {
	name string
	mask uint32
	// misleading, when set, is why a PX4 user misreads the name: Check
	// reports every use of it.
	misleading string
}

var outcomeGroups = []outcomeGroup{
	{name: "pending", mask: maskPending},
	{name: "refused", mask: maskRefused},
	{name: "executor", mask: maskExecutor},
	{name: "any_failure", mask: maskFailure},
	// The first version's word for the refusals other than DENIED and
	// TEMPORARILY_REJECTED, kept so its policies load and keep their ids.
	{name: "rejected", mask: maskRejected, misleading: "outcome rejected covers UNSUPPORTED, FAILED, CANCELLED and unknown results only: " +
		"DENIED and TEMPORARILY_REJECTED (PX4's answer to a mode that cannot run now) do not match it; write refused for every refusal, " +
		"or {in: [unsupported, failed, cancelled, unknown_result]} for this set (the policy id stays the same)"},
}

// outcomeWords are the outcome names, then the group names.
var outcomeWords = func() []string {
	w := append([]string(nil), outcomeNames...)
	for _, g := range outcomeGroups {
		w = append(w, g.name)
	}
	return w
}()

// action compiles {action: {kind: K, outcome: O, enabled: B, commands: N}}:
// one leaf, or the conjunction of the tests.
func (b *builder) action(y *yaml.Node, what string) (int32, error) {
	f, err := b.r.fields(y, what, []string{"kind", "outcome", "enabled", "commands"}, []string{"kind"})
	if err != nil {
		return 0, err
	}
	k, err := b.r.name(f["kind"].val, what+".kind", kindNames)
	if err != nil {
		return 0, err
	}
	var leaves []int32
	if e, ok := f["outcome"]; ok {
		mask, err := b.outcomes(e.val, what+".outcome")
		if err != nil {
			return 0, err
		}
		leaves = append(leaves, b.add(node{op: opActOutcome, arg: uint8(k), mask: mask}))
	}
	if e, ok := f["enabled"]; ok {
		on, err := b.r.boolean(e.val, what+".enabled")
		if err != nil {
			return 0, err
		}
		mask := uint32(1)
		if on {
			mask = 2
		}
		leaves = append(leaves, b.add(node{op: opActEnabled, arg: uint8(k), mask: mask}))
	}
	if e, ok := f["commands"]; ok {
		ck, w := &condKinds[opActCommands], what+".commands"
		bf, err := b.r.fields(e.val, w, ck.ops, nil)
		if err != nil {
			return 0, err
		}
		iv, err := b.bounds(e.val, bf, w, ck, 0)
		if err != nil {
			return 0, err
		}
		leaves = append(leaves, b.add(node{op: opActCommands, arg: uint8(k), iv: iv}))
	}
	switch len(leaves) {
	case 0:
		return 0, b.r.errf(y, "%s: want outcome, enabled or commands besides kind", what)
	case 1:
		return leaves[0], nil
	}
	return b.add(node{op: opAll, kids: leaves}), nil
}

// outcomes reads an outcome or group name, or {in: [names...]}.
func (b *builder) outcomes(y *yaml.Node, what string) (uint32, error) {
	if y.Kind == yaml.ScalarNode {
		_, m, err := b.outcomeWord(y, what)
		return m, err
	}
	f, err := b.r.fields(y, what, []string{"in"}, []string{"in"})
	if err != nil {
		return 0, err
	}
	w := what + ".in"
	items, err := b.r.seq(f["in"].val, w)
	if err != nil {
		return 0, err
	}
	if len(items) == 0 {
		return 0, b.r.errf(f["in"].val, "%s: want at least one outcome", w)
	}
	mask, seen := uint32(0), make([]bool, len(outcomeWords))
	for _, it := range items {
		i, m, err := b.outcomeWord(it, w)
		if err != nil {
			return 0, err
		}
		if seen[i] {
			return 0, b.r.errf(it, "%s: %s listed twice", w, quote(it.Value))
		}
		seen[i] = true
		mask |= m
	}
	return mask, nil
}

// outcomeWord reads an outcome or group name: its index in outcomeWords
// and the outcomes it stands for. A misleading group name is noted for
// Check.
func (b *builder) outcomeWord(y *yaml.Node, what string) (int, uint32, error) {
	i, err := b.r.name(y, what, outcomeWords)
	switch {
	case err != nil:
		return 0, 0, err
	case i < len(outcomeNames):
		return i, 1 << i, nil
	}
	g := &outcomeGroups[i-len(outcomeNames)]
	if g.misleading != "" {
		b.notes = append(b.notes, note{line: y.Line, col: y.Column, msg: g.misleading})
	}
	return i, g.mask, nil
}

// outcomeTokens are the words the canonical form writes sets of outcomes
// in, in this order: the first version's outcome words, of which accepted
// stood for ACCEPTED and IN_PROGRESS and rejected for UNSUPPORTED, FAILED,
// CANCELLED and unknown results. A set holding such a word's outcomes
// whole is written with the word, so the ids of policies written before
// each MAV_RESULT had its own name stand; a part of one is written as its
// outcomes' upper-case names (resultWords), which no word is.
var outcomeTokens = []struct {
	word string
	mask uint32
}{
	{"none", outcomeMask(decisions.ActionNone)},
	{"sent", outcomeMask(decisions.ActionSent)},
	{"accepted", outcomeMask(decisions.ActionAccepted, decisions.ActionInProgress)},
	{"reached", outcomeMask(decisions.ActionReached)},
	{"superseded", outcomeMask(decisions.ActionSuperseded)},
	{"denied", outcomeMask(decisions.ActionDenied)},
	{"temporarily_rejected", outcomeMask(decisions.ActionTemporarilyRejected)},
	{"rejected", maskRejected},
	{"not_reached", outcomeMask(decisions.ActionNotReached)},
	{"transport", outcomeMask(decisions.ActionTransport)},
	{"not_applicable", outcomeMask(decisions.ActionNotApplicable)},
	{"blocked_by_policy", outcomeMask(decisions.ActionBlockedByPolicy)},
}

var resultWords = func() []string {
	out := make([]string, len(outcomeNames))
	for i, n := range outcomeNames {
		out[i] = strings.ToUpper(n)
	}
	return out
}()

// appendOutcomes writes the set mask as a JSON list of outcomeTokens.
func appendOutcomes(b []byte, mask uint32) []byte {
	b = append(b, '[')
	first := true
	word := func(w string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, w...)
		b = append(b, '"')
	}
	for _, t := range outcomeTokens {
		switch m := mask & t.mask; {
		case m == 0:
		case m == t.mask:
			word(t.word)
		default:
			for i := range resultWords {
				if inMask(m, uint8(i)) {
					word(resultWords[i])
				}
			}
		}
	}
	return append(b, ']')
}

// ownModes are, per kind, the flight modes its command puts the vehicle
// in: a change into one of them does not release a rule of that kind whose
// clear is on_mode_change (the vehicle doing what the rule asked is not
// the pilot changing mode). A hold's loiter has no FlightStatus name and
// reads init.
var ownModes = [decisions.NumKinds]uint32{
	decisions.KindHold:         1 << decisions.FlightModeInit,
	decisions.KindYieldToPilot: 1<<decisions.FlightModeManual | 1<<decisions.FlightModeStabilize,
	decisions.KindEngageRTL:    1 << decisions.FlightModeRTL,
	decisions.KindEngageLand:   1 << decisions.FlightModeLand,
	decisions.KindEngageKill:   1 << decisions.FlightModeKill,
}
