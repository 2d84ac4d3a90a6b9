package engine

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Defaults of LoopOptions.
const (
	DefaultAssessmentTimeout     = 100 * time.Millisecond
	DefaultMaxPendingBeliefs     = 1024
	DefaultMaxPendingAssessments = 1024
	DefaultMaxPerceptionReports  = 1024
	DefaultMaxDecidedMemory      = 1024
	// DefaultMaxStampLead is far beyond transport jitter and estimator
	// latency (milliseconds), so no real stream comes near it, and small
	// enough that a stamp wrongly inside it costs at most ten seconds of
	// late inputs; a flipped byte above the lowest four moves a stamp by
	// 4.3 s or (from bit 34 on) by more than the window.
	DefaultMaxStampLead = 10 * time.Second
)

// LoopOptions configure a Loop. The zero value is the default configuration.
type LoopOptions struct {
	// Policy decides every context. Default decisions.ReferencePolicy{}.
	Policy decisions.Policy
	// AssessmentTimeout is how long, in arrival time, a belief waits for its
	// self-assessment before it is decided without one. Default 100 ms (zero
	// means default); negative is an error.
	AssessmentTimeout time.Duration
	// MaxPendingBeliefs bounds the beliefs waiting for their assessment; one
	// more decides the oldest without it (buffer_full). Default 1024.
	MaxPendingBeliefs int
	// MaxPendingAssessments bounds the assessments waiting for their belief;
	// one more drops the oldest stamp (assessment_buffer_full). Default 1024.
	MaxPendingAssessments int
	// MaxPerceptionReports bounds the perception history the as-of join
	// reads (one more drops the oldest, perception_buffer_full) and,
	// separately, the memory of older reports that recognises repeats.
	// Default 1024.
	MaxPerceptionReports int
	// MaxDecidedMemory bounds the memory of recently decided stamps and what
	// they used, which tells an identical repeat from a conflict after the
	// decision. Default 1024.
	MaxDecidedMemory int
	// MaxStampLead is how far a belief's or assessment's stamp may be
	// ahead of the newest admitted stamp, beyond the arrival time elapsed
	// since it; further ahead is implausible (see the stamp plausibility
	// rules in plausible.go). Default DefaultMaxStampLead (zero means
	// default); negative is an error.
	MaxStampLead time.Duration
	// Actions route decisions to executors; the zero value executes
	// nothing (see loop_actions.go for the rules).
	Actions ActionOptions
	// Node is the fully qualified name of the node the Loop decides for,
	// e.g. "/decision_node": ParameterEvents naming it may change the
	// assessment timeout (parameters.go). "" follows no ParameterEvent.
	Node string
}

// ErrOptions is matched by every error NewLoop returns for bad options.
var ErrOptions = errors.New("invalid loop options")

// ErrUnsupportedEvent is returned by Step for a nil event or one of a type
// outside the closed set (a pointer to an event, for instance).
var ErrUnsupportedEvent = errors.New("unsupported event")

// ErrDecide is matched by the error Step returns when the policy, or the
// validation of what it decided, fails. The session is then unchanged.
var ErrDecide = errors.New("decision failed")

// LoopSizes are the current lengths of the Loop's buffers; each stays within
// its LoopOptions bound between steps.
type LoopSizes struct {
	PendingBeliefs    int // <= MaxPendingBeliefs
	HeldAssessments   int // <= MaxPendingAssessments
	PerceptionHistory int // <= MaxPerceptionReports
	PerceptionMemory  int // <= MaxPerceptionReports
	DecidedMemory     int // <= MaxDecidedMemory
}

// Loop is the deterministic session: it joins beliefs, self-assessments and
// perception reports into decision contexts, runs the policy, and emits
// Commands in increasing stamp order. It is not safe for concurrent use.
type Loop struct {
	policy        decisions.Policy
	stateful      decisions.StatefulPolicy // policy, when it keeps state
	policyID      string
	timeout       time.Duration
	maxPending    int
	maxHeld       int
	maxPerception int
	maxDecided    int
	maxLead       uint64
	actions       actionConfig
	node          string

	started bool
	// now is the newest arrival time seen; arrivals that go backwards are
	// clamped to it, so time never runs backwards inside the Loop.
	now int64
	// lastDecided is the newest decided stamp, -1 before the first decision
	// (valid stamps are >= 0).
	lastDecided int64
	// newestAssessment is the newest stamp of an admitted assessment, -1
	// before the first.
	newestAssessment int64
	// forgottenUpTo is the newest stamp dropped from the decided memory, -1
	// while nothing was dropped.
	forgottenUpTo int64

	// Stamp plausibility (plausible.go): firstArrival is the stream's first
	// arrival time; once anchored, refStamp is the newest admitted stamp,
	// admitted at refArrival; jump tracks consecutive implausible inputs.
	firstArrival int64
	anchored     bool
	refStamp     int64
	refArrival   int64
	jump         jumpTracker

	pending        ordered[pendingBelief]
	held           ordered[heldAssessment]
	history        ordered[perceptionEntry] // as-of join candidates
	pastPerception ordered[perceptionEntry] // pruned from history, for repeats
	decided        ordered[decidedRecord]
	// act is the action trail's state (loop_actions.go); vclock the
	// deadline clock of DeadlinesVehicle (vehicle_clock.go).
	act    actionState
	vclock vehicleClock

	scratchA, scratchB []byte

	// covFree recycles the covariance storage of beliefs that left both
	// the pending buffer and the decided memory (see keepCovariance);
	// covPool, once a belief donated its storage, takes the surplus back.
	covFree [][]float64
	covPool *CovariancePool

	// textMemo hashes the assessments that arrive without their hash
	// (made in process, as the reference translation's) from the text of
	// the previous one.
	textMemo TextMemo
}

type pendingBelief struct {
	belief decisions.Belief
	// arrival is the (clamped) arrival time the assessment timeout counts from.
	arrival int64
}

func (p pendingBelief) key() int64 { return p.belief.StampSimNs }

// heldAssessment is an assessment with the calibration envelope (ADR-0027)
// that came with it, if any.
type heldAssessment struct {
	a       decisions.SelfAssessment
	hash    *AssessmentHash // a's, once admitted
	cal     decisions.Calibration
	hasCal  bool
	arrival int64 // the (clamped) arrival time, for the stamp plausibility check
}

func (h heldAssessment) key() int64 { return h.a.BeliefStampSimNs }

// sha256 returns a's hash in hex: the one made when it was admitted.
func (h *heldAssessment) sha256() string {
	if h.hash.For(&h.a) {
		return h.hash.Hex()
	}
	return h.a.SHA256()
}

type perceptionEntry struct{ r decisions.PerceptionReport }

func (p perceptionEntry) key() int64 { return p.r.StampSimNs }

// decidedRecord remembers what one decision used.
type decidedRecord struct {
	belief        decisions.Belief
	assessment    heldAssessment
	hasAssessment bool
	perception    decisions.PerceptionReport
	hasPerception bool
	kind          decisions.Kind
	without       WithoutReason
}

func (d decidedRecord) key() int64 { return d.belief.StampSimNs }

// maxDecidedReserve bounds what the decided memory reserves at once: its
// settled size at the default bounds.
const maxDecidedReserve = 2*DefaultMaxDecidedMemory + DefaultMaxPendingBeliefs

// NewLoop returns a Loop with opts, defaults filled in.
func NewLoop(opts LoopOptions) (*Loop, error) {
	l := &Loop{
		policy:           opts.Policy,
		timeout:          opts.AssessmentTimeout,
		node:             opts.Node,
		lastDecided:      -1,
		newestAssessment: -1,
		forgottenUpTo:    -1,
	}
	if l.policy == nil {
		l.policy = decisions.ReferencePolicy{}
	}
	ac, err := newActionConfig(opts.Actions)
	if err != nil {
		return nil, err
	}
	l.actions = ac
	if sp, ok := l.policy.(decisions.StatefulPolicy); ok {
		// Each Loop owns its instance: its state follows this session's
		// contexts only.
		l.stateful = sp.NewInstance()
		l.policy = l.stateful
	}
	l.policyID = l.policy.ID()
	probe := decisions.Rationale{
		Decision:      decisions.Decision{Reason: "probe", SchemaVersion: decisions.SchemaVersion},
		PolicyID:      l.policyID,
		SchemaVersion: decisions.SchemaVersion,
	}
	if err := probe.Validate(); err != nil {
		return nil, fmt.Errorf("%w: Policy.ID() = %q: %w", ErrOptions, l.policyID, err)
	}
	switch {
	case opts.MaxStampLead < 0:
		return nil, fmt.Errorf("%w: MaxStampLead = %s: must be >= 0 (0 means %s)", ErrOptions, opts.MaxStampLead, DefaultMaxStampLead)
	case opts.MaxStampLead == 0:
		l.maxLead = uint64(DefaultMaxStampLead)
	default:
		l.maxLead = uint64(opts.MaxStampLead)
	}
	switch {
	case l.timeout < 0:
		return nil, fmt.Errorf("%w: AssessmentTimeout = %s: must be >= 0 (0 means %s)", ErrOptions, l.timeout, DefaultAssessmentTimeout)
	case l.timeout == 0:
		l.timeout = DefaultAssessmentTimeout
	}
	for _, f := range []struct {
		name string
		v    int
		def  int
		dst  *int
	}{
		{"MaxPendingBeliefs", opts.MaxPendingBeliefs, DefaultMaxPendingBeliefs, &l.maxPending},
		{"MaxPendingAssessments", opts.MaxPendingAssessments, DefaultMaxPendingAssessments, &l.maxHeld},
		{"MaxPerceptionReports", opts.MaxPerceptionReports, DefaultMaxPerceptionReports, &l.maxPerception},
		{"MaxDecidedMemory", opts.MaxDecidedMemory, DefaultMaxDecidedMemory, &l.maxDecided},
	} {
		switch {
		case f.v < 0:
			return nil, fmt.Errorf("%w: %s = %d: must be >= 0 (0 means %d)", ErrOptions, f.name, f.v, f.def)
		case f.v == 0:
			*f.dst = f.def
		default:
			*f.dst = f.v
		}
	}
	return l, nil
}

// PolicyID returns the id of the policy that decides.
func (l *Loop) PolicyID() string { return l.policyID }

// LastDecided returns the newest decided stamp, and false before the first
// decision.
func (l *Loop) LastDecided() (int64, bool) { return l.lastDecided, l.lastDecided >= 0 }

// Sizes returns the current buffer lengths.
func (l *Loop) Sizes() LoopSizes {
	return LoopSizes{
		PendingBeliefs:    l.pending.len(),
		HeldAssessments:   l.held.len(),
		PerceptionHistory: l.history.len(),
		PerceptionMemory:  l.pastPerception.len(),
		DecidedMemory:     l.decided.len(),
	}
}

// candidate is the input a step admits; it enters the session state only
// when every decision of the step succeeded.
type candidate struct {
	kind InputKind
	ok   bool
	// implausible: the input was rejected for its stamp, rejectedStamp.
	implausible   bool
	rejectedStamp int64
	belief        pendingBelief
	donor         *CovariancePool // of belief's covariance
	assessment    heldAssessment
	perception    decisions.PerceptionReport
}

// Step feeds one event to the session and writes what it caused to out,
// which it resets first. An error (ErrUnsupportedEvent, or ErrDecide when the
// policy fails) leaves the session exactly as it was and out empty.
//
// Every event advances time, whatever its content (a rejected input still
// arrived): the Loop's time becomes the newest arrival seen, and an arrival
// older than that is taken as that newest time, so time never runs backwards
// and a belief's wait is measured from when the Loop first saw it.
//
// With out reused, the steady state allocates only what the policy and
// decisions.DecideWithRationale allocate (the rationale's hash string) and
// the Detail text of rejections.
func (l *Loop) Step(ev Event, out *Output) error {
	out.Reset()
	var c candidate
	now, ok := ArrivalOf(ev)
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnsupportedEvent, eventTypeName(ev))
	}
	_, end := ev.(EndEvent)
	if l.started && now < l.now {
		now = l.now
	}
	// A parameter change applies before this step's decisions: a shorter
	// timeout releases, at this arrival time, the beliefs that waited
	// longer; an enable applies to this step's decided kinds. A failed step
	// restores the old values with the rest.
	oldTimeout := l.timeout
	var oldRoutes *[decisions.NumKinds]ActionRoute // saved only when an enable changes
	if e, ok := ev.(ParameterEvent); ok {
		if d, ok := l.timeoutChange(&e); ok {
			l.timeout = d
		}
		if r, ok := l.enableChange(&e); ok {
			saved := l.actions.routes
			oldRoutes = &saved
			l.actions.routes = r
		}
	}
	switch e := ev.(type) {
	case BeliefEvent:
		if l.admitBelief(&e.Belief, now, &c, out) {
			c.kind, c.ok = InputBelief, true
			c.belief, c.donor = pendingBelief{belief: e.Belief}, e.Donor
		}
	case AssessmentEvent:
		h := heldAssessment{a: e.Assessment, hash: e.Hash}
		if e.Calibration != nil {
			h.cal, h.hasCal = *e.Calibration, true
		}
		if l.admitAssessment(&h, now, &c, out) {
			c.kind, c.ok = InputAssessment, true
			c.assessment = h
		}
	case PerceptionEvent:
		if l.admitPerception(e.Report, out) {
			c.kind, c.ok = InputPerception, true
			c.perception = e.Report
		}
	}
	c.belief.arrival = now
	anchor := l.planAnchor(&c, now)
	if l.stateful != nil {
		l.stateful.Checkpoint()
	}
	// The action state the policy sees is the one after this step's
	// evidence and deadlines (loop_actions.go), which count in dnow.
	acts := l.act
	var evidence []Evidence
	if e, ok := ev.(EvidenceEvent); ok {
		evidence = e.Items
	}
	vclock, dnow := l.vclock, now
	if l.actions.deadlines == DeadlinesVehicle {
		s, ok := c.stamp()
		vclock = vclock.step(now, s, ok && c.kind == InputBelief && s <= anchor.keepUpTo, l.maxLead)
		dnow = vclock.at
	}
	l.settleActions(&acts, dnow, evidence, out)
	n, err := l.plan(now, &c, anchor, end, &acts, out)
	if err != nil {
		if l.stateful != nil {
			l.stateful.Rollback()
		}
		l.timeout = oldTimeout
		if oldRoutes != nil {
			l.actions.routes = *oldRoutes
		}
		out.Reset()
		return err
	}
	l.startActions(&acts, dnow, out)
	l.commit(now, &c, anchor, n, out)
	l.act, l.vclock = acts, vclock
	return nil
}

// eventTypeName names the type of an event Step does not take without
// handing ev to fmt, which would move every event to the heap.
func eventTypeName(ev Event) string {
	switch ev.(type) {
	case nil:
		return "nil"
	case *BeliefEvent:
		return "*BeliefEvent (pass the value)"
	case *AssessmentEvent:
		return "*AssessmentEvent (pass the value)"
	case *PerceptionEvent:
		return "*PerceptionEvent (pass the value)"
	case *TickEvent:
		return "*TickEvent (pass the value)"
	case *EndEvent:
		return "*EndEvent (pass the value)"
	case *EvidenceEvent:
		return "*EvidenceEvent (pass the value)"
	case *ParameterEvent:
		return "*ParameterEvent (pass the value)"
	case *LifecycleEvent:
		return "*LifecycleEvent (pass the value)"
	}
	return "unknown event type"
}

// pendingView is the pending beliefs with the step's candidate belief merged
// in, without touching the session.
type pendingView struct {
	items []pendingBelief
	ins   int
	extra *pendingBelief
}

func (l *Loop) view(c *candidate) pendingView {
	v := pendingView{items: l.pending.items()}
	if c.ok && c.kind == InputBelief {
		v.ins, _ = l.pending.search(c.belief.key())
		v.extra = &c.belief
	}
	return v
}

func (v *pendingView) len() int {
	if v.extra != nil {
		return len(v.items) + 1
	}
	return len(v.items)
}

func (v *pendingView) at(k int) *pendingBelief {
	switch {
	case v.extra == nil || k < v.ins:
		return &v.items[k]
	case k == v.ins:
		return v.extra
	default:
		return &v.items[k-1]
	}
}

// plan decides, oldest first, every pending belief the join rules release
// at time now, appending the Commands to out. It changes nothing in the
// session but a stateful policy's state, which Step rolls back on failure. It returns how many of the
// oldest pending beliefs were decided.
func (l *Loop) plan(now int64, c *candidate, anchor anchorPlan, end bool, acts *actionState, out *Output) (int, error) {
	v := l.view(c)
	newest := l.newestAssessment
	if c.ok && c.kind == InputAssessment && c.assessment.a.BeliefStampSimNs > newest {
		newest = c.assessment.a.BeliefStampSimNs
	}
	n := v.len()
	if anchor.anchors {
		// The beliefs and assessments this step drops as implausible are
		// the newest: decide as if they had never come.
		for n > 0 && v.at(n-1).key() > anchor.keepUpTo {
			n--
		}
		if newest > anchor.keepUpTo {
			newest = -1
			it := l.held.items()
			if i, _ := l.held.search(anchor.keepUpTo + 1); i > 0 {
				newest = it[i-1].key()
			}
			if s, ok := c.stamp(); ok && c.kind == InputAssessment && s <= anchor.keepUpTo {
				newest = max(newest, s)
			}
		}
	}
	for k := 0; k < n; k++ {
		b := v.at(k)
		a := l.assessmentFor(b.key(), c)
		why, ok := l.decideNow(b, a != nil, now, newest, anchor.ok, n-k > l.maxPending, end)
		if !ok {
			return k, nil
		}
		if err := l.emit(b, a, why, c, acts, out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// emit assembles the context of b, runs the policy and appends the Command.
func (l *Loop) emit(b *pendingBelief, a *heldAssessment, why WithoutReason, c *candidate, acts *actionState, out *Output) error {
	s := b.belief.StampSimNs
	ctx := decisions.Context{BeliefStampSimNs: s, Flight: b.belief.Flight, Mission: b.belief.Mission,
		Actions: l.actionStates(acts, s, out)}
	var hash *AssessmentHash
	var hashHex string
	if a != nil {
		hash, hashHex = a.hash, a.hash.Hex()
		ctx.SelfAssessment = out.keepAssessment(&a.a)
		if a.hasCal {
			ctx.Calibration = out.keepCalibration(&a.cal)
		}
	}
	if p, ok := l.asOf(s, c); ok {
		ctx.Perception = out.keepPerception(p)
	}
	d, r, err := decisions.DecideWithRationale(l.policy, ctx, hashHex)
	if err != nil {
		return fmt.Errorf("%w: belief stamp %d: %w", ErrDecide, s, err)
	}
	out.Commands = append(out.Commands, Command{
		Context: ctx, Decision: d, Rationale: r, PolicyID: l.policyID, WithoutAssessment: why,
		assessmentHash: hash,
	})
	return nil
}

// commit applies a successful step: the candidate enters its buffer, the n
// decided beliefs leave theirs for the decided memory, and every buffer is
// pruned back within its bound. Nothing here can fail.
func (l *Loop) commit(now int64, c *candidate, anchor anchorPlan, n int, out *Output) {
	if c.ok && c.kind == InputBelief {
		// Before the view below: a belief decided in its own step goes
		// to the decided memory with the Loop's copy too.
		c.belief.belief.Covariance = l.keepCovariance(c.belief.belief.Covariance, c.donor)
	}
	if !l.started {
		l.firstArrival = now
	}
	l.started = true
	l.now = now

	v := l.view(c)
	if n > 0 && l.decided.buf == nil {
		// The decided memory fills to its bound in any flight longer
		// than that many beliefs: reserving its settled size (live
		// entries, as many dead ones before a compaction, one step's
		// overflow) spares it the copies and the fresh pages of growing
		// by doubling, a fifth of a short flight's verify. A bound set
		// far above the default, or a burst that meets a full array,
		// still grows it.
		l.decided.buf = make([]decidedRecord, 0, min(2*l.maxDecided+l.maxPending, maxDecidedReserve))
	}
	for k := 0; k < n; k++ {
		cmd := &out.Commands[k]
		rec := decidedRecord{belief: v.at(k).belief, kind: cmd.Decision.Kind, without: cmd.WithoutAssessment}
		if a := cmd.Context.SelfAssessment; a != nil {
			rec.assessment, rec.hasAssessment = heldAssessment{a: *a, hash: cmd.assessmentHash}, true
			if k := cmd.Context.Calibration; k != nil {
				rec.assessment.cal, rec.assessment.hasCal = *k, true
			}
		}
		if p := cmd.Context.Perception; p != nil {
			rec.perception, rec.hasPerception = *p, true
		}
		l.decided.insert(rec)
		l.lastDecided = rec.belief.StampSimNs
	}
	for l.decided.len() > l.maxDecided {
		l.forgottenUpTo = l.decided.front().key()
		l.releaseCovariance(l.decided.front().belief.Covariance)
		l.decided.dropFront(1)
	}

	if c.ok {
		switch c.kind {
		case InputBelief:
			l.pending.insert(c.belief)
		case InputAssessment:
			h := c.assessment
			h.arrival = now
			l.held.insert(h)
			l.newestAssessment = max(l.newestAssessment, c.assessment.a.BeliefStampSimNs)
		case InputPerception:
			l.history.insert(perceptionEntry{c.perception})
		}
	}
	l.pending.dropFront(n)
	l.commitStamps(now, c, anchor, out)
	l.pruneHeld(out)
	l.prunePerception(out)
}

// pruneHeld drops held assessments that decisions have passed (consumed by
// their decision, or unmatched: their belief never came) and, beyond the
// bound, the oldest stamps.
func (l *Loop) pruneHeld(out *Output) {
	it := l.held.items()
	cmds := out.Commands
	i, j := 0, 0
	for ; i < len(it) && it[i].key() <= l.lastDecided; i++ {
		s := it[i].key()
		for j < len(cmds) && cmds[j].Decision.DecisionStampSimNs < s {
			j++
		}
		if j < len(cmds) && cmds[j].Decision.DecisionStampSimNs == s && cmds[j].Context.SelfAssessment != nil {
			continue // consumed
		}
		out.Rejections = append(out.Rejections, Rejection{RejectUnmatchedAssessment, s, fmt.Sprintf(
			"BeliefSelfAssessment.belief_stamp_sim_ns = %d: no belief with this stamp arrived before decisions passed it (last decided stamp %d); dropped",
			s, l.lastDecided)})
	}
	l.held.dropFront(i)
	for l.held.len() > l.maxHeld {
		s := l.held.front().key()
		out.Rejections = append(out.Rejections, Rejection{RejectAssessmentBufferFull, s, fmt.Sprintf(
			"BeliefSelfAssessment.belief_stamp_sim_ns = %d: %d assessments wait for their belief (MaxPendingAssessments); the oldest stamp was dropped",
			s, l.maxHeld)})
		l.held.dropFront(1)
	}
}

// prunePerception keeps, of the reports at or before the last decided stamp,
// only the newest (the as-of report of every stamp still to decide up to the
// next report); older ones move to the bounded memory that recognises
// repeats. Beyond the bound the oldest report is dropped.
func (l *Loop) prunePerception(out *Output) {
	it := l.history.items()
	upTo := sort.Search(len(it), func(i int) bool { return it[i].key() > l.lastDecided })
	if upTo > 1 {
		for _, e := range it[:upTo-1] {
			if _, found := l.pastPerception.search(e.key()); !found {
				l.pastPerception.insert(e)
			}
		}
		l.history.dropFront(upTo - 1)
	}
	for l.history.len() > l.maxPerception {
		r := l.history.front().r
		out.Rejections = append(out.Rejections, Rejection{RejectPerceptionBufferFull, r.StampSimNs, fmt.Sprintf(
			"PerceptionMode.stamp_sim_ns = %d: the perception history holds %d reports (MaxPerceptionReports); the oldest was dropped",
			r.StampSimNs, l.maxPerception)})
		l.history.dropFront(1)
	}
	if d := l.pastPerception.len() - l.maxPerception; d > 0 {
		l.pastPerception.dropFront(d)
	}
}
