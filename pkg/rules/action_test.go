package rules

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// acted sets kind k's action state: routed, enabled as given, outcome o.
func acted(k decisions.Kind, o decisions.ActionOutcome, enabled bool) ctxOpt {
	return func(c *decisions.Context) {
		if c.Actions == nil {
			c.Actions = &decisions.ActionStates{}
			for i := range c.Actions {
				c.Actions[i].SinceStampSimNs = -1
			}
		}
		a := decisions.ActionState{Routed: true, Enabled: enabled, Outcome: o, SinceStampSimNs: -1}
		if o != decisions.ActionNone {
			a.ID, a.SinceStampSimNs = 1, 0
		}
		c.Actions[k] = a
	}
}

// commanded sets the commands of kind k's current episode (after acted).
func commanded(k decisions.Kind, n uint8) ctxOpt {
	return func(c *decisions.Context) { c.Actions[k].Commands = n }
}

// Action conditions: outcome names, groups and lists, enables, both tests
// at once; never unknown, even without action state.
func TestActionConditions(t *testing.T) {
	const T, F = "fired", "nominal"
	land, kill, hold := decisions.KindEngageLand, decisions.KindEngageKill, decisions.KindHold
	tests := []struct {
		name, cond string
		opts       []ctxOpt
		want       string
	}{
		{"outcome name", "{action: {kind: engage_land, outcome: denied}}", []ctxOpt{acted(land, decisions.ActionDenied, true)}, T},
		{"outcome name, other outcome", "{action: {kind: engage_land, outcome: denied}}", []ctxOpt{acted(land, decisions.ActionNotReached, true)}, F},
		{"outcome of another kind", "{action: {kind: engage_land, outcome: denied}}", []ctxOpt{acted(hold, decisions.ActionDenied, true)}, F},
		{"in list", "{action: {kind: engage_land, outcome: {in: [denied, not_reached]}}}", []ctxOpt{acted(land, decisions.ActionNotReached, true)}, T},
		{"in list miss", "{action: {kind: engage_land, outcome: {in: [denied, not_reached]}}}", []ctxOpt{acted(land, decisions.ActionTransport, true)}, F},
		{"any_failure covers every failure", "{action: {kind: hold, outcome: any_failure}}", []ctxOpt{acted(hold, decisions.ActionBlockedByPolicy, false)}, T},
		{"any_failure is not superseded", "{action: {kind: hold, outcome: any_failure}}", []ctxOpt{acted(hold, decisions.ActionSuperseded, true)}, F},
		{"failed is MAV_RESULT_FAILED", "{action: {kind: hold, outcome: failed}}", []ctxOpt{acted(hold, decisions.ActionFailed, true)}, T},
		{"failed is not every failure", "{action: {kind: hold, outcome: failed}}", []ctxOpt{acted(hold, decisions.ActionTransport, true)}, F},
		{"accepted is not in_progress", "{action: {kind: hold, outcome: accepted}}", []ctxOpt{acted(hold, decisions.ActionInProgress, true)}, F},
		{"executor group", "{action: {kind: hold, outcome: executor}}", []ctxOpt{acted(hold, decisions.ActionTemporarilyRejected, true)}, T},
		{"executor group excludes transport", "{action: {kind: hold, outcome: executor}}", []ctxOpt{acted(hold, decisions.ActionTransport, true)}, F},
		{"pending is sent", "{action: {kind: hold, outcome: pending}}", []ctxOpt{acted(hold, decisions.ActionSent, true)}, T},
		{"pending is accepted", "{action: {kind: hold, outcome: pending}}", []ctxOpt{acted(hold, decisions.ActionAccepted, true)}, T},
		{"pending is in_progress", "{action: {kind: hold, outcome: pending}}", []ctxOpt{acted(hold, decisions.ActionInProgress, true)}, T},
		{"pending is not reached", "{action: {kind: hold, outcome: pending}}", []ctxOpt{acted(hold, decisions.ActionReached, true)}, F},
		{"groups and names mix", "{action: {kind: hold, outcome: {in: [executor, transport]}}}", []ctxOpt{acted(hold, decisions.ActionTransport, true)}, T},
		{"none without action state", "{action: {kind: engage_land, outcome: none}}", nil, T},
		{"no outcome without action state", "{action: {kind: engage_land, outcome: any_failure}}", nil, F},
		{"not enabled without action state", "{action: {kind: engage_kill, enabled: false}}", nil, T},
		{"enabled", "{action: {kind: engage_kill, enabled: true}}", []ctxOpt{acted(kill, decisions.ActionNone, true)}, T},
		{"routed, not enabled", "{action: {kind: engage_kill, enabled: true}}", []ctxOpt{acted(kill, decisions.ActionNone, false)}, F},
		{"an unrouted kind is not enabled", "{action: {kind: engage_kill, enabled: true}}", []ctxOpt{acted(land, decisions.ActionNone, true)}, F},
		{"both tests hold", "{action: {kind: engage_land, outcome: reached, enabled: true}}", []ctxOpt{acted(land, decisions.ActionReached, true)}, T},
		{"both tests, one fails", "{action: {kind: engage_land, outcome: reached, enabled: true}}", []ctxOpt{acted(land, decisions.ActionReached, false)}, F},
		{"not of an action test", "{not: {action: {kind: engage_land, outcome: any_failure}}}", nil, T},
		{"with an unknown part", "{any: [{action: {kind: hold, outcome: sent}}, {perception_mode: nominal}]}", nil, "missing_perception"},
		{"true beats an unknown part", "{any: [{action: {kind: hold, outcome: sent}}, {perception_mode: nominal}]}", []ctxOpt{acted(hold, decisions.ActionSent, true)}, T},
		{"commands reached", "{action: {kind: engage_land, outcome: refused, commands: {ge: 3}}}", []ctxOpt{acted(land, decisions.ActionDenied, true), commanded(land, 3)}, T},
		{"commands not yet", "{action: {kind: engage_land, outcome: refused, commands: {ge: 3}}}", []ctxOpt{acted(land, decisions.ActionDenied, true), commanded(land, 2)}, F},
		{"commands of another kind", "{action: {kind: engage_land, commands: {ge: 1}}}", []ctxOpt{acted(hold, decisions.ActionDenied, true), commanded(hold, 4)}, F},
		{"no commands without action state", "{action: {kind: engage_land, commands: {lt: 1}}}", nil, T},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := single(t, tt.cond, "")
			c := ctx(1, append([]ctxOpt{assessed(known, 0.1)}, tt.opts...)...)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			d, err := p.Decide(c)
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tt.want {
				t.Fatalf("decided %v, want reason %s", d, tt.want)
			}
		})
	}
}

func TestActionConditionErrors(t *testing.T) {
	tests := []struct{ cond, want string }{
		{"{action: {kind: descend, outcome: denied}}", `kind = "descend"`},
		{"{action: {outcome: denied}}", `missing key "kind"`},
		{"{action: {kind: hold}}", "want outcome, enabled or commands"},
		{"{action: {kind: hold, outcome: lost}}", `outcome = "lost"`},
		{"{action: {kind: hold, outcome: {in: []}}}", "at least one outcome"},
		{"{action: {kind: hold, outcome: {in: [denied, denied]}}}", `"denied" listed twice`},
		{"{action: {kind: hold, outcome: {is: denied}}}", `unknown key "is"`},
		{"{action: {kind: hold, enabled: maybe}}", "want true or false"},
		{"{action: {kind: hold, outcome: denied, since: 1s}}", `unknown key "since"`},
		{"{action: hold}", "want a mapping"},
		{"{action: {kind: hold, commands: {ge: -1}}}", "commands"},
		{"{action: {kind: hold, commands: {at_least: 2}}}", `unknown key "at_least"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(policyWith("  - name: r\n    when: "+tt.cond+"\n    action: hold\n    reason: r\n")))
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "t.yaml:6:") {
				t.Fatalf("error %v, want t.yaml:6:... %q", err, tt.want)
			}
		})
	}
	for _, src := range []string{
		policyWith(oneRule + "    clear: on_mode_changes\n"),
		policyWith(oneRule + "    unless: {battery: low}\n"),
		policyWith(oneRule + "    unless: [armed]\n"),
	} {
		if _, err := Parse("t.yaml", []byte(src)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: err %v", src, err)
		}
	}
}

// Equivalent spellings of action tests write the same canonical bytes;
// what can change a decision changes the id; policies without the new keys
// keep their ids.
func TestActionIdentity(t *testing.T) {
	with := func(cond, extra string) *Policy {
		t.Helper()
		p, err := Parse("a", []byte(policyWith(strings.Replace(oneRule, "{armed: true}", cond, 1)+extra)))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := [][2]string{
		{"{action: {kind: hold, outcome: any_failure}}", "{action: {kind: hold, outcome: {in: [refused, not_reached, transport, not_applicable, blocked_by_policy]}}}"},
		{"{action: {kind: hold, outcome: {in: [executor, transport]}}}", "{action: {kind: hold, outcome: {in: [transport, denied, temporarily_rejected, rejected, not_reached]}}}"},
		{"{action: {kind: hold, outcome: {in: [executor, transport]}}}", "{action: {kind: hold, outcome: {in: [transport, not_reached, refused]}}}"},
		{"{action: {kind: hold, outcome: rejected}}", "{action: {kind: hold, outcome: {in: [unknown_result, cancelled, failed, unsupported]}}}"},
		{"{action: {kind: hold, outcome: pending}}", "{action: {kind: hold, outcome: {in: [accepted, in_progress, sent]}}}"},
		{"{action: {kind: hold, outcome: sent, enabled: true}}", "{all: [{action: {kind: hold, outcome: sent}}, {action: {kind: hold, enabled: true}}]}"},
	}
	for _, pr := range same {
		if a, b := with(pr[0], ""), with(pr[1], ""); a.ID() != b.ID() {
			t.Errorf("%s and %s hash differently:\n%s\n%s", pr[0], pr[1], a.Canonical(), b.Canonical())
		}
	}
	base := with("{action: {kind: hold, outcome: denied}}", "")
	for i, p := range []*Policy{
		with("{action: {kind: engage_land, outcome: denied}}", ""),
		with("{action: {kind: hold, outcome: rejected}}", ""),
		with("{action: {kind: hold, outcome: refused}}", ""),
		with("{action: {kind: hold, outcome: {in: [denied, unsupported]}}}", ""),
		with("{action: {kind: hold, enabled: true}}", ""),
		with("{action: {kind: hold, enabled: false}}", ""),
		with("{action: {kind: hold, commands: {ge: 2}}}", ""),
		with("{action: {kind: hold, outcome: denied, commands: {ge: 2}}}", ""),
		with("{action: {kind: hold, outcome: denied}}", "    clear: on_mode_change\n"),
		with("{action: {kind: hold, outcome: denied}}", "    unless: {armed: false}\n"),
	} {
		if p.ID() == base.ID() {
			t.Errorf("variant %d has the same id", i)
		}
	}
	want := `{"default":{"action":"proceed","reason":"nominal"},"name":"test","rules":[{"action":"hold","clear":"on_mode_change","for_ns":0,"name":"r","reason":"armed","unless":{"action":{"enabled":false,"kind":"engage_kill"}},"when":{"action":{"kind":"engage_land","outcome":{"in":["denied","not_reached"]}}}}],"version":1}`
	p := with("{action: {kind: engage_land, outcome: {in: [not_reached, denied]}}}", "    clear: on_mode_change\n    unless: {action: {kind: engage_kill, enabled: false}}\n")
	if got := string(p.Canonical()); got != want {
		t.Fatalf("canonical\n got %s\nwant %s", got, want)
	}
}

// clear: on_mode_change releases at the first context whose arming differs
// from the previous one's, or whose flight mode differs and is not one the
// rule's own action commands.
func TestClearOnModeChange(t *testing.T) {
	const landFired = "engage_land/fired"
	p, err := Parse("t.yaml", []byte(policyWith("  - name: r\n    when: {battery_pct: {lt: 0.1}}\n    action: engage_land\n    reason: fired\n    clear: on_mode_change\n")))
	if err != nil {
		t.Fatal(err)
	}
	off, land, manual, rtl := decisions.FlightModeOffboard, decisions.FlightModeLand, decisions.FlightModeManual, decisions.FlightModeRTL
	stamp := int64(0)
	for i, s := range []struct {
		armed bool
		mode  decisions.FlightMode
		pct   float64
		want  string
	}{
		{true, off, 0.5, nominal},
		{true, off, 0.05, landFired},
		{true, off, 0.5, landFired},  // latched
		{true, land, 0.5, landFired}, // into its own mode: not a release
		{true, off, 0.5, nominal},    // out of it: released
		{true, off, 0.05, landFired},
		{true, manual, 0.05, landFired}, // released, but the condition holds: fires again
		{true, manual, 0.5, landFired},
		{true, rtl, 0.5, nominal},
		{false, rtl, 0.05, landFired}, // latched on a disarmed context
		{false, rtl, 0.5, landFired},  // no change: still latched
		{true, rtl, 0.5, nominal},     // arming is a change
	} {
		stamp += 1000
		c := ctx(stamp, armed(s.armed), flight(s.mode), battery(s.pct, 12))
		if got := step(t, p, c); got != s.want {
			t.Fatalf("step %d (armed %t, %s, %.2f): %s, want %s", i, s.armed, s.mode, s.pct, got, s.want)
		}
	}
	// A rolled-back step does not move the mode it compares with.
	q := p.NewInstance().(*Policy)
	step(t, q, ctx(1, armed(true), flight(off), battery(0.05, 12)))
	q.Checkpoint()
	step(t, q, ctx(2, armed(true), flight(manual), battery(0.5, 12)))
	q.Rollback()
	if got := step(t, q, ctx(3, armed(true), flight(off), battery(0.5, 12))); got != landFired {
		t.Fatalf("after a rollback: %s", got)
	}
}

// unless silences a rule while it holds (the rule asks for nothing, not
// even abstain), without touching its for, latch or clear.
func TestUnless(t *testing.T) {
	src := policyWith(`  - name: emergency
    when: {battery_pct: {lt: 0.05}}
    unless: {action: {kind: engage_land, outcome: executor}}
    action: engage_land
    reason: battery_emergency
    clear: on_disarm
  - name: fallback
    when: {action: {kind: engage_land, outcome: executor}}
    action: engage_rtl
    reason: land_failed
  - name: perception
    when: {perception_mode: vio_lost}
    unless: {armed: false}
    action: hold
    reason: vio_lost
`)
	p, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	land := decisions.KindEngageLand
	for i, s := range []struct {
		opts []ctxOpt
		want string
	}{
		{[]ctxOpt{armed(true), battery(0.5, 12), perception(decisions.PerceptionNominal)}, nominal},
		{[]ctxOpt{armed(true), battery(0.04, 12), perception(decisions.PerceptionNominal), acted(land, decisions.ActionNone, true)}, "engage_land/battery_emergency"},
		{[]ctxOpt{armed(true), battery(0.5, 12), perception(decisions.PerceptionNominal), acted(land, decisions.ActionSent, true)}, "engage_land/battery_emergency"},
		{[]ctxOpt{armed(true), battery(0.5, 12), perception(decisions.PerceptionNominal), acted(land, decisions.ActionDenied, true)}, "engage_rtl/land_failed"},
		// The latch survived the silence: a new land that is under way decides land again.
		{[]ctxOpt{armed(true), battery(0.5, 12), perception(decisions.PerceptionNominal), acted(land, decisions.ActionSent, true)}, "engage_land/battery_emergency"},
		// Silenced, a rule whose condition is unknown does not abstain.
		{[]ctxOpt{armed(false), battery(0.5, 12)}, nominal},
		{[]ctxOpt{armed(true), battery(0.5, 12)}, "abstain_uncertain/missing_perception"},
	} {
		if got := step(t, p, ctx(int64(i), s.opts...)); got != s.want {
			t.Fatalf("step %d: %s, want %s", i, got, s.want)
		}
	}
}

// Every word a policy may write for an outcome, against every outcome the
// engine derives: each MAV_RESULT name matches its own result only, each
// group its members.
func TestOutcomeWords(t *testing.T) {
	const (
		none = decisions.ActionNone
		snt  = decisions.ActionSent
		acc  = decisions.ActionAccepted
		inp  = decisions.ActionInProgress
		rch  = decisions.ActionReached
		sup  = decisions.ActionSuperseded
		den  = decisions.ActionDenied
		tmp  = decisions.ActionTemporarilyRejected
		uns  = decisions.ActionUnsupported
		fld  = decisions.ActionFailed
		can  = decisions.ActionCancelled
		unk  = decisions.ActionUnknownResult
		nrc  = decisions.ActionNotReached
		trn  = decisions.ActionTransport
		nap  = decisions.ActionNotApplicable
		blk  = decisions.ActionBlockedByPolicy
	)
	words := map[string][]decisions.ActionOutcome{
		"none": {none}, "sent": {snt}, "accepted": {acc}, "in_progress": {inp}, "reached": {rch}, "superseded": {sup},
		"denied": {den}, "temporarily_rejected": {tmp}, "unsupported": {uns}, "failed": {fld}, "cancelled": {can},
		"unknown_result": {unk}, "not_reached": {nrc}, "transport": {trn}, "not_applicable": {nap}, "blocked_by_policy": {blk},
		"pending":     {snt, acc, inp},
		"refused":     {den, tmp, uns, fld, can, unk},
		"executor":    {den, tmp, uns, fld, can, unk, nrc},
		"any_failure": {den, tmp, uns, fld, can, unk, nrc, trn, nap, blk},
		"rejected":    {uns, fld, can, unk},
	}
	if len(words) != len(outcomeWords) {
		t.Fatalf("%d words tested, the language has %d: %v", len(words), len(outcomeWords), outcomeWords)
	}
	rtl := decisions.KindEngageRTL
	for word, matches := range words {
		p := single(t, "{action: {kind: engage_rtl, outcome: "+word+"}}", "")
		for o := decisions.ActionOutcome(0); o < decisions.NumActionOutcomes; o++ {
			c := ctx(1, assessed(known, 0.1), acted(rtl, o, true))
			d, err := p.NewInstance().Decide(c)
			if err != nil {
				t.Fatal(err)
			}
			if fired, want := d.Reason == "fired", slices.Contains(matches, o); fired != want {
				t.Errorf("outcome %s under %s: fired %t, want %t", o, word, fired, want)
			}
		}
	}
}
