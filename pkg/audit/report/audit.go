package report

import (
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Audit is what the report shows of a recording's audit: the caller runs
// the audit (hash chain, re-run) and fills this in; the report only draws
// it. The zero value, or Verdict "not audited", shows that no audit ran.
type Audit struct {
	// Verdict is "PASS", "FAIL" or another one-word status such as
	// "not audited"; PASS and FAIL are coloured.
	Verdict string
	// Reasons say, one line each, why the verdict is not PASS.
	Reasons []string
	// Chain counts decisions by hash-chain status, in display order
	// (verified, broken, assessment_missing, no_assessment_claimed).
	Chain []Count
	// Rerun counts decisions by policy re-run status, in display order
	// (matched, diverged, unknown_policy, no_context).
	Rerun []Count
	// PolicyIDs are the policies the audit considered; when empty the
	// report lists the policy ids found in the recording.
	PolicyIDs []string
	// Source says where the decided inputs came from (the simulator, a PX4
	// log, a live vehicle); empty when unknown.
	Source string
	// Target says which vehicle the action trail was checked against and
	// where that came from; "" shows nothing (no trail was checked).
	Target string
	// Problems are the audit's findings with their place on the time axis.
	Problems []Problem
	// ProblemsOmitted counts findings the audit did not list.
	ProblemsOmitted uint64
	// Thresholds are the battery thresholds of the policies behind the
	// decisions (their rules' battery_pct and battery_v comparisons),
	// drawn on the battery plots; empty when the policies compare none or
	// are not known to the caller.
	Thresholds []Threshold
	// Escalating holds, by policy id, the reasons of the policy's rules
	// that read what actions achieved: a change to a more severe kind is
	// an escalation only when such a rule made it. A policy absent from
	// the map is not known to the caller, and every change after an action
	// that did not reach its state is shown, with its reason.
	Escalating map[string][]string
	// Hints say, one line each, what would let the audit re-run the
	// recording: the flags to pass.
	Hints []string
	// TruthHint, when the Flight has no Truth, says how to compare its
	// beliefs with a simulator's truth (the flag to add, or how to record
	// one); "" shows nothing.
	TruthHint string
}

// escalations splits f's changes to a more severe kind after an action
// that did not reach its state: the escalations, made by rules that read
// what actions achieved or by a policy the caller does not know (see
// Escalating), and the others, which rules that read no action made.
func (a *Audit) escalations(f *Flight) (shown, others []Escalation) {
	for _, e := range f.Actions.Escalations {
		if reasons, known := a.Escalating[e.PolicyID]; known && !slices.Contains(reasons, e.Reason) {
			others = append(others, e)
			continue
		}
		shown = append(shown, e)
	}
	return shown, others
}

// Threshold is one battery bound a policy's rule compares against.
type Threshold struct {
	// Field is "battery_pct" (a fraction in [0, 1]) or "battery_v".
	Field string
	// Op is "lt", "le", "gt" or "ge": the rule's condition holds on that
	// side of Value, or on the other side when Negated.
	Op      string
	Value   float64
	Negated bool
	// Kind, Rule and Reason are what the rule decides when it fires.
	Kind         decisions.Kind
	Rule, Reason string
}

// below reports whether the rule fires below Value (lt, le), rather than
// above it.
func (t Threshold) below() bool { return (t.Op == "lt" || t.Op == "le") != t.Negated }

// Problem is one audit finding.
type Problem struct {
	// StampNs is the belief stamp the finding concerns; LogNs its log time.
	StampNs, LogNs int64
	// Text explains the finding in one line.
	Text string
}

// NotAudited is the Audit of a report made without running an audit.
func NotAudited() Audit { return Audit{Verdict: "not audited"} }
