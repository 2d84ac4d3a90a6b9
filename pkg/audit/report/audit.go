package report

import "github.com/ghost-robotics/ghost/pkg/decisions"

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
	// Problems are the audit's findings with their place on the time axis.
	Problems []Problem
	// ProblemsOmitted counts findings the audit did not list.
	ProblemsOmitted uint64
	// Thresholds are the battery thresholds of the policies behind the
	// decisions (their rules' battery_pct and battery_v comparisons),
	// drawn on the battery plots; empty when the policies compare none or
	// are not known to the caller.
	Thresholds []Threshold
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
