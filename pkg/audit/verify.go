package audit

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Defaults of VerifyOptions.
const (
	DefaultMaxHeld     = 65536
	DefaultMaxProblems = 100
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Session is the recording host's session configuration, supplied by
	// this host (never taken from the recording), that every candidate
	// policy's Session re-decides the recording with: its inputs with
	// their topics (default session.DefaultInputs()), its Loop (the timeout
	// and bounds must be the recording host's; the Loop's Policy is
	// ignored: see Policies), its executors, enables and target vehicle
	// (the action trail is re-derived with them; executors must send
	// nothing, and they may be shared by the Sessions) and its lifecycle.
	Session session.SessionOptions
	// DecisionsTopic is the topic of the recorded decisions (default
	// "/decisions").
	DecisionsTopic string
	// Policies are the policies the host supplies; a recorded decision is
	// re-run with the one whose ID it names. Default: the built-in policies.
	Policies []decisions.Policy
	// Relax lists findings that are reported but do not fail the verdict.
	Relax []Finding
	// MaxHeld bounds the assessments kept for the chain check, the recorded
	// decisions waiting for their re-decision and the re-decisions waiting
	// for their recorded decision; the oldest go first. Default 65536.
	MaxHeld int
	// MaxProblems bounds the report's problem and note lists; counts stay
	// exact. Default 100.
	MaxProblems int
	// Total, ProgressEvery and OnProgress report progress as in Replay.
	Total         uint64
	ProgressEvery uint64
	OnProgress    func(Progress)
	// OnCorrupt, if set, is called for every input message that does not
	// decode; it is skipped and counted in the report's inputs.
	OnCorrupt func(error)
	// Format decodes the recording's decisions and, when its assessments
	// reach the Loop through another topic, the recorded assessments of the
	// chain check. Default: ghost's CDR messages (CDRFormat).
	Format Format
	// OnAudit, if set, receives every recorded decision's verdict in the
	// order audited (log-time order of the decisions).
	OnAudit func(DecisionAudit)
	// ActionsTopic is the topic of the recorded action receipts (default
	// "/decisions/actions").
	ActionsTopic string
	// ReceiptTimeSkew is the largest difference accepted between a
	// recorded receipt's time and the time re-derived from the log times.
	// Zero (exact) suits a recording the node wrote itself, whose log
	// times are its arrival times; a recorder such as rosbag2 logs at its
	// own receive time, later by its latency (RecorderTimeSkew).
	ReceiptTimeSkew time.Duration
	// DecodeWorkers is how many goroutines decode the recording (and hash
	// its assessments) ahead of the Loop, besides the one reading it. Zero
	// means one per core beyond the first, at most MaxDecodeWorkers (none
	// on one core); negative means none. Whatever its value, a recording
	// whose Total is known and below MinDecodeWorkerMessages gets none
	// (leave Total 0 to have workers decode it anyway). With none, one
	// goroutine reads, decodes and audits: the least CPU (about a fifth
	// less than with workers, which buy wall time with hand-overs between
	// cores), as suits several verifications running side by side.
	DecodeWorkers int
	// Observer, if set, sees every message read with what was decoded of
	// it, before the audit takes it.
	Observer Observer
	// Seals, when set, checks the recording against its seals (see
	// seal.Checker; its Reads is set here to the topics this audit reads)
	// and reports them: with trusted keys a break is FindingSealBroken,
	// without them the seals are only counted. Nil ignores seals.
	Seals *seal.CheckOptions
}

// MaxDecodeWorkers bounds the default decode workers: decoding is about
// two thirds of verify's work and the Loop's goroutine the rest, so more
// workers would wait for the Loop while their batches held memory.
const MaxDecodeWorkers = 3

// MinDecodeWorkerMessages is the size of a recording, in messages, below
// which it is verified with no decode workers: starting and feeding them costs
// more than they save. On 2 cores a typical flight verifies as fast on one
// goroutine and far cheaper in CPU; the wall times meet a little below
// this size (BENCHMARKS.md, "Ratios to the floor", the sim flights).
const MinDecodeWorkerMessages = 50_000

func (o *VerifyOptions) decodeWorkers() int {
	switch {
	case o.DecodeWorkers < 0, o.Total > 0 && o.Total < MinDecodeWorkerMessages:
		return 0
	case o.DecodeWorkers == 0:
		return min(runtime.GOMAXPROCS(0)-1, MaxDecodeWorkers)
	}
	return o.DecodeWorkers
}

// RecorderTimeSkew is the receipt time skew accepted for recordings
// another recorder wrote: a recorder more than a second behind the node
// has stalled, and the trail it logged is no longer the node's.
const RecorderTimeSkew = time.Second

// Format is how a recording encodes what verify reads besides the Loop's
// inputs.
type Format struct {
	// DecisionSchemas are the schema names a decisions channel may have.
	DecisionSchemas []string
	// NewDecodeDecision returns a decoder of one recorded decision (one per
	// goroutine).
	NewDecodeDecision func() func(data []byte) (decisions.Rationale, error)
	// ChainTopic, when set, is the topic of the recorded self-assessments
	// the chain check hashes, decoded by a decoder from NewDecodeChain (one
	// per goroutine); when empty it is the ChainOnly assessment input's (a
	// calibrated input replaces it), and without one the chain check hashes
	// the assessments the Loop's inputs deliver.
	ChainTopic     string
	NewDecodeChain func() func(data []byte) (decisions.SelfAssessment, error)
}

// CDRFormat is ghost's own: ghost/msg/DecisionRationale in CDR, the chain
// checked against the assessment input.
func CDRFormat() Format {
	return Format{
		DecisionSchemas: []string{msg.SchemaName("DecisionRationale"), "ghost/DecisionRationale"},
		NewDecodeDecision: func() func([]byte) (decisions.Rationale, error) {
			var dr ros2msg.DecisionRationale
			var strs ros2msg.StringCache // reasons and the policy id repeat
			return func(data []byte) (decisions.Rationale, error) {
				if err := dr.UnmarshalCDRCached(data, &strs); err != nil {
					return decisions.Rationale{}, err
				}
				return ros2msg.RationaleFromWire(&dr), nil
			}
		},
	}
}

// chainOnlyInput returns the topic and decoders of the ChainOnly assessment
// input, when a calibrated input replaces it: the raw assessments the
// chain check hashes are then on their own topic, as in a reference
// recording. It returns "", nil when there is none.
func chainOnlyInput(inputs []session.InputSpec) (string, func() func([]byte) (decisions.SelfAssessment, error)) {
	for _, in := range inputs {
		if !in.ChainOnly || in.Kind != engine.InputAssessment {
			continue
		}
		return in.Topic, func() func([]byte) (decisions.SelfAssessment, error) {
			decode := in.NewDecode()
			var d session.Decoded
			return func(data []byte) (decisions.SelfAssessment, error) {
				if err := decode(data, 0, nil, &d); err != nil {
					return decisions.SelfAssessment{}, err
				}
				a, ok := d.Assessment()
				if !ok {
					return decisions.SelfAssessment{}, fmt.Errorf("input %s decodes to %T, not an assessment", in.Key, d.Event())
				}
				return a.Assessment, nil
			}
		}
	}
	return "", nil
}

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

// candidate is one host-supplied policy re-deciding the recording.
type candidate struct {
	id      string
	session *session.Session
	// decided are the Loop's decisions not yet matched with a recorded
	// one, in stamp order.
	decided fifo[redecision]
	// receipts are the action receipts its Runner made, not yet compared.
	receipts fifo[session.ActionReceipt]
	retired  bool
}

type redecision struct {
	r       decisions.Rationale
	without engine.WithoutReason
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
	lastStamp    int64 // newest audited stamp, -1 before the first (stamps are >= 0)
	firstStamp   int64 // stamp of the first recorded decision, -1 before
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

// resolved fills in the defaults and checks the topics and the format.
func (opts VerifyOptions) resolved() (VerifyOptions, error) {
	if opts.Session.Inputs == nil {
		opts.Session.Inputs = session.DefaultInputs()
	}
	if opts.DecisionsTopic == "" {
		opts.DecisionsTopic = session.DefaultTopics().Decisions()
	}
	if opts.MaxHeld <= 0 {
		opts.MaxHeld = DefaultMaxHeld
	}
	if opts.Format.NewDecodeDecision == nil {
		opts.Format = CDRFormat()
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = DefaultMaxProblems
	}
	if opts.ActionsTopic == "" {
		opts.ActionsTopic = session.DefaultTopics().Actions()
	}
	if err := session.CheckTopics(opts.Session.Inputs, session.Topics{session.KeyDecisions: opts.DecisionsTopic, session.KeyActions: opts.ActionsTopic}); err != nil {
		return opts, fmt.Errorf("verify: %w", err)
	}
	opts.Session.Inputs = session.Enabled(opts.Session.Inputs)
	if opts.Format.ChainTopic == "" {
		opts.Format.ChainTopic, opts.Format.NewDecodeChain = chainOnlyInput(opts.Session.Inputs)
	} else if opts.Format.NewDecodeChain == nil {
		return opts, fmt.Errorf("verify: Format.ChainTopic %q without NewDecodeChain", opts.Format.ChainTopic)
	}
	if opts.Policies == nil {
		for _, id := range decisions.PolicyIDs() {
			p, _ := decisions.LookupPolicy(id)
			opts.Policies = append(opts.Policies, p)
		}
	}
	return opts, nil
}

// newCandidate builds the Session that re-decides the recording with p,
// its sinks feeding the comparison.
func (v *verifier) newCandidate(p decisions.Policy) (*candidate, error) {
	so := v.opts.Session
	so.Loop.Policy = p
	s, err := session.NewSession(so)
	if err != nil {
		return nil, fmt.Errorf("verify: policy %s: %w", p.ID(), err)
	}
	c := &candidate{id: p.ID(), session: s}
	err = s.Runner().RegisterActionSink("audit", actionSinkFunc(func(rc session.ActionReceipt) error {
		v.derivedReceipt(c, rc)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	err = s.Runner().Register("audit", session.FuncSink(func(cmd engine.Command) error {
		if c.retired {
			return nil
		}
		c.decided.push(redecision{r: cmd.Rationale, without: cmd.WithoutAssessment})
		if c.decided.len() > v.opts.MaxHeld {
			if rd := c.decided.pop(); c == v.primary() {
				v.unmatched(rd)
			}
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return c, nil
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
		v.retireOthers(r.PolicyID)
	}
	v.pending.push(recorded{logTime: int64(m.LogTime), r: r})
	if v.pending.len() > v.opts.MaxHeld {
		v.resolveOne(true)
	}
	v.resolve(false)
}

// retireOthers stops every candidate but the one with id once the first
// recorded decision names its policy (the others only ran because the
// policy was not known yet). A recording is audited against the policy of
// its first decision: a decision naming another policy later is not re-run.
func (v *verifier) retireOthers(id string) {
	for _, c := range v.cands {
		if c.id != id && !c.retired {
			c.retired = true
			v.active--
			c.decided = fifo[redecision]{}
			c.receipts = fifo[session.ActionReceipt]{}
		}
	}
}

func (v *verifier) isRationaleSchema(name string) bool {
	for _, s := range v.opts.Format.DecisionSchemas {
		if name == s {
			return true
		}
	}
	return false
}

func (v *verifier) candidateFor(id string) *candidate {
	for _, c := range v.cands {
		if c.id == id && !c.retired {
			return c
		}
	}
	return nil
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

// primary is the candidate whose re-decisions stand for the recording's:
// the one of the first decision's policy once known, else the first.
func (v *verifier) primary() *candidate {
	for _, c := range v.cands {
		if !c.retired {
			return c
		}
	}
	return nil
}

func (v *verifier) supplied(id string) bool {
	for _, c := range v.cands {
		if c.id == id {
			return true
		}
	}
	return false
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

// audit renders the verdict on one recorded decision; rd is the Loop's
// decision for its stamp, nil when the Loop has none.
func (v *verifier) audit(p recorded, rd *redecision) {
	r := p.r
	d := r.Decision
	res := DecisionAudit{
		LogTimeNs: p.logTime, Stamp: r.BeliefStampSimNs, Kind: d.Kind, KindName: d.Kind.String(),
		Reason: d.Reason, PolicyID: r.PolicyID,
	}
	var problems decisionProblems
	if v.lastStamp >= 0 && r.BeliefStampSimNs <= v.lastStamp {
		problems.add(FindingStampProblem, "", "", fmt.Sprintf("stamp %d not after the previous decision's %d", r.BeliefStampSimNs, v.lastStamp))
		v.report.StampProblems++
		v.report.find(FindingStampProblem, 1)
	}

	// The hash chain (ADR-0022), against every recorded assessment.
	hashes := v.chain.find(r.BeliefStampSimNs)
	switch {
	case r.SelfAssessmentSHA256 == "":
		res.Chain = ChainNoAssessmentClaimed
	case hashes.count() == 0:
		res.Chain = ChainAssessmentMissing
		cause := ""
		if v.chain.any && r.BeliefStampSimNs < v.chain.oldest {
			cause = CauseRecordingStartedLate
		}
		problems.add(FindingAssessmentMissing, cause, "", fmt.Sprintf("no self-assessment with stamp %d in the recording", r.BeliefStampSimNs))
	default:
		res.Chain = ChainBroken
		for k := range hashes.count() {
			if hashes.at(k).is(r.SelfAssessmentSHA256) {
				res.Chain = ChainVerified
			}
		}
		if res.Chain == ChainBroken {
			problems.add(FindingChainBroken, "", "", fmt.Sprintf("self_assessment_sha256 %s, but the assessment with stamp %d hashes to %s",
				r.SelfAssessmentSHA256, r.BeliefStampSimNs, hashes.first.hex()))
		}
	}

	// The re-run: the Loop's own decision for this stamp.
	switch {
	case v.candidateFor(r.PolicyID) == nil:
		res.Rerun = RerunUnknownPolicy
		if v.supplied(r.PolicyID) {
			problems.add(FindingUnknownPolicy, "", "", fmt.Sprintf("policy %q differs from the recording's first decision's: decision not re-run", r.PolicyID))
		} else {
			problems.add(FindingUnknownPolicy, CausePolicyNotSupplied, capText(r.PolicyID, 80), fmt.Sprintf("policy %q was not supplied: decision not re-run", r.PolicyID))
		}
	case res.Chain == ChainBroken || res.Chain == ChainAssessmentMissing:
		res.Rerun = RerunNoContext
	case rd == nil:
		res.Rerun = RerunNoContext
		cause := ""
		if v.haveBelief && r.BeliefStampSimNs < v.oldestBelief {
			cause = CauseRecordingStartedLate
		}
		problems.add(FindingNoContext, cause, "", fmt.Sprintf("the Loop, fed the recording, did not decide belief %d (belief missing or rejected)", r.BeliefStampSimNs))
	case !sameRationale(&rd.r, &r):
		res.Rerun = RerunDiverged
		problems.add(FindingDiverged, "", "", fmt.Sprintf("re-run gives %s (assessment %s), recorded %s (assessment %s)",
			rd.r.Decision, shortHash(rd.r.SelfAssessmentSHA256), d, shortHash(r.SelfAssessmentSHA256)))
	default:
		res.Rerun = RerunMatched
		if res.Chain == ChainNoAssessmentClaimed {
			v.report.WithoutAssessment[rd.without.String()]++
		}
	}
	if len(problems.texts) > 0 {
		res.Problem = capText(strings.Join(problems.texts, "; "), 1000)
		problems.count(&v.report, &res)
	}
	res.ClaimedSHA256 = r.SelfAssessmentSHA256
	if hashes.count() > 0 && v.opts.OnAudit != nil {
		res.RecomputedSHA256 = hashes.at(hashes.count() - 1).hex() // only OnAudit reads it
	}
	v.report.count(&res, &r, v.opts.MaxProblems)
	v.acts.remember(r.BeliefStampSimNs, decidedVerdict{kind: d.Kind,
		ok: (res.Chain == ChainVerified || res.Chain == ChainNoAssessmentClaimed) && res.Rerun == RerunMatched}, v.opts.MaxHeld)
	defer v.traceWaiting(false)
	if v.opts.OnAudit != nil {
		v.opts.OnAudit(res)
	}
	if r.BeliefStampSimNs > v.lastStamp {
		v.lastStamp = r.BeliefStampSimNs
	}
}

// decisionProblems are what is wrong with one decision, each with its
// finding and cause.
type decisionProblems struct {
	texts  []string
	causes []problemCause
}

type problemCause struct {
	f              Finding
	cause, subject string
}

// add records one problem; cause and subject as for AuditReport.cause.
func (p *decisionProblems) add(f Finding, cause, subject, text string) {
	p.texts = append(p.texts, text)
	p.causes = append(p.causes, problemCause{f, cause, subject})
}

// count counts the problems of the audited decision res under their
// causes, res describing them.
func (p *decisionProblems) count(r *AuditReport, res *DecisionAudit) {
	for _, c := range p.causes {
		r.cause(c.f, c.cause, c.subject, res.Describe)
	}
}

// sameRationale compares two rationales field by field.
func sameRationale(a, b *decisions.Rationale) bool { return *a == *b }

func shortHash(h string) string {
	if h == "" {
		return "none"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
