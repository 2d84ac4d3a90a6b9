package rules

import (
	"fmt"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// FindingKind classifies a Check finding.
type FindingKind uint8

const (
	// NeverFires: the rule's condition can never be true.
	NeverFires FindingKind = iota + 1
	// Shadowed: whenever the rule fires, an earlier rule of at least the
	// same severity fires too, so the rule never decides.
	Shadowed
	// NeverCommanded: the rule tests the outcome of a kind the policy never
	// decides; nothing ever commands that kind, so its outcome is always
	// none and the test is constant.
	NeverCommanded
	// MisleadingName: the rule writes a name whose meaning differs from
	// what a PX4 user reads in it (an outcome group named like a
	// MAV_RESULT it does not match); the finding is at the word.
	MisleadingName
)

// String returns "never_fires", "shadowed", "never_commanded" or
// "misleading_name".
func (k FindingKind) String() string {
	switch k {
	case NeverFires:
		return "never_fires"
	case Shadowed:
		return "shadowed"
	case NeverCommanded:
		return "never_commanded"
	case MisleadingName:
		return "misleading_name"
	}
	return "finding(" + strconv.Itoa(int(k)) + ")"
}

// Finding is one problem Check found with a rule.
type Finding struct {
	Kind FindingKind
	// Rule is the rule's index in the file (0-based); Name its name.
	Rule int
	Name string
	// By is the index of the shadowing rule (Shadowed only), else -1.
	By           int
	File         string
	Line, Column int
	Message      string
}

// String formats f as "file:line:column: rule N (name): kind: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: rule %d (%s): %s: %s", f.File, f.Line, f.Column, f.Rule, f.Name, f.Kind, f.Message)
}

// Check reports rules that can never fire and rules shadowed by an earlier
// rule. It is a conservative approximation: every finding is real, but
// some dead rules are not found. A condition is recognised as impossible
// when a leaf admits no value (an empty set of levels or modes, a numeric
// interval empty within its field's domain, such as battery_pct above 1;
// a bound outside the domain is a parse error) or an `all` combines leaves over the same field whose
// sets do not intersect (or tests a field both for a value and for being
// missing); `not` is never analysed. A rule is shadowed by an earlier rule
// of higher or equal severity whose condition is implied by its own
// (identical conditions, a leaf whose set contains the later leaf's set, an
// `all` containing such a leaf, ...), whose `for` is no longer, whose
// `clear` holds it at least as long and which has no `unless`. A rule whose
// `unless` is implied by its condition never fires either. Separately, a
// rule that tests the outcome of a kind no rule (nor the default) decides
// is reported: that kind is never commanded, its outcome is always none.
// Every word whose meaning differs from its MAVLink sense (outcome
// rejected) is reported at the word, before the rule's other findings.
func Check(p *Policy) []Finding {
	d := p.d
	var out []Finding
	// Each node's canonical text, computed once: implication compares them.
	canon := make([]string, len(d.nodes))
	for i := range d.nodes {
		canon[i] = string(appendCond(nil, d.nodes, int32(i)))
	}
	decided := uint32(1) << d.defaultKind
	for i := range d.rules {
		decided |= 1 << d.rules[i].kind
	}
	for j := range d.rules {
		rj := &d.rules[j]
		f := Finding{Rule: j, Name: rj.name, By: -1, File: d.file, Line: rj.line, Column: rj.col}
		for _, n := range rj.notes {
			g := f
			g.Kind, g.Line, g.Column, g.Message = MisleadingName, n.line, n.col, n.msg
			out = append(out, g)
		}
		if k, ok := undecidedOutcome(d.nodes, rj, decided); ok {
			g := f
			g.Kind, g.Message = NeverCommanded, fmt.Sprintf(
				"it tests the outcome of %s's commands, but the policy never decides %s: that outcome is always none", k, k)
			out = append(out, g)
		}
		if !satisfiable(d.nodes, rj.root) {
			f.Kind, f.Message = NeverFires, "its condition can never be true"
			out = append(out, f)
			continue
		}
		if budget := maxImplySteps; rj.unless >= 0 && implies(d.nodes, canon, rj.root, rj.unless, &budget) {
			f.Kind, f.Message = NeverFires, "its unless holds whenever its condition does"
			out = append(out, f)
			continue
		}
		for i := 0; i < j; i++ {
			ri := &d.rules[i]
			budget := maxImplySteps
			if ri.sev >= rj.sev && ri.forNs <= rj.forNs && ri.unless < 0 && holdsAsLong(ri, rj) && implies(d.nodes, canon, rj.root, ri.root, &budget) {
				f.Kind, f.By = Shadowed, i
				f.Message = fmt.Sprintf("whenever it fires, rule %d (%s, %s) fires too and is at least as severe", i, ri.name, ri.kind)
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// holdsAsLong reports whether rule i stays latched at least as long as
// rule j whenever both fired.
func holdsAsLong(i, j *rule) bool {
	switch {
	case i.clear == clearNever:
		return true
	case i.clear != j.clear:
		return false
	case i.clear == clearAfter:
		return i.afterNs >= j.afterNs
	case i.clear == clearOnModeChange:
		// i survives every mode change j survives.
		return ownModes[j.kind]&^ownModes[i.kind] == 0
	}
	return true // both on_disarm
}

// undecidedOutcome returns the first kind whose outcome rule r tests
// (in when or unless) though no rule of the policy decides it.
func undecidedOutcome(nodes []node, r *rule, decided uint32) (decisions.Kind, bool) {
	for _, root := range []int32{r.root, r.unless} {
		if root < 0 {
			continue
		}
		if k, ok := walkOutcomes(nodes, root, decided); ok {
			return k, true
		}
	}
	return 0, false
}

func walkOutcomes(nodes []node, i int32, decided uint32) (decisions.Kind, bool) {
	n := &nodes[i]
	if n.op == opActOutcome && !inMask(decided, n.arg) {
		return decisions.Kind(n.arg), true
	}
	for _, k := range n.kids {
		if kind, ok := walkOutcomes(nodes, k, decided); ok {
			return kind, true
		}
	}
	return 0, false
}

// constraint is what a conjunction of leaves demands of one field.
type constraint struct {
	op   op
	arg  uint8
	mask uint32
	iv   interval
}

// satisfiable reports false only for conditions that certainly can never
// be true.
func satisfiable(nodes []node, i int32) bool {
	n := &nodes[i]
	switch n.op {
	case opAny:
		for _, k := range n.kids {
			if satisfiable(nodes, k) {
				return true
			}
		}
		return false
	case opAll:
		var cs []constraint
		missing := [numFields]bool{}
		for _, k := range n.kids {
			if !satisfiable(nodes, k) {
				return false
			}
			kn := &nodes[k]
			switch {
			case kn.op == opMissing:
				missing[kn.arg] = true
			case kn.op > opNot:
				cs = merge(cs, kn)
			}
		}
		for _, c := range cs {
			if isEmptyConstraint(c) {
				return false
			}
			// effective_level, which reads the calibration when the
			// assessment is missing, needs no field of its own.
			if f := condKinds[c.op].field; f < numFields && missing[f] {
				return false
			}
		}
		return true
	case opNot:
		return true
	}
	return !isEmptyConstraint(constraint{op: n.op, arg: n.arg, mask: n.mask, iv: n.iv})
}

// isInterval reports whether leaves of kind o test a number.
func isInterval(o op) bool { return condKinds[o].number != nil }

func isEmptyConstraint(c constraint) bool {
	switch {
	case c.op == opMissing:
		return false
	case isInterval(c.op):
		return c.iv.intersect(condKinds[c.op].domain).empty()
	}
	return c.mask == 0
}

// merge intersects leaf n into the constraint on the same field.
func merge(cs []constraint, n *node) []constraint {
	for k := range cs {
		c := &cs[k]
		if c.op == n.op && c.arg == n.arg {
			if isInterval(n.op) {
				c.iv = c.iv.intersect(n.iv)
			} else {
				c.mask &= n.mask
			}
			return cs
		}
	}
	return append(cs, constraint{op: n.op, arg: n.arg, mask: n.mask, iv: n.iv})
}

// maxImplySteps bounds the work of one implication test: nested any/all
// pairs could otherwise take exponential time on a hostile file. Running
// out answers "not implied", which only loses findings.
const maxImplySteps = 10000

// implies reports true only when condition a being true certainly makes
// condition b true (in three-valued logic: a true needs every field b reads
// to be present and matching).
func implies(nodes []node, canon []string, a, b int32, budget *int) bool {
	if *budget <= 0 {
		return false
	}
	*budget--
	na, nb := &nodes[a], &nodes[b]
	if canon[a] == canon[b] {
		return true
	}
	switch {
	case nb.op == opAll:
		for _, k := range nb.kids {
			if !implies(nodes, canon, a, k, budget) {
				return false
			}
		}
		return *budget > 0
	case na.op == opAny:
		for _, k := range na.kids {
			if !implies(nodes, canon, k, b, budget) {
				return false
			}
		}
		return *budget > 0
	case na.op == opAll:
		for _, k := range na.kids {
			if implies(nodes, canon, k, b, budget) {
				return true
			}
		}
	case nb.op == opAny:
		for _, k := range nb.kids {
			if implies(nodes, canon, a, k, budget) {
				return true
			}
		}
	case na.op > opNot && na.op == nb.op && na.arg == nb.arg:
		switch {
		case na.op == opMissing:
			return true
		case isInterval(na.op):
			return na.iv.empty() || na.iv.within(nb.iv)
		}
		return na.mask&^nb.mask == 0
	}
	return false
}
