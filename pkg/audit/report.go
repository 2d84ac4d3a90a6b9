package audit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/seal"
)

// ChainStatus is the outcome of ADR-0022's hash-chain check of one recorded
// rationale against the self-assessments in the same recording.
type ChainStatus uint8

// Chain statuses.
const (
	// ChainVerified: an assessment with the decision's stamp hashes to the
	// rationale's self_assessment_sha256.
	ChainVerified ChainStatus = iota
	// ChainBroken: assessments with that stamp exist, none hashes to it.
	ChainBroken
	// ChainAssessmentMissing: the rationale names a hash but the recording
	// holds no assessment with that stamp.
	ChainAssessmentMissing
	// ChainNoAssessmentClaimed: the decision was taken without an
	// assessment (empty hash).
	ChainNoAssessmentClaimed
)

// NumChainStatuses is the number of ChainStatus values.
const NumChainStatuses = 4

var chainNames = [NumChainStatuses]string{"verified", "broken", "assessment_missing", "no_assessment_claimed"}

func (s ChainStatus) String() string {
	if int(s) < len(chainNames) {
		return chainNames[s]
	}
	return fmt.Sprintf("chain_status(%d)", uint8(s))
}

// MarshalText writes the status's name.
func (s ChainStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// RerunStatus is the outcome of re-deciding a recorded decision with the
// Loop and the host-supplied policy.
type RerunStatus uint8

// Re-run outcomes.
const (
	// RerunMatched: the Loop, fed the recording's inputs, gives the
	// identical decision and rationale.
	RerunMatched RerunStatus = iota
	// RerunDiverged: it gives a different one.
	RerunDiverged
	// RerunUnknownPolicy: the rationale names a policy the host did not
	// supply; nothing to compare.
	RerunUnknownPolicy
	// RerunNoContext: the Loop did not decide that stamp (its belief is not
	// in the recording, or was rejected), or the chain is broken or its
	// assessment missing.
	RerunNoContext
)

// NumRerunStatuses is the number of RerunStatus values.
const NumRerunStatuses = 4

var rerunNames = [NumRerunStatuses]string{"matched", "diverged", "unknown_policy", "no_context"}

func (s RerunStatus) String() string {
	if int(s) < len(rerunNames) {
		return rerunNames[s]
	}
	return fmt.Sprintf("rerun_status(%d)", uint8(s))
}

// MarshalText writes the status's name.
func (s RerunStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding names one class of problem that makes a verification fail. Each
// is counted in AuditReport.Findings.
type Finding string

// Findings. The verdict is PASS only when none of them was found (or the
// ones found were relaxed by VerifyOptions.Relax).
const (
	// FindingNoDecisions: the recording holds no decision at all.
	FindingNoDecisions Finding = "no_decisions"
	// FindingUndecodableDecision: a message on the decisions topic did not
	// decode, or its rationale is invalid.
	FindingUndecodableDecision Finding = "undecodable_decision"
	// FindingUnreadableDecisionsChannel: a channel on the decisions topic
	// has a schema or encoding the audit cannot read.
	FindingUnreadableDecisionsChannel Finding = "unreadable_decisions_channel"
	// FindingChainBroken: a decision's hash matches no assessment of its stamp.
	FindingChainBroken Finding = "chain_broken"
	// FindingAssessmentMissing: a decision claims an assessment the
	// recording does not hold.
	FindingAssessmentMissing Finding = "assessment_missing"
	// FindingDiverged: the re-run gives another decision.
	FindingDiverged Finding = "diverged"
	// FindingNoContext: the Loop could not re-decide the stamp.
	FindingNoContext Finding = "no_context"
	// FindingUnknownPolicy: a decision names a policy the host did not supply.
	FindingUnknownPolicy Finding = "unknown_policy"
	// FindingMissingDecision: a belief between the first and the last
	// recorded decision was decided by the Loop but has no recorded decision.
	FindingMissingDecision Finding = "missing_decision"
	// FindingStampProblem: a decision's stamps disagree, or it is not after
	// the previous decision.
	FindingStampProblem Finding = "stamp_problem"
	// FindingReadIncomplete: the recording could not be read to its end.
	FindingReadIncomplete Finding = "read_incomplete"
	// FindingUndecodableReceipt: a message on the actions topic did not
	// decode as an ActionReceipt.
	FindingUndecodableReceipt Finding = "undecodable_receipt"
	// FindingActionUntraced: an action receipt names no recorded decision
	// of its kind whose chain verified and whose re-run matched, or an
	// executor the host did not supply or that does not serve the kind.
	FindingActionUntraced Finding = "action_untraced"
	// FindingActionCommand: a receipt's command is not the executor's
	// documented mapping of its kind.
	FindingActionCommand Finding = "action_command"
	// FindingActionEvidence: accepted evidence breaks a provenance rule
	// (action id, executor, vehicle, acknowledged command).
	FindingActionEvidence Finding = "action_evidence"
	// FindingActionDiverged: the action trail the Loop and Runner derive
	// from the recording's inputs and evidence differs from the recorded
	// one (an outcome the evidence does not support, a missing or an
	// extra receipt).
	FindingActionDiverged Finding = "action_diverged"
	// FindingSealBroken: checked against trusted keys, the recording is
	// not what its seals say (counted per break; AuditReport.Seals names
	// the first), or it holds no seal that can be trusted.
	FindingSealBroken Finding = "seal_broken"
)

// AllFindings lists every Finding, in report order.
func AllFindings() []Finding {
	return []Finding{
		FindingReadIncomplete, FindingNoDecisions, FindingUnreadableDecisionsChannel, FindingUndecodableDecision,
		FindingChainBroken, FindingAssessmentMissing, FindingDiverged, FindingNoContext, FindingUnknownPolicy,
		FindingMissingDecision, FindingStampProblem,
		FindingUndecodableReceipt, FindingActionUntraced, FindingActionCommand, FindingActionEvidence, FindingActionDiverged,
		FindingSealBroken,
	}
}

// ParseFinding returns the Finding named s.
func ParseFinding(s string) (Finding, error) {
	for _, f := range AllFindings() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(AllFindings()))
	for _, f := range AllFindings() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown finding %q (known: %s)", s, strings.Join(names, ", "))
}

// DecisionAudit is the verdict on one recorded decision.
type DecisionAudit struct {
	LogTimeNs int64          `json:"log_time_ns"`
	Stamp     int64          `json:"belief_stamp_sim_ns"`
	Kind      decisions.Kind `json:"-"`
	KindName  string         `json:"kind"`
	Reason    string         `json:"reason"`
	PolicyID  string         `json:"policy_id"`
	Chain     ChainStatus    `json:"chain"`
	Rerun     RerunStatus    `json:"rerun"`
	// Problem explains anything short of verified and matched, naming the
	// values that disagree; empty when all is well.
	Problem string `json:"problem,omitempty"`
	// ClaimedSHA256 is the rationale's hash ("" when it claims none);
	// RecomputedSHA256 the hash of the last recorded assessment of the
	// stamp ("" when there is none), as the reference's trace reports them.
	ClaimedSHA256    string `json:"-"`
	RecomputedSHA256 string `json:"-"`
}

// OK reports whether the decision is justified.
func (a *DecisionAudit) OK() bool { return a.Problem == "" }

// Describe writes the audit of the decision on one line: kind, stamp,
// chain and re-run status, and the problem.
func (a *DecisionAudit) Describe() string {
	return fmt.Sprintf("decision %s@%d (%s, %s): %s", a.KindName, a.Stamp, a.Chain, a.Rerun, a.Problem)
}

// Verdicts.
const (
	VerdictPass = "PASS"
	VerdictFail = "FAIL"
)

// AuditReport summarises a verification.
type AuditReport struct {
	// Verdict is VerdictPass or VerdictFail; Reasons name the findings that
	// made it fail, with their counts ("chain_broken: 2").
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	// ReadComplete is false when the recording could not be read to its end.
	ReadComplete bool `json:"read_complete"`
	// Relaxed are the findings the caller chose not to fail on.
	Relaxed []string `json:"relaxed"`
	// Findings count every finding, relaxed or not.
	Findings map[string]uint64 `json:"findings"`

	Decisions     uint64            `json:"decisions"`
	ByKind        map[string]uint64 `json:"by_kind"`
	ByReason      map[string]uint64 `json:"by_reason"`
	ByPolicy      map[string]uint64 `json:"by_policy"`
	ByChain       map[string]uint64 `json:"by_chain_status"`
	ByRerun       map[string]uint64 `json:"by_rerun_status"`
	StampProblems uint64            `json:"stamp_problems"`
	// DuplicateDecisions counts identical repeats of the previous recorded
	// decision, ignored.
	DuplicateDecisions uint64 `json:"duplicate_decisions"`
	FirstStamp         int64  `json:"first_stamp_sim_ns"`
	LastStamp          int64  `json:"last_stamp_sim_ns"`
	SpanNs             int64  `json:"span_ns"`
	// Inputs count the recording's messages by input key, plus "corrupt"
	// and "other".
	Inputs map[string]uint64 `json:"inputs"`
	// Undecided counts beliefs the Loop decided that have no recorded
	// decision, by where they lie: "before_first" and "after_last" (a
	// recorder that started early or stopped late: reported, not failed)
	// and "between" (FindingMissingDecision).
	Undecided map[string]uint64 `json:"undecided"`
	// WithoutAssessment counts the decisions claiming no assessment by why
	// the Loop, fed the recording, decided them without one.
	WithoutAssessment map[string]uint64 `json:"without_assessment"`
	// Rejected counts the inputs the Loop rejected, by reason.
	Rejected map[string]uint64 `json:"rejected"`
	// Actions counts the recorded action receipts by event ("sent",
	// "reached", ...), and failures as "failed_<class>".
	Actions map[string]uint64 `json:"actions"`
	// ReceiptTimeSkewed counts the receipts that matched their re-derived
	// receipt with a different time (within VerifyOptions.ReceiptTimeSkew),
	// and ReceiptTimeSkewMaxNs is the largest difference.
	ReceiptTimeSkewed    uint64          `json:"receipt_time_skewed,omitempty"`
	ReceiptTimeSkewMaxNs int64           `json:"receipt_time_skew_max_ns,omitempty"`
	Problems             []DecisionAudit `json:"problems"`
	ProblemsOmitted      uint64          `json:"problems_omitted"`
	// Notes are problems not tied to one decision (unreadable channels,
	// the read's end), in order.
	Notes []string `json:"notes"`
	// Causes group every problem (Problems, Notes and those omitted) by
	// what caused it, in the order first seen. Set when the verdict is
	// FAIL, so a passing report reads as before; ProblemCauses has them
	// whatever the verdict.
	Causes []Cause `json:"causes,omitempty"`
	// Seals is the seal check (VerifyOptions.Seals): absent when the
	// recording holds no seal and no key was trusted.
	Seals *seal.Report `json:"seals,omitempty"`
	// Target is the vehicle the action trail was checked against and
	// where it came from (VerifyOptions.TargetFrom): absent when the host
	// supplied no executor (the receipts cannot be traced to one).
	Target *Target `json:"target_vehicle,omitempty"`

	kinds    [decisions.NumKinds]uint64
	acted    [decisions.NumKinds]bool
	chains   [NumChainStatuses]uint64
	reruns   [NumRerunStatuses]uint64
	findings map[Finding]uint64
	policies []policyCount // first-seen order
	reasons  []ReasonCount // first-seen order
	relaxed  map[Finding]bool
	causes   []Cause
	causeAt  map[causeKey]int
}

// Causes the audit recognises. The problems that share one go away
// together when the cause does.
const (
	// CausePolicyNotSupplied: decisions name a policy the host did not
	// supply (Cause.Subject is its id), so they could not be re-run.
	CausePolicyNotSupplied = "policy_not_supplied"
	// CauseExecutorNotSupplied: receipts name an executor the host did
	// not supply (Cause.Subject is its id), so they cannot be traced to
	// it, and the trail re-derived without it differs from the recorded
	// one.
	CauseExecutorNotSupplied = "executor_not_supplied"
	// CauseRecordingStartedLate: decisions older than every belief, or
	// every self-assessment, the recording holds, so their inputs were
	// never recorded: a recorder that subscribed after the node had begun
	// deciding. They stay unchecked (assessment_missing, no_context).
	CauseRecordingStartedLate = "recording_started_late"
	// CauseKindNotEnabled: the recording's host acted on a kind
	// (Cause.Subject) that this host's executors serve but it did not
	// enable, so the re-derived trail blocks what the recorded one did
	// (and every divergence after it follows).
	CauseKindNotEnabled = "kind_not_enabled"
	// CauseKindEnabled: the other way round: this host enabled a kind
	// (Cause.Subject) the recording's host blocked.
	CauseKindEnabled = "kind_enabled"
	// CauseExecutorNotUsed: the recording holds no action receipt, while
	// this host supplied an executor (Cause.Subject): the recording was
	// made without one (advisory), and the trail re-derived with it is
	// not in the recording.
	CauseExecutorNotUsed = "executor_not_used"
	// CauseVehicleNotTarget: receipts name a vehicle (Cause.Subject, its
	// system id) other than the target this audit checks the trail
	// against (AuditReport.Target), so their evidence breaks provenance
	// and the re-derived trail, which refuses that vehicle's evidence,
	// differs.
	CauseVehicleNotTarget = "vehicle_not_target"
)

// MaxCauseExamples bounds the examples a Cause keeps.
const MaxCauseExamples = 3

// maxCauses bounds the causes with a subject a report tells apart (a
// hostile recording may name any number of policies); the problems of
// the others are grouped by their finding.
const maxCauses = 64

// maxExampleTries bounds the problems of one cause compared with its
// examples, so that a cause of a million alike problems costs little.
const maxExampleTries = 256

// Cause groups the problems that share one cause, so that a report names
// it, and what fixes it, once however many decisions or receipts it spoils.
type Cause struct {
	// Cause is one of the Cause* constants, or the name of the finding
	// for problems with no more specific cause.
	Cause string `json:"cause"`
	// Subject is what the cause names (the policy, the executor); ""
	// when Cause is a finding.
	Subject string `json:"subject,omitempty"`
	// Count is the number of problems, and Findings counts them by
	// finding.
	Count    uint64            `json:"count"`
	Findings map[string]uint64 `json:"findings"`
	// Examples are up to MaxCauseExamples of the problems, first seen
	// first, no two alike but for their numbers.
	Examples []string `json:"examples"`
	shapes   []string
	tries    int
}

type causeKey struct{ cause, subject string }

// ProblemCauses returns the problems grouped by cause, in the order first
// seen, whatever the verdict.
func (r *AuditReport) ProblemCauses() []Cause { return slices.Clone(r.causes) }

// cause counts one problem of finding f under its cause (a Cause* constant
// with its subject, or "" for the finding itself); example describes the
// problem, called only while the cause lacks examples.
func (r *AuditReport) cause(f Finding, cause, subject string, example func() string) {
	k := causeKey{cause, subject}
	if cause == "" {
		k = causeKey{string(f), ""}
	}
	i, ok := r.causeAt[k]
	if !ok && len(r.causes) >= maxCauses && k.subject != "" {
		k = causeKey{string(f), ""}
		i, ok = r.causeAt[k]
	}
	if !ok {
		if r.causeAt == nil {
			r.causeAt = map[causeKey]int{}
		}
		i = len(r.causes)
		r.causeAt[k] = i
		r.causes = append(r.causes, Cause{Cause: k.cause, Subject: k.subject, Findings: map[string]uint64{}, Examples: []string{}})
	}
	c := &r.causes[i]
	c.Count++
	c.Findings[string(f)]++
	if len(c.Examples) < MaxCauseExamples && c.tries < maxExampleTries {
		c.tries++
		text := example()
		if sh := numbersOut(text); !slices.Contains(c.shapes, sh) {
			c.shapes = append(c.shapes, sh)
			c.Examples = append(c.Examples, text)
		}
	}
}

// numbersOut is s with every run of digits replaced by one '#': two
// problems alike but for their stamps and counts have the same.
func numbersOut(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if len(b) == 0 || b[len(b)-1] != '#' {
				b = append(b, '#')
			}
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// ReasonCount counts the decisions of one kind given for one reason.
type ReasonCount struct {
	Kind   decisions.Kind
	Reason string
	N      uint64
}

type policyCount struct {
	id string
	n  uint64
}

// ActedOn lists the kinds the recorded receipts show the recording's host
// acted on (a receipt by an executor that is not blocked_by_policy): the
// kinds it enabled, as far as the recording tells.
func (r *AuditReport) ActedOn() []decisions.Kind {
	var out []decisions.Kind
	for k, ok := range r.acted {
		if ok {
			out = append(out, decisions.Kind(k))
		}
	}
	return out
}

// Passed reports whether the verdict is PASS.
func (r *AuditReport) Passed() bool { return r.Verdict == VerdictPass }

// FindingCount returns how many times f was found.
func (r *AuditReport) FindingCount(f Finding) uint64 { return r.findings[f] }

// KindCount returns how many decisions of kind k were audited.
func (r *AuditReport) KindCount(k decisions.Kind) uint64 { return r.kinds[k] }

// ChainCount returns how many decisions had chain status s.
func (r *AuditReport) ChainCount(s ChainStatus) uint64 { return r.chains[s] }

// RerunCount returns how many decisions had re-run status s.
func (r *AuditReport) RerunCount(s RerunStatus) uint64 { return r.reruns[s] }

// Reasons returns the (kind, reason) pairs in the order first seen, with
// counts.
func (r *AuditReport) ReasonCounts() []ReasonCount { return append([]ReasonCount(nil), r.reasons...) }

// Policies returns the policy ids in the order first seen, with counts.
func (r *AuditReport) Policies() (ids []string, counts []uint64) {
	for _, p := range r.policies {
		ids = append(ids, p.id)
		counts = append(counts, p.n)
	}
	return ids, counts
}

func newReport(relax []Finding) AuditReport {
	r := AuditReport{
		Inputs: map[string]uint64{}, Undecided: map[string]uint64{}, WithoutAssessment: map[string]uint64{},
		Rejected: map[string]uint64{}, Actions: map[string]uint64{}, FirstStamp: -1, LastStamp: -1,
		findings: map[Finding]uint64{}, relaxed: map[Finding]bool{}, ReadComplete: true,
		Relaxed: []string{}, Notes: []string{},
	}
	for _, f := range relax {
		r.relaxed[f] = true
		r.Relaxed = append(r.Relaxed, string(f))
	}
	sort.Strings(r.Relaxed)
	return r
}

func (r *AuditReport) find(f Finding, n uint64) { r.findings[f] += n }

// finish fills the maps and the verdict.
func (r *AuditReport) finish() {
	if r.Decisions == 0 {
		r.find(FindingNoDecisions, 1)
	}
	r.ByKind = map[string]uint64{}
	for k, n := range r.kinds {
		if n > 0 {
			r.ByKind[decisions.Kind(k).String()] = n
		}
	}
	r.ByChain = map[string]uint64{}
	for s, n := range r.chains {
		r.ByChain[ChainStatus(s).String()] = n
	}
	r.ByRerun = map[string]uint64{}
	for s, n := range r.reruns {
		r.ByRerun[RerunStatus(s).String()] = n
	}
	r.ByReason = map[string]uint64{}
	for _, rc := range r.reasons {
		r.ByReason[rc.Reason] += rc.N
	}
	r.ByPolicy = map[string]uint64{}
	for _, p := range r.policies {
		r.ByPolicy[p.id] = p.n
	}
	if r.FirstStamp >= 0 {
		r.SpanNs = r.LastStamp - r.FirstStamp
	}
	if r.Problems == nil {
		r.Problems = []DecisionAudit{}
	}
	r.Findings = map[string]uint64{}
	r.Reasons = []string{}
	for _, f := range AllFindings() {
		n := r.findings[f]
		if n == 0 {
			continue
		}
		r.Findings[string(f)] = n
		if !r.relaxed[f] {
			r.Reasons = append(r.Reasons, fmt.Sprintf("%s: %d", f, n))
		}
	}
	r.Verdict = VerdictPass
	if len(r.Reasons) > 0 {
		r.Verdict = VerdictFail
		r.Causes = r.ProblemCauses()
	}
}

// count tallies one audited decision.
func (r *AuditReport) count(res *DecisionAudit, rat *decisions.Rationale, maxProblems int) {
	d := rat.Decision
	r.Decisions++
	if d.Kind.Valid() {
		r.kinds[d.Kind]++
	}
	r.chains[res.Chain]++
	r.reruns[res.Rerun]++
	switch res.Chain {
	case ChainBroken:
		r.find(FindingChainBroken, 1)
	case ChainAssessmentMissing:
		r.find(FindingAssessmentMissing, 1)
	}
	switch res.Rerun {
	case RerunDiverged:
		r.find(FindingDiverged, 1)
	case RerunUnknownPolicy:
		r.find(FindingUnknownPolicy, 1)
	case RerunNoContext:
		if res.Chain != ChainBroken && res.Chain != ChainAssessmentMissing {
			r.find(FindingNoContext, 1)
		}
	}
	counted := false
	for i := range r.reasons {
		if r.reasons[i].Kind == d.Kind && r.reasons[i].Reason == d.Reason {
			r.reasons[i].N++
			counted = true
			break
		}
	}
	if !counted {
		r.reasons = append(r.reasons, ReasonCount{d.Kind, d.Reason, 1})
	}
	found := false
	for i := range r.policies {
		if r.policies[i].id == rat.PolicyID {
			r.policies[i].n++
			found = true
			break
		}
	}
	if !found {
		r.policies = append(r.policies, policyCount{rat.PolicyID, 1})
	}
	if r.FirstStamp < 0 || rat.BeliefStampSimNs < r.FirstStamp {
		r.FirstStamp = rat.BeliefStampSimNs
	}
	if rat.BeliefStampSimNs > r.LastStamp {
		r.LastStamp = rat.BeliefStampSimNs
	}
	if res.Problem != "" {
		r.problem(*res, maxProblems)
	}
}

func (r *AuditReport) problem(res DecisionAudit, maxProblems int) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, res)
	} else {
		r.ProblemsOmitted++
	}
}

// note records a problem of finding f not tied to one decision, in Notes
// (up to maxProblems) and under its cause (see cause).
func (r *AuditReport) note(maxProblems int, f Finding, cause, subject string, format string, args ...any) {
	text := ""
	describe := func() string {
		if text == "" {
			text = capText(fmt.Sprintf(format, args...), 400)
		}
		return text
	}
	if len(r.Notes) < maxProblems {
		r.Notes = append(r.Notes, describe())
	} else {
		r.ProblemsOmitted++
	}
	r.cause(f, cause, subject, describe)
}

// capText cuts s to at most n bytes, saying so.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes more)", len(s)-n)
}
