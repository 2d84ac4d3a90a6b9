package rules

import (
	"math"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Threshold is one bound a rule compares a battery field against, for
// readers that show what a policy watches (the report draws them on its
// battery plots). It describes the policy; it decides nothing.
type Threshold struct {
	// Rule, Kind and Reason are the rule's name, decision kind and reason.
	Rule   string
	Kind   decisions.Kind
	Reason string
	// Field is "battery_pct" (a fraction in [0, 1]) or "battery_v".
	Field string
	// Op is the comparison as written: "lt", "le", "gt" or "ge"; the rule's
	// condition holds on the side Op names.
	Op    string
	Value float64
	// Negated is true when the comparison sits under an odd number of
	// "not"s: the condition then holds on the other side of Value.
	Negated bool
	// ForNs is the rule's "for" delay in nanoseconds (0 when none).
	ForNs int64
}

// BatteryThresholds lists the finite bounds of every battery_pct and
// battery_v comparison in the policy's rules, in rule order and, within a
// rule, in the order the condition is written.
func (p *Policy) BatteryThresholds() []Threshold {
	var out []Threshold
	d := p.d
	for _, ru := range d.rules {
		var walk func(i int32, negated bool)
		walk = func(i int32, negated bool) {
			n := &d.nodes[i]
			switch n.op {
			case opAll, opAny:
				for _, k := range n.kids {
					walk(k, negated)
				}
			case opNot:
				for _, k := range n.kids {
					walk(k, !negated)
				}
			case opBatteryPct, opBatteryV:
				field := "battery_pct"
				if n.op == opBatteryV {
					field = "battery_v"
				}
				th := Threshold{Rule: ru.name, Kind: ru.kind, Reason: ru.reason, Field: field, Negated: negated, ForNs: ru.forNs}
				if !math.IsInf(n.iv.lo, 0) {
					th.Op, th.Value = "ge", n.iv.lo
					if n.iv.loOpen {
						th.Op = "gt"
					}
					out = append(out, th)
				}
				if !math.IsInf(n.iv.hi, 0) {
					th.Op, th.Value = "le", n.iv.hi
					if n.iv.hiOpen {
						th.Op = "lt"
					}
					out = append(out, th)
				}
			}
		}
		walk(ru.root, false)
	}
	return out
}

// OutcomeReasons lists, in rule order, the reasons of the rules whose
// condition reads what an action achieved (an action outcome test), for
// readers that tell an escalation from a change of decision that another
// rule made: only these rules decide on the vehicle's answers.
func (p *Policy) OutcomeReasons() []string {
	var out []string
	d := p.d
	for _, ru := range d.rules {
		var reads func(i int32) bool
		reads = func(i int32) bool {
			n := &d.nodes[i]
			if n.op == opActOutcome {
				return true
			}
			for _, k := range n.kids {
				if reads(k) {
					return true
				}
			}
			return false
		}
		if reads(ru.root) && !slices.Contains(out, ru.reason) {
			out = append(out, ru.reason)
		}
	}
	return out
}
