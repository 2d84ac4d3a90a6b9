package runner

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
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

// RerunStatus is the outcome of re-running the named policy on the context
// rebuilt from the recording.
type RerunStatus uint8

// Re-run outcomes.
const (
	// RerunMatched: the policy gives the identical decision and rationale.
	RerunMatched RerunStatus = iota
	// RerunDiverged: it gives a different one.
	RerunDiverged
	// RerunUnknownPolicy: the rationale names a policy this build does not
	// know; nothing to compare.
	RerunUnknownPolicy
	// RerunNoContext: the context cannot be rebuilt (the chain is broken or
	// its assessment missing, or the belief is not in the recording).
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
}

// OK reports whether the decision is justified: its chain is verified or it
// claims no assessment, its stamps agree, and the re-run (when possible)
// matched.
func (a *DecisionAudit) OK() bool { return a.Problem == "" }

// AuditOptions configure an Auditor. The zero value is the default.
type AuditOptions struct {
	// Window is how long, in log time, a decision waits for inputs recorded
	// after it (recorders do not order topics), and how long inputs are kept
	// for decisions recorded later. Default 10 s.
	Window time.Duration
	// MaxHeld bounds the beliefs, assessments and perception reports held
	// for matching, and the decisions waiting for them; the oldest go first.
	// Default 65536.
	MaxHeld int
	// MaxProblems bounds the problem list of the report; counts stay exact.
	// Default 100.
	MaxProblems int
}

// AuditReport summarises a verification.
type AuditReport struct {
	Decisions       uint64                     `json:"decisions"`
	ByKind          map[string]uint64          `json:"by_kind"`
	ByReason        map[string]uint64          `json:"by_reason"`
	ByPolicy        map[string]uint64          `json:"by_policy"`
	ByChain         map[string]uint64          `json:"by_chain_status"`
	ByRerun         map[string]uint64          `json:"by_rerun_status"`
	StampProblems   uint64                     `json:"stamp_problems"`
	FirstStamp      int64                      `json:"first_stamp_sim_ns"`
	LastStamp       int64                      `json:"last_stamp_sim_ns"`
	SpanNs          int64                      `json:"span_ns"`
	Inputs          map[string]uint64          `json:"inputs"`
	Problems        []DecisionAudit            `json:"problems"`
	ProblemsOmitted uint64                     `json:"problems_omitted"`
	kinds           [decisions.NumKinds]uint64 // dense counts behind ByKind
	chains          [NumChainStatuses]uint64   // behind ByChain
	reruns          [NumRerunStatuses]uint64   // behind ByRerun
	policies        []policyCount              // behind ByPolicy, first-seen order
	reasons         []ReasonCount              // behind ByReason, first-seen order
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

// Passed reports the verdict verify exits on: no chain broken or missing,
// no decision diverging, no stamp inconsistency.
func (r *AuditReport) Passed() bool {
	return r.chains[ChainBroken] == 0 && r.chains[ChainAssessmentMissing] == 0 &&
		r.reruns[RerunDiverged] == 0 && r.StampProblems == 0
}

// KindCount returns how many decisions of kind k were audited.
func (r *AuditReport) KindCount(k decisions.Kind) uint64 { return r.kinds[k] }

// ChainCount returns how many decisions had chain status s.
func (r *AuditReport) ChainCount(s ChainStatus) uint64 { return r.chains[s] }

// RerunCount returns how many decisions had re-run status s.
func (r *AuditReport) RerunCount(s RerunStatus) uint64 { return r.reruns[s] }

// Reasons returns the (kind, reason) pairs in the order first seen, with
// counts.
func (r *AuditReport) Reasons() []ReasonCount { return append([]ReasonCount(nil), r.reasons...) }

// Policies returns the policy ids in the order first seen, with counts.
func (r *AuditReport) Policies() (ids []string, counts []uint64) {
	for _, p := range r.policies {
		ids = append(ids, p.id)
		counts = append(counts, p.n)
	}
	return ids, counts
}

type heldBelief struct {
	logTime int64
	flight  decisions.FlightStatus
	mission decisions.MissionStatus
}

type heldAssessments struct {
	logTime int64
	list    []decisions.SelfAssessment // usually one; conflicting repeats kept
	hashes  []string
}

type pendingDecision struct {
	logTime int64
	r       decisions.Rationale
}

type expiry struct {
	logTime int64
	stamp   int64
	kind    uint8 // 0 belief, 1 assessment
}

// Auditor runs ADR-0021's audit over a recording's messages, fed in log-time
// order: for each decision it checks the hash chain to the self-assessment
// with the same stamp, the stamps, and re-runs the named policy on the
// context rebuilt from the recording (the assessment, the belief's flight and
// mission status, the perception mode as-of the stamp). It holds inputs for a
// bounded window only, so memory does not grow with the recording. It is
// deterministic and does no I/O.
type Auditor struct {
	opts        AuditOptions
	now         int64
	beliefs     map[int64]*heldBelief
	assessments map[int64]*heldAssessments
	expiries    []expiry // FIFO by log time, from expHead on
	expHead     int
	perception  []decisions.PerceptionReport
	pending     []pendingDecision
	lastStamp   int64
	seenAny     bool
	report      AuditReport
}

// NewAuditor returns an Auditor with opts (zero fields take their defaults).
func NewAuditor(opts AuditOptions) *Auditor {
	if opts.Window <= 0 {
		opts.Window = 10 * time.Second
	}
	if opts.MaxHeld <= 0 {
		opts.MaxHeld = 65536
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = 100
	}
	return &Auditor{
		opts:        opts,
		beliefs:     make(map[int64]*heldBelief),
		assessments: make(map[int64]*heldAssessments),
		lastStamp:   -1,
		report: AuditReport{
			Inputs:     map[string]uint64{},
			FirstStamp: -1, LastStamp: -1,
		},
	}
}

func (a *Auditor) advance(logTime int64) {
	if logTime > a.now {
		a.now = logTime
	}
	a.resolvePending(false)
	a.expire()
}

// Belief records a belief seen in the recording.
func (a *Auditor) Belief(logTime int64, b *decisions.Belief) {
	a.report.Inputs["beliefs"]++
	if _, ok := a.beliefs[b.StampSimNs]; !ok {
		a.beliefs[b.StampSimNs] = &heldBelief{logTime: logTime, flight: b.Flight, mission: b.Mission}
		a.expiries = append(a.expiries, expiry{logTime, b.StampSimNs, 0})
	}
	a.advance(logTime)
}

// Assessment records a self-assessment seen in the recording.
func (a *Auditor) Assessment(logTime int64, s *decisions.SelfAssessment) {
	a.report.Inputs["self_assessments"]++
	h, ok := a.assessments[s.BeliefStampSimNs]
	if !ok {
		h = &heldAssessments{logTime: logTime}
		a.assessments[s.BeliefStampSimNs] = h
		a.expiries = append(a.expiries, expiry{logTime, s.BeliefStampSimNs, 1})
	}
	sha := s.SHA256()
	for _, x := range h.hashes {
		if x == sha {
			a.advance(logTime)
			return
		}
	}
	h.list = append(h.list, *s)
	h.hashes = append(h.hashes, sha)
	a.advance(logTime)
}

// Perception records a perception mode report seen in the recording.
func (a *Auditor) Perception(logTime int64, p decisions.PerceptionReport) {
	a.report.Inputs["perception_modes"]++
	// Keep the history sorted by stamp; reports nearly always come in order.
	i := len(a.perception)
	for i > 0 && a.perception[i-1].StampSimNs > p.StampSimNs {
		i--
	}
	if i > 0 && a.perception[i-1].StampSimNs == p.StampSimNs {
		a.perception[i-1] = p // the later report for a stamp wins, as live
	} else {
		a.perception = append(a.perception, decisions.PerceptionReport{})
		copy(a.perception[i+1:], a.perception[i:])
		a.perception[i] = p
	}
	if len(a.perception) > a.opts.MaxHeld {
		a.perception = a.perception[1:]
	}
	a.advance(logTime)
}

// Decision audits one recorded rationale (now, or once the inputs it needs
// are recorded or the window has passed).
func (a *Auditor) Decision(logTime int64, r decisions.Rationale) {
	a.advance(logTime)
	if len(a.pending) == 0 && a.resolvable(&r) {
		a.audit(logTime, r)
		return
	}
	a.pending = append(a.pending, pendingDecision{logTime, r})
	if len(a.pending) > a.opts.MaxHeld {
		p := a.pending[0]
		a.pending = a.pending[1:]
		a.audit(p.logTime, p.r)
	}
}

// Finish audits every decision still waiting and returns the report.
func (a *Auditor) Finish() *AuditReport {
	a.resolvePending(true)
	r := &a.report
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
	return r
}

func (a *Auditor) resolvable(r *decisions.Rationale) bool {
	if _, ok := a.beliefs[r.BeliefStampSimNs]; !ok {
		return false
	}
	if r.SelfAssessmentSHA256 == "" {
		return true
	}
	h, ok := a.assessments[r.BeliefStampSimNs]
	if !ok {
		return false
	}
	for _, x := range h.hashes {
		if x == r.SelfAssessmentSHA256 {
			return true
		}
	}
	return false
}

// resolvePending audits waiting decisions in recorded order: each as soon as
// its inputs are there, or when the window has passed (or force).
func (a *Auditor) resolvePending(force bool) {
	window := int64(a.opts.Window)
	n := 0
	for n < len(a.pending) {
		p := &a.pending[n]
		expired := force || a.now-p.logTime >= window
		if !expired && !a.resolvable(&p.r) {
			break
		}
		a.audit(p.logTime, p.r)
		n++
	}
	if n > 0 {
		a.pending = append(a.pending[:0], a.pending[n:]...)
	}
}

// expire forgets inputs older than the window (by log time) beyond what
// waiting decisions may still need, and beyond MaxHeld.
func (a *Auditor) expire() {
	window := int64(a.opts.Window)
	oldestNeeded := a.now - window
	if len(a.pending) > 0 && a.pending[0].logTime-window < oldestNeeded {
		oldestNeeded = a.pending[0].logTime - window
	}
	for a.expHead < len(a.expiries) {
		e := a.expiries[a.expHead]
		over := len(a.beliefs)+len(a.assessments) > 2*a.opts.MaxHeld
		if e.logTime >= oldestNeeded && !over {
			break
		}
		if e.kind == 0 {
			delete(a.beliefs, e.stamp)
		} else {
			delete(a.assessments, e.stamp)
		}
		a.expHead++
	}
	// Compact only when the consumed head dominates, so each entry is
	// moved a bounded number of times.
	if a.expHead > 1024 && a.expHead*2 > len(a.expiries) {
		a.expiries = append(a.expiries[:0], a.expiries[a.expHead:]...)
		a.expHead = 0
	}
	// Perception reports older than the one in force at the last audited
	// stamp cannot be the as-of report of a later decision.
	if a.lastStamp >= 0 {
		i := 0
		for i+1 < len(a.perception) && a.perception[i+1].StampSimNs <= a.lastStamp {
			i++
		}
		if i > 0 {
			a.perception = append(a.perception[:0], a.perception[i:]...)
		}
	}
}

func (a *Auditor) asOf(stamp int64) *decisions.PerceptionReport {
	var found *decisions.PerceptionReport
	for i := range a.perception {
		if a.perception[i].StampSimNs > stamp {
			break
		}
		found = &a.perception[i]
	}
	return found
}

// audit renders the verdict on one decision and counts it.
func (a *Auditor) audit(logTime int64, r decisions.Rationale) {
	d := r.Decision
	res := DecisionAudit{
		LogTimeNs: logTime, Stamp: r.BeliefStampSimNs, Kind: d.Kind, KindName: d.Kind.String(),
		Reason: d.Reason, PolicyID: r.PolicyID,
	}
	var problems []string
	if err := r.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if a.seenAny && r.BeliefStampSimNs <= a.lastStamp {
		problems = append(problems, fmt.Sprintf("stamp %d not after the previous decision's %d", r.BeliefStampSimNs, a.lastStamp))
	}
	if len(problems) > 0 {
		a.report.StampProblems++
	}

	// The hash chain.
	var used *decisions.SelfAssessment
	h := a.assessments[r.BeliefStampSimNs]
	switch {
	case r.SelfAssessmentSHA256 == "":
		res.Chain = ChainNoAssessmentClaimed
	case h == nil:
		res.Chain = ChainAssessmentMissing
		problems = append(problems, fmt.Sprintf("no self-assessment with stamp %d in the recording", r.BeliefStampSimNs))
	default:
		res.Chain = ChainBroken
		for i, x := range h.hashes {
			if x == r.SelfAssessmentSHA256 {
				res.Chain, used = ChainVerified, &h.list[i]
				break
			}
		}
		if used == nil {
			problems = append(problems, fmt.Sprintf("self_assessment_sha256 %s, but the assessment with stamp %d hashes to %s",
				r.SelfAssessmentSHA256, r.BeliefStampSimNs, h.hashes[0]))
		}
	}

	// The re-run.
	b := a.beliefs[r.BeliefStampSimNs]
	policy, err := decisions.LookupPolicy(r.PolicyID)
	switch {
	case err != nil:
		res.Rerun = RerunUnknownPolicy
	case b == nil || res.Chain == ChainBroken || res.Chain == ChainAssessmentMissing:
		res.Rerun = RerunNoContext
		if b == nil {
			problems = append(problems, fmt.Sprintf("belief %d is not in the recording: policy not re-run", r.BeliefStampSimNs))
		}
	default:
		ctx := decisions.Context{
			BeliefStampSimNs: r.BeliefStampSimNs,
			SelfAssessment:   used,
			Flight:           b.flight,
			Mission:          b.mission,
			Perception:       a.asOf(r.BeliefStampSimNs),
		}
		// The chain check above recomputed the assessment's hash; it is
		// r's hash exactly when the chain is verified.
		_, again, err := decisions.DecideWithKnownHash(policy, ctx, r.SelfAssessmentSHA256)
		switch {
		case err != nil:
			res.Rerun = RerunDiverged
			problems = append(problems, "re-run failed: "+err.Error())
		case again != r:
			res.Rerun = RerunDiverged
			problems = append(problems, fmt.Sprintf("re-run gives %s, recorded %s", again.Decision, r.Decision))
		default:
			res.Rerun = RerunMatched
		}
	}
	if len(problems) > 0 {
		res.Problem = joinProblems(problems)
		if uint64(len(a.report.Problems)) < uint64(a.opts.MaxProblems) {
			a.report.Problems = append(a.report.Problems, res)
		} else {
			a.report.ProblemsOmitted++
		}
	}

	rep := &a.report
	rep.Decisions++
	if d.Kind.Valid() {
		rep.kinds[d.Kind]++
	}
	rep.chains[res.Chain]++
	rep.reruns[res.Rerun]++
	counted := false
	for i := range rep.reasons {
		if rep.reasons[i].Kind == d.Kind && rep.reasons[i].Reason == d.Reason {
			rep.reasons[i].N++
			counted = true
			break
		}
	}
	if !counted {
		rep.reasons = append(rep.reasons, ReasonCount{d.Kind, d.Reason, 1})
	}
	found := false
	for i := range rep.policies {
		if rep.policies[i].id == r.PolicyID {
			rep.policies[i].n++
			found = true
			break
		}
	}
	if !found {
		rep.policies = append(rep.policies, policyCount{r.PolicyID, 1})
	}
	if rep.FirstStamp < 0 || r.BeliefStampSimNs < rep.FirstStamp {
		rep.FirstStamp = r.BeliefStampSimNs
	}
	if r.BeliefStampSimNs > rep.LastStamp {
		rep.LastStamp = r.BeliefStampSimNs
	}
	if !a.seenAny || r.BeliefStampSimNs > a.lastStamp {
		a.lastStamp = r.BeliefStampSimNs
	}
	a.seenAny = true
}

func joinProblems(ps []string) string {
	s := ps[0]
	for _, p := range ps[1:] {
		s += "; " + p
	}
	return s
}
