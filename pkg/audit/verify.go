package audit

import (
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// ProblemSource is a Source that also reports the channels it could not
// read (a *bag.Reader); Verify fails on such a channel on the decisions
// topic.
type ProblemSource interface {
	Source
	Problems() []bag.ChannelProblem
}

// Verify audits the recording src (messages in log-time order) and returns
// the report.
//
// It drives the very Loop replay and the live node use (one join engine):
// the recording's inputs, with log times as arrival times, go through a
// session.Session per candidate policy, and each recorded decision is
// compared, bit for bit, with the one the Loop makes for its stamp with the
// policy the decision names (re-run status). Independently, each recorded
// rationale's hash is checked against the recorded self-assessments of its
// stamp (ADR-0022 chain status). The report's verdict is PASS only when no
// Finding was made (or only relaxed ones). A damaged source is audited up to
// the damage: the report says the read was incomplete and is returned with
// the source's error.
func Verify(src Source, opts VerifyOptions) (*AuditReport, error) {
	v, err := newVerifier(opts)
	if err != nil {
		return nil, err
	}
	return v.run(src)
}

type recorded struct {
	logTime int64
	r       decisions.Rationale
}

type verifier struct {
	opts       VerifyOptions
	inputs     []session.InputSpec
	decisionsT string
	cands      []*candidate
	active     int // candidates not retired
	pending    fifo[recorded]
	chain      chainIndex
	// oldestBelief is the oldest belief stamp recorded (haveBelief: any).
	oldestBelief int64
	haveBelief   bool
	chainMemo    engine.TextMemo // hashes what only the chain check reads
	report       AuditReport
	now          int64
	lastStamp    int64  // newest audited stamp, -1 before the first (stamps are >= 0)
	firstStamp   int64  // stamp of the first recorded decision, -1 before
	firstPolicy  string // the policy the first recorded decision names
	badChannels  map[uint16]bool
	messages     uint64
	counts       inputCounts
	// lastRecorded is the newest recorded decision taken, to tell an
	// identical repeat.
	lastRecorded decisions.Rationale
	haveLast     bool

	actionsT string
	acts     actionAudit
	// seals checks the recording against its seals; nil without.
	seals *seal.Checker
	sealT string
}

func newVerifier(opts VerifyOptions) (*verifier, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	v := &verifier{
		opts: opts, inputs: opts.Session.Inputs, decisionsT: opts.DecisionsTopic,
		counts: inputCounts{inputs: make([]uint64, len(opts.Session.Inputs))},
		report: newReport(opts.Relax), lastStamp: -1, firstStamp: -1,
		chain:       newChainIndex(opts.MaxHeld),
		badChannels: map[uint16]bool{},
		actionsT:    opts.ActionsTopic,
		acts:        actionAudit{execs: opts.Session.Executors},
	}
	seen := map[string]bool{}
	for _, p := range opts.Policies {
		if seen[p.ID()] {
			return nil, fmt.Errorf("verify: two supplied policies have the id %q", p.ID())
		}
		seen[p.ID()] = true
		c, err := v.newCandidate(p)
		if err != nil {
			return nil, err
		}
		v.cands = append(v.cands, c)
	}
	v.active = len(v.cands)
	if opts.Seals != nil {
		so := *opts.Seals
		so.Reads = v.reads
		v.seals = seal.NewChecker(so)
		v.sealT = cmp.Or(so.Topic, seal.DefaultTopic)
	}
	return v, nil
}

// reads reports whether the audit reads topic: an input, the decisions,
// the receipts or the chain check's assessments.
func (v *verifier) reads(topic string) bool {
	return v.inputIndex(topic) >= 0 || topic == v.decisionsT || topic == v.actionsT ||
		topic == v.opts.Format.ChainTopic && topic != ""
}

func (v *verifier) run(src Source) (*AuditReport, error) {
	workers := v.opts.decodeWorkers()
	p := &pipeline{
		inputs: v.inputs,
		// Decoding (and hashing each assessment: its canonical text and
		// SHA-256) runs on the prefetcher's workers, if any; the Loops, the
		// chain check and the comparison stay here, in recorded order.
		newDecodeOther: v.newDecodeOther,
		step:           v.step,
		readAhead:      workers > 0,
		workers:        workers,
		every:          v.opts.ProgressEvery,
		progress:       func(uint64) { v.progress(false) },
	}
	srcErr, _ := p.run(src) // step returns no error
	v.end(src)
	v.progress(true)
	if errors.Is(srcErr, io.EOF) {
		return v.finish(nil)
	}
	return v.finish(&IncompleteReadError{Err: srcErr})
}

// newDecodeOther returns a decoder, for one goroutine, of the recorded
// decisions and chain assessments.
func (v *verifier) newDecodeOther() func(*bag.Message, *decoded) bool {
	chainT := v.opts.Format.ChainTopic
	decodeDecision := v.opts.Format.NewDecodeDecision()
	var decodeChain func([]byte) (decisions.SelfAssessment, error)
	if chainT != "" {
		decodeChain = v.opts.Format.NewDecodeChain()
	}
	return func(m *bag.Message, d *decoded) bool {
		switch {
		case m.Topic == v.actionsT:
			// Decoded in order, on the stepping goroutine.
		case m.Topic == v.decisionsT:
			// Validated here too, off the Loop's goroutine.
			if d.r, d.err = decodeDecision(m.Data); d.err == nil {
				d.invalid = d.r.Validate()
			}
		case chainT != "" && m.Topic == chainT:
			d.a, d.err = decodeChain(m.Data)
		default:
			return false
		}
		return true
	}
}

// step audits one message, in recorded order.
func (v *verifier) step(m *bag.Message, d *decoded) error {
	v.messages++
	if v.seals != nil {
		v.seals.Observe(m.Topic, m.SchemaName, m.LogTime, m.Data)
		if m.Topic == v.sealT {
			return nil
		}
	}
	if t := int64(m.LogTime); t > v.now {
		v.now = t
	}
	if v.opts.Observer != nil {
		v.observe(m, d)
	}
	chainT := v.opts.Format.ChainTopic
	switch {
	case m.Topic == v.actionsT:
		v.receipt(m.Data, m.SchemaName, m.LogTime)
	case m.Topic == v.decisionsT:
		err := d.err
		if err == nil {
			err = d.invalid
		}
		v.decision(m, d.r, err)
	case chainT != "" && m.Topic == chainT:
		v.chainAssessment(m, &d.a, d.err)
	default:
		v.input(m, &d.ev, d.err)
	}
	return nil
}

func (v *verifier) progress(done bool) {
	if v.opts.OnProgress != nil {
		v.opts.OnProgress(Progress{Messages: v.messages, Total: v.opts.Total, LogTimeNs: v.now,
			Decisions: v.report.Decisions, Done: done})
	}
}

func (v *verifier) finish(err error) (*AuditReport, error) {
	for i, n := range v.counts.inputs {
		if n > 0 {
			v.report.Inputs[v.inputs[i].Key] += n
		}
	}
	for _, c := range [...]struct {
		key string
		n   uint64
	}{{"other", v.counts.other}, {"corrupt", v.counts.corrupt}, {"chain_assessments", v.counts.chain}} {
		if c.n > 0 {
			v.report.Inputs[c.key] += c.n
		}
	}
	if err != nil {
		v.report.ReadComplete = false
		v.report.find(FindingReadIncomplete, 1)
		v.report.note(v.opts.MaxProblems, FindingReadIncomplete, "", "", "read incomplete: %v", err)
	}
	if v.seals != nil {
		if r := v.seals.Finish(err == nil); r.Trusted || r.Seals > 0 {
			v.report.Seals = r
			if r.Trusted && r.Breaks > 0 {
				v.report.find(FindingSealBroken, r.Breaks)
			}
		}
	}
	v.report.finish()
	return &v.report, err
}

// input feeds one input message to the chain index and every candidate's
// Loop.
func (v *verifier) input(m *bag.Message, ev *session.Decoded, decodeErr error) {
	k := v.inputIndex(m.Topic)
	if k < 0 {
		v.counts.other++
		return
	}
	v.counts.inputs[k]++
	if decodeErr != nil {
		v.counts.corrupt++
		if v.opts.OnCorrupt != nil {
			v.opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, decodeErr))
		}
	} else if h, ok := ev.AssessmentHash(); ok && v.opts.Format.ChainTopic == "" {
		v.chain.add(h)
	} else if s, ok := ev.BeliefStamp(); ok && (!v.haveBelief || s < v.oldestBelief) {
		v.oldestBelief, v.haveBelief = s, true
	}
	if v.active > 1 {
		ev.DropDonor()
	}
	for _, c := range v.cands {
		if c.retired {
			continue
		}
		// Rejections and policy failures are the Loop's business and are
		// counted by its Runner; corrupt input was counted above.
		_ = c.session.ApplyDecoded(m.Topic, ev, decodeErr)
	}
	v.resolve(false)
}

// chainAssessment takes a recorded assessment that only the chain check
// reads.
func (v *verifier) chainAssessment(m *bag.Message, a *decisions.SelfAssessment, decodeErr error) {
	v.counts.chain++
	if decodeErr != nil {
		v.counts.corrupt++
		if v.opts.OnCorrupt != nil {
			v.opts.OnCorrupt(fmt.Errorf("%s: log time %d, sequence %d: %w", m.Topic, m.LogTime, m.Sequence, decodeErr))
		}
		return
	}
	v.chain.add(engine.HashAssessment(a, &v.chainMemo))
	v.resolve(false)
}

// inputIndex is the index of topic's input, -1 for another topic. The
// counts it indexes become the report's Inputs map at the end: a map
// update per message costs more than the rest of an input's bookkeeping.
func (v *verifier) inputIndex(topic string) int {
	for i := range v.inputs {
		if v.inputs[i].Topic == topic {
			return i
		}
	}
	return -1
}

// inputCounts count the recording's messages until finish.
type inputCounts struct {
	inputs                []uint64 // by index of verifier.inputs
	other, corrupt, chain uint64
}

// decision takes one recorded decision; decodeErr is its decoding's or
// its validation's error.
func (v *verifier) decision(m *bag.Message, r decisions.Rationale, decodeErr error) {
	if !v.isRationaleSchema(m.SchemaName) {
		if !v.badChannels[m.ChannelID] {
			v.badChannels[m.ChannelID] = true
			v.report.find(FindingUnreadableDecisionsChannel, 1)
			v.report.note(v.opts.MaxProblems, FindingUnreadableDecisionsChannel, "", "", "%s: channel %d has schema %q, not ghost/msg/DecisionRationale: its decisions cannot be checked",
				m.Topic, m.ChannelID, m.SchemaName)
		}
		decodeErr = fmt.Errorf("schema %q", m.SchemaName)
	}
	if decodeErr != nil {
		v.report.find(FindingUndecodableDecision, 1)
		v.report.note(v.opts.MaxProblems, FindingUndecodableDecision, "", "", "%s: message at log time %d, sequence %d does not decode as a DecisionRationale: %v",
			m.Topic, m.LogTime, m.Sequence, decodeErr)
		return
	}
	// An identical repeat of the previous decision (a recorder that got
	// it twice) changes nothing a verdict rests on: counted, not audited
	// again.
	if v.haveLast && sameRationale(&r, &v.lastRecorded) {
		v.report.DuplicateDecisions++
		return
	}
	v.lastRecorded, v.haveLast = r, true
	if v.firstStamp < 0 {
		v.firstStamp = r.BeliefStampSimNs
		v.firstPolicy = r.PolicyID
		v.retireOthers(r.PolicyID)
	}
	v.pending.push(recorded{logTime: int64(m.LogTime), r: r})
	if v.pending.len() > v.opts.MaxHeld {
		v.resolveOne(true)
	}
	v.resolve(false)
}

func (v *verifier) isRationaleSchema(name string) bool {
	for _, s := range v.opts.Format.DecisionSchemas {
		if name == s {
			return true
		}
	}
	return false
}

// resolve audits the recorded decisions whose re-decision is known, oldest
// first; with end, every waiting one.
func (v *verifier) resolve(end bool) {
	for v.pending.len() > 0 {
		if !v.resolveOne(end) {
			return
		}
	}
}

// resolveOne audits the oldest waiting recorded decision if its outcome is
// known (or force), and reports whether it did.
func (v *verifier) resolveOne(force bool) bool {
	p := v.pending.front()
	s := p.r.BeliefStampSimNs
	c := v.candidateFor(p.r.PolicyID)
	if c == nil {
		v.audit(v.pending.pop(), nil)
		return true
	}
	// The Loop decides in stamp order: re-decisions older than s have no
	// recorded decision (the recorder lost them, or they were never
	// published).
	for c.decided.len() > 0 && c.decided.front().r.BeliefStampSimNs < s {
		v.unmatched(c.decided.pop())
	}
	switch {
	case c.decided.len() > 0 && c.decided.front().r.BeliefStampSimNs == s:
		rd := c.decided.pop()
		v.audit(v.pending.pop(), &rd)
	case c.decided.len() > 0, force:
		// The Loop passed s without deciding it, or it never will.
		v.audit(v.pending.pop(), nil)
	default:
		if last, ok := c.session.Loop().LastDecided(); ok && last > s {
			v.audit(v.pending.pop(), nil)
			return true
		}
		return false
	}
	return true
}

// unmatched counts a belief the Loop decided that has no recorded decision
// although a later recorded decision exists (or none exists yet).
func (v *verifier) unmatched(rd redecision) {
	s := rd.r.BeliefStampSimNs
	switch {
	case v.firstStamp < 0 || s < v.firstStamp:
		v.report.Undecided["before_first"]++
	default:
		v.report.Undecided["between"]++
		v.report.find(FindingMissingDecision, 1)
		v.report.note(v.opts.MaxProblems, FindingMissingDecision, "", "", "belief %d was decided by the Loop (%s) but the recording holds no decision for it",
			s, rd.r.Decision)
	}
}

// end flushes every Loop, audits what waits and counts what was never
// recorded.
func (v *verifier) end(src Source) {
	for _, c := range v.cands {
		if !c.retired {
			_ = c.session.End(c.session.Now())
		}
	}
	v.resolve(true)
	v.compareReceipts(true)
	v.traceWaiting(true)
	if len(v.acts.execs) > 0 {
		v.report.Target = &Target{Vehicle: v.opts.Session.TargetVehicle, From: v.opts.TargetFrom}
	}
	if c := v.primary(); c != nil {
		for c.decided.len() > 0 {
			rd := c.decided.pop()
			if v.firstStamp >= 0 && rd.r.BeliefStampSimNs > v.lastStamp {
				v.report.Undecided["after_last"]++
			} else {
				v.unmatched(rd)
			}
		}
		cnt := c.session.Runner().Counters()
		for i, n := range cnt.Rejected {
			if n > 0 {
				v.report.Rejected[engine.RejectReason(i).String()] += n
			}
		}
	}
	if ps, ok := src.(ProblemSource); ok {
		for _, p := range ps.Problems() {
			if p.Channel.Topic != v.decisionsT {
				continue
			}
			// A source lists each unreadable channel once (the files of a
			// split recording each theirs, under numbers of their own);
			// one whose messages reached decision was reported there.
			if p.Skipped > 0 {
				v.report.find(FindingUndecodableDecision, p.Skipped)
			}
			if v.badChannels[p.Channel.ID] {
				continue
			}
			v.report.find(FindingUnreadableDecisionsChannel, 1)
			v.report.note(v.opts.MaxProblems, FindingUnreadableDecisionsChannel, "", "", "%s: channel %d could not be read (%d messages skipped): %v",
				p.Channel.Topic, p.Channel.ID, p.Skipped, p.Err)
		}
	}
}
