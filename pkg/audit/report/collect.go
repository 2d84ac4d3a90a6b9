package report

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"math"
	"path/filepath"
	"strconv"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// ErrOptions is wrapped by the error for an unusable Options value.
var ErrOptions = errors.New("invalid report options")

// Topics names the topics a report reads. An empty field takes its default.
type Topics struct {
	// State carries the beliefs (ghost/msg/VehicleState). Default /state/nav.
	State string
	// SelfAssessment carries the assessments (ghost/msg/BeliefSelfAssessment).
	// Default /self_assessment.
	SelfAssessment string
	// PerceptionMode carries the perception reports (ghost/msg/PerceptionMode).
	// Default /perception/mode.
	PerceptionMode string
	// Decisions carries the decisions (ghost/msg/DecisionRationale).
	// Default /decisions.
	Decisions string
	// Actions carries the action receipts (ghost/msg/ActionReceipt).
	// Default /decisions/actions.
	Actions string
	// Evidence carries the executors' evidence batches
	// (ghost/msg/ActionEvidence), counted. Default /decisions/evidence.
	Evidence string
}

// DefaultTopics returns the node's default topic names.
func DefaultTopics() Topics {
	return Topics{
		State:          "/state/nav",
		SelfAssessment: "/self_assessment",
		PerceptionMode: "/perception/mode",
		Decisions:      "/decisions",
		Actions:        "/decisions/actions",
		Evidence:       "/decisions/evidence",
	}
}

func (t Topics) withDefaults() Topics {
	d := DefaultTopics()
	for _, p := range []struct{ v, def *string }{
		{&t.State, &d.State}, {&t.SelfAssessment, &d.SelfAssessment}, {&t.PerceptionMode, &d.PerceptionMode},
		{&t.Decisions, &d.Decisions}, {&t.Actions, &d.Actions}, {&t.Evidence, &d.Evidence},
	} {
		if *p.v == "" {
			*p.v = *p.def
		}
	}
	return t
}

// Options configure Collect and NewCollector. The zero value is the default.
type Options struct {
	// Topics names the topics read; empty fields take DefaultTopics.
	Topics Topics
	// MaxBuckets bounds the time buckets (16 to 1<<20); the report holds
	// between MaxBuckets/2 and MaxBuckets over the recording's span, or one
	// per millisecond for a short one. Default 2048.
	MaxBuckets int
	// MaxEpisodes bounds the episodes kept; later ones are counted. Default
	// 100000.
	MaxEpisodes int
	// MaxMarks bounds the marks kept; later ones are counted. Default 10000.
	MaxMarks int
	// MaxActions bounds the actions whose trail is kept; later ones are
	// counted. Default 10000.
	MaxActions int
}

// Defaults of Options.
const (
	DefaultMaxBuckets  = 2048
	DefaultMaxEpisodes = 100_000
	DefaultMaxMarks    = 10_000
	DefaultMaxActions  = 10_000
)

func (o Options) resolved() (Options, error) {
	o.Topics = o.Topics.withDefaults()
	if o.MaxBuckets == 0 {
		o.MaxBuckets = DefaultMaxBuckets
	}
	if o.MaxEpisodes == 0 {
		o.MaxEpisodes = DefaultMaxEpisodes
	}
	if o.MaxMarks == 0 {
		o.MaxMarks = DefaultMaxMarks
	}
	if o.MaxActions == 0 {
		o.MaxActions = DefaultMaxActions
	}
	switch {
	case o.MaxBuckets < 16 || o.MaxBuckets > 1<<20:
		return o, fmt.Errorf("%w: MaxBuckets %d: want 16 to %d", ErrOptions, o.MaxBuckets, 1<<20)
	case o.MaxEpisodes < 0:
		return o, fmt.Errorf("%w: MaxEpisodes %d: want >= 0", ErrOptions, o.MaxEpisodes)
	case o.MaxMarks < 0:
		return o, fmt.Errorf("%w: MaxMarks %d: want >= 0", ErrOptions, o.MaxMarks)
	case o.MaxActions < 0:
		return o, fmt.Errorf("%w: MaxActions %d: want >= 0", ErrOptions, o.MaxActions)
	}
	return o, nil
}

// Collect reads the recording at path into a Flight. A recording that
// cannot be opened is an error with no Flight. A recording that stops early
// (truncated, damaged) gives the Flight of what was read, with a note, and
// an error wrapping bag.ErrTruncated; callers may render it and say so.
func Collect(path string, opts Options) (*Flight, error) {
	return CollectFiles(filepath.Base(path), []string{path}, opts)
}

// CollectFiles is Collect of a recording written to several files (the
// files of a split rosbag2 bag, in its order), read as one stream in
// log-time order, as verify reads them (bag.Chain): name names it in the
// report. A file that stops early, or cannot be opened, ends the read
// there.
func CollectFiles(name string, files []string, opts Options) (*Flight, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no files", ErrOptions)
	}
	t := opts.Topics
	c, _ := NewCollector(opts) // opts already resolved and checked
	var readers []*bag.Reader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	var openErr error
	for i, path := range files {
		r, err := bag.OpenRecording(path, bag.ReaderOptions{
			Topics: []string{t.State, t.SelfAssessment, t.PerceptionMode, t.Decisions, t.Actions, t.Evidence},
			Schemas: map[string]string{
				t.State:          "ghost/msg/VehicleState",
				t.SelfAssessment: "ghost/msg/BeliefSelfAssessment",
				t.PerceptionMode: "ghost/msg/PerceptionMode",
				t.Decisions:      "ghost/msg/DecisionRationale",
				t.Actions:        "ghost/msg/ActionReceipt",
				t.Evidence:       "ghost/msg/ActionEvidence",
			},
		})
		if err != nil {
			if i == 0 {
				return nil, err
			}
			openErr = err // the files before it are still read
			break
		}
		readers = append(readers, r)
	}
	var src interface {
		Messages() iter.Seq2[bag.Message, error]
		Problems() []bag.ChannelProblem
	} = readers[0]
	if len(readers) > 1 {
		src = bag.NewChain(readers, files[:len(readers)])
	}
	var readErr error
	for m, err := range src.Messages() {
		if err != nil {
			readErr = err
			break
		}
		c.Message(m.Topic, m.SchemaName, int64(m.LogTime), m.Data)
	}
	if readErr == nil {
		readErr = openErr
	}
	read := Read{Name: name, Library: readers[0].Library(), Profile: readers[0].Profile(), Problems: src.Problems(), Err: readErr}
	if len(files) == 1 {
		read.Path = files[0]
	}
	return c.FinishRead(read)
}

// Read is how the recording a Collector was fed was read.
type Read struct {
	// Name names the recording in the report.
	Name string
	// Library and Profile are its header's.
	Library, Profile string
	// Problems are the channels that could not be read.
	Problems []bag.ChannelProblem
	// Err is the error that ended the read before the recording's end,
	// nil when it was read to the end.
	Err error
	// Path names the recording in that error; default Name.
	Path string
}

// FinishRead completes and returns the Flight of the recording read as
// r says: a read that stopped early gives the Flight of what was read,
// with a note, and an error wrapping r.Err. The Collector must not be used
// afterwards.
func (c *Collector) FinishRead(r Read) (*Flight, error) {
	c.f.Recording, c.f.Library, c.f.Profile = r.Name, r.Library, r.Profile
	for _, p := range r.Problems {
		c.note(fmt.Sprintf("channel %d (%s) not read: %v", p.Channel.ID, p.Channel.Topic, p.Err))
	}
	f := c.Finish()
	if r.Err != nil {
		f.Notes = append(f.Notes, "the recording stops early: "+capText(r.Err.Error(), 200)+"; the report shows what was read before")
		return f, fmt.Errorf("read %s: %w", cmp.Or(r.Path, r.Name), r.Err)
	}
	return f, nil
}

// Collector builds a Flight from messages fed in recording order, in memory
// bounded by Options. Collect drives one over a recording; tests and other
// sources feed one directly. A Collector is not safe for concurrent use.
type Collector struct {
	opts Options
	f    Flight
	b    *buckets

	vs ros2msg.VehicleState
	sa ros2msg.BeliefSelfAssessment
	pm ros2msg.PerceptionMode
	dr ros2msg.DecisionRationale
	ar ros2msg.ActionReceipt
	ae ros2msg.ActionEvidence

	// actionIndex finds an action of the trail by id.
	actionIndex map[uint64]int

	// cur is the running episode (the last of f.Episodes, or scratch once
	// MaxEpisodes is reached); nil before the first decision.
	cur     *Episode
	scratch Episode
	nEpis   int

	// recent beliefs, to find repeated stamps and how long a decision waited
	recent    map[int64]seenBelief
	recentQ   []int64
	recentPos int

	// decisions taken without an assessment, by stamp: the index of their
	// mark, so a late assessment can say why
	pending map[int64]int

	// the running span of "decided X, vehicle in Y" (unfollowed.go)
	unfollowedCur  Unfollowed
	unfollowedOpen bool

	maxAssessment int64 // newest assessment stamp so far
	hasAssessment bool
	lastSkew      int64 // stamp minus log time of the latest decoded message
	hasLog        bool
}

type seenBelief struct {
	logNs int64
	fp    uint64
	seen  modeSeen
}

const recentBeliefs = 4096

// NewCollector returns a Collector; only bad Options are an error.
func NewCollector(opts Options) (*Collector, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	return &Collector{
		opts:    opts,
		b:       newBuckets(opts.MaxBuckets),
		recent:  make(map[int64]seenBelief, recentBeliefs),
		recentQ: make([]int64, 0, recentBeliefs),
		pending: make(map[int64]int),

		actionIndex: make(map[uint64]int),
	}, nil
}

// Message decodes one recorded message by topic and feeds it. Messages on
// other topics are ignored; evidence batches are counted.
func (c *Collector) Message(topic, schema string, logNs int64, data []byte) {
	t := c.opts.Topics
	switch topic {
	case t.State:
		if err := c.vs.UnmarshalCDR(data); err != nil {
			c.Undecodable(logNs, topic, err)
			return
		}
		b, err := ros2msg.BeliefFromWire(&c.vs)
		if err != nil {
			c.Undecodable(logNs, topic, err)
			return
		}
		c.Belief(logNs, &b)
	case t.SelfAssessment:
		if err := c.sa.UnmarshalCDR(data); err != nil {
			c.Undecodable(logNs, topic, err)
			return
		}
		a := ros2msg.SelfAssessmentFromWire(&c.sa)
		c.Assessment(logNs, &a)
	case t.PerceptionMode:
		if err := c.pm.UnmarshalCDR(data); err != nil {
			c.Undecodable(logNs, topic, err)
			return
		}
		c.Perception(logNs, ros2msg.PerceptionFromWire(&c.pm))
	case t.Decisions:
		if err := c.dr.UnmarshalCDR(data); err != nil {
			c.Undecodable(logNs, topic, err)
			return
		}
		r := ros2msg.RationaleFromWire(&c.dr)
		c.Decision(logNs, &r)
	case t.Actions:
		c.Receipt(logNs, topic, schema, data)
	case t.Evidence:
		c.Evidence(logNs, topic, c.ae.UnmarshalCDR(data))
	}
}

// Receipt feeds a message of the action receipts topic, as recorded.
func (c *Collector) Receipt(logNs int64, topic, schema string, data []byte) {
	a := &c.f.Actions
	a.Topic, a.Schema = topic, schema
	a.Messages++
	c.seeLog(logNs)
	if err := c.ar.UnmarshalCDR(data); err != nil {
		a.Undecodable++
		return
	}
	c.receipt(logNs, &c.ar)
}

// Evidence feeds an evidence batch recorded on topic, counted;
// decodeErr says why it did not decode.
func (c *Collector) Evidence(logNs int64, topic string, decodeErr error) {
	a := &c.f.Actions
	a.EvidenceTopic = topic
	a.EvidenceBatches++
	c.seeLog(logNs)
	if decodeErr != nil {
		a.EvidenceUndecodable++
	}
}

func (c *Collector) seeLog(logNs int64) {
	if !c.hasLog {
		c.hasLog = true
		c.f.FirstLogNs, c.f.LastLogNs = logNs, logNs
		return
	}
	c.f.FirstLogNs = min(c.f.FirstLogNs, logNs)
	c.f.LastLogNs = max(c.f.LastLogNs, logNs)
}

func (c *Collector) seeStamp(stamp, logNs int64) *Bucket {
	if !c.f.HasStamps {
		c.f.HasStamps = true
		c.f.FirstStampNs, c.f.LastStampNs = stamp, stamp
	} else {
		c.f.FirstStampNs = min(c.f.FirstStampNs, stamp)
		c.f.LastStampNs = max(c.f.LastStampNs, stamp)
	}
	c.lastSkew = timediff.Sub(stamp, logNs)
	return c.b.at(stamp)
}

// Belief feeds a belief recorded at logNs.
func (c *Collector) Belief(logNs int64, b *decisions.Belief) {
	c.f.Counts.Beliefs++
	c.seeLog(logNs)
	bk := c.seeStamp(b.StampSimNs, logNs)
	bk.Beliefs = satAdd(bk.Beliefs, 1)
	fs := b.Flight
	if fs.Armed {
		bk.Armed |= 2
	} else {
		bk.Armed |= 1
	}
	bk.Modes |= bit(uint8(fs.Mode), 7)
	if p := fs.BatteryPct; !math.IsNaN(p) && !math.IsInf(p, 0) {
		bk.BatteryPctMin, bk.BatteryPctMax = nanMin(bk.BatteryPctMin, p), nanMax(bk.BatteryPctMax, p)
	}
	if v := fs.BatteryV; !math.IsNaN(v) && !math.IsInf(v, 0) {
		bk.BatteryVMin, bk.BatteryVMax = nanMin(bk.BatteryVMin, v), nanMax(bk.BatteryVMax, v)
	}
	fp := fingerprint(b)
	if seen, ok := c.recent[b.StampSimNs]; ok {
		if seen.fp == fp {
			c.f.Counts.Duplicates++
		} else {
			c.reject(bk, b.StampSimNs, logNs, "belief repeats stamp "+strconv.FormatInt(b.StampSimNs, 10)+" with different content")
		}
		return
	}
	c.remember(b.StampSimNs, seenBelief{logNs: logNs, fp: fp, seen: modeSeen{fs.Mode, fs.Armed}})
	if err := b.Validate(); err != nil {
		c.reject(bk, b.StampSimNs, logNs, "invalid belief: "+err.Error())
	}
}

func (c *Collector) remember(stamp int64, s seenBelief) {
	if len(c.recentQ) < recentBeliefs {
		c.recentQ = append(c.recentQ, stamp)
	} else {
		delete(c.recent, c.recentQ[c.recentPos])
		c.recentQ[c.recentPos] = stamp
		c.recentPos = (c.recentPos + 1) % recentBeliefs
	}
	c.recent[stamp] = s
}

// Assessment feeds a self-assessment recorded at logNs.
func (c *Collector) Assessment(logNs int64, a *decisions.SelfAssessment) {
	c.f.Counts.Assessments++
	c.seeLog(logNs)
	stamp := a.BeliefStampSimNs
	bk := c.seeStamp(stamp, logNs)
	bk.Assessments = satAdd(bk.Assessments, 1)
	bk.Overall |= bit(uint8(a.OverallLevel), 3)
	for i := range bk.Block {
		bk.Block[i] |= bit(uint8(a.BlockLevel[i]), 3)
	}
	for i, s := range a.Std {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			bk.StdNone |= 1 << i
			continue
		}
		bk.StdMax[i] = nanMax(bk.StdMax[i], s)
	}
	if a.ThresholdsUsed.Validate() == nil {
		bk.Thresholds, bk.HasThresholds = a.ThresholdsUsed, true
	}
	if !c.hasAssessment || stamp > c.maxAssessment {
		c.maxAssessment, c.hasAssessment = stamp, true
	}
	if i, ok := c.pending[stamp]; ok {
		delete(c.pending, stamp)
		m := &c.f.Marks[i]
		m.Text += fmt.Sprintf("; its self-assessment was recorded %s after the decision, too late", fmtDur(logNs-m.LogNs))
		c.reject(bk, stamp, logNs, "late self-assessment: stamp "+strconv.FormatInt(stamp, 10)+" was already decided without it")
		return
	}
	if err := a.Validate(); err != nil {
		c.reject(bk, stamp, logNs, "invalid self-assessment: "+err.Error())
	}
}

// Perception feeds a perception report recorded at logNs.
func (c *Collector) Perception(logNs int64, p decisions.PerceptionReport) {
	c.f.Counts.Perception++
	c.seeLog(logNs)
	bk := c.seeStamp(p.StampSimNs, logNs)
	if bk.Perception == 0 || p.StampSimNs >= bk.PerceptionLastNs {
		bk.PerceptionLast, bk.PerceptionLastNs = p.Mode, p.StampSimNs
	}
	bk.Perception |= bit(uint8(p.Mode), 8)
	if err := p.Validate(); err != nil {
		c.reject(bk, p.StampSimNs, logNs, "invalid perception report: "+err.Error())
	}
}

// Decision feeds a decision rationale recorded at logNs.
func (c *Collector) Decision(logNs int64, r *decisions.Rationale) {
	c.f.Counts.Decisions++
	c.seeLog(logNs)
	stamp, kind := r.Decision.DecisionStampSimNs, r.Decision.Kind
	bk := c.seeStamp(stamp, logNs)
	bk.Decisions = satAdd(bk.Decisions, 1)
	bk.Kinds |= bit(uint8(kind), decisions.NumKinds)
	if kind.Valid() {
		c.f.Counts.ByKind[kind]++
	} else {
		c.f.Counts.OtherKinds++
	}
	c.countPolicy(r.PolicyID)

	if c.cur == nil || c.cur.Kind != kind {
		if c.cur != nil {
			c.cur.EndNs = stamp
		}
		c.nEpis++
		e := Episode{N: c.nEpis, Kind: kind, StartNs: stamp, PolicyID: r.PolicyID, FirstHash: r.SelfAssessmentSHA256}
		if len(c.f.Episodes) < c.opts.MaxEpisodes {
			c.f.Episodes = append(c.f.Episodes, e)
			c.cur = &c.f.Episodes[len(c.f.Episodes)-1]
		} else {
			c.f.EpisodesOmitted++
			c.scratch = e
			c.cur = &c.scratch
		}
	}
	e := c.cur
	e.LastNs, e.EndNs = stamp, stamp
	e.Decisions++
	e.addReason(r.Decision.Reason)
	seen, ok := c.recent[stamp]
	c.follow(stamp, kind, seen.seen, ok)

	if r.SelfAssessmentSHA256 != "" {
		return
	}
	e.NoAssessment++
	c.f.Counts.NoAssessment++
	bk.NoAssessment = satAdd(bk.NoAssessment, 1)
	why := "decided without a self-assessment (reason " + r.Decision.Reason + ")"
	switch seen, ok := c.recent[stamp]; {
	case c.hasAssessment && c.maxAssessment > stamp:
		why += fmt.Sprintf("; an assessment of a newer stamp (+%s) had arrived, so its own was not coming", fmtDur(c.maxAssessment-stamp))
	case ok:
		why += fmt.Sprintf("; the belief waited %s for it", fmtDur(logNs-seen.logNs))
	}
	if i, ok := c.mark(MarkNoAssessment, stamp, logNs, why); ok {
		c.pending[stamp] = i
	}
}

// Undecodable feeds a message on topic that did not decode.
func (c *Collector) Undecodable(logNs int64, topic string, err error) {
	c.f.Counts.Undecodable++
	c.seeLog(logNs)
	text := "undecodable message on " + topic + ": " + err.Error()
	if !c.f.HasStamps {
		// Nothing to place it by yet: it shows at the start of the axis.
		c.f.Counts.Rejected++
		c.mark(MarkRejected, math.MinInt64, logNs, text)
		return
	}
	// No stamp: place it by the latest decoded message's stamp-to-log skew.
	stamp := satAdd64(logNs, c.lastSkew)
	c.reject(c.seeStamp(stamp, logNs), stamp, logNs, text)
}

func satAdd64(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

func (c *Collector) reject(bk *Bucket, stamp, logNs int64, text string) {
	c.f.Counts.Rejected++
	bk.Rejected = satAdd(bk.Rejected, 1)
	c.mark(MarkRejected, stamp, logNs, text)
}

func (c *Collector) mark(k MarkKind, stamp, logNs int64, text string) (int, bool) {
	if len(c.f.Marks) >= c.opts.MaxMarks {
		c.f.MarksOmitted++
		return 0, false
	}
	c.f.Marks = append(c.f.Marks, Mark{Kind: k, StampNs: stamp, LogNs: logNs, Text: capText(text, 300)})
	return len(c.f.Marks) - 1, true
}

const maxPolicies = 64

func (c *Collector) countPolicy(id string) {
	for i := range c.f.Policies {
		if c.f.Policies[i].Name == id {
			c.f.Policies[i].N++
			return
		}
	}
	if len(c.f.Policies) < maxPolicies {
		c.f.Policies = append(c.f.Policies, Count{Name: capText(id, 80), N: 1})
		return
	}
	c.note("more than " + strconv.Itoa(maxPolicies) + " policy ids: later ones not listed")
}

const maxNotes = 32

func (c *Collector) note(s string) {
	for _, n := range c.f.Notes {
		if n == s {
			return
		}
	}
	if len(c.f.Notes) < maxNotes {
		c.f.Notes = append(c.f.Notes, capText(s, 300))
	}
}

// Finish completes and returns the Flight; the Collector must not be used
// afterwards.
func (c *Collector) Finish() *Flight {
	for _, i := range c.pending {
		c.f.Marks[i].Text += "; the recording holds no self-assessment for this stamp"
	}
	c.pending = nil
	c.f.BucketNs = c.b.width
	c.f.BucketStartNs = c.b.lo * c.b.width
	c.f.Buckets = c.b.b
	if a := &c.f.Actions; a.Undecodable > 0 {
		c.note(fmt.Sprintf("%d of %d messages on %s (%s) did not decode as action receipts: the action trail lacks them",
			a.Undecodable, a.Messages, a.Topic, a.Schema))
	}
	if a := &c.f.Actions; a.EvidenceUndecodable > 0 {
		c.note(fmt.Sprintf("%d of %d messages on %s did not decode as evidence batches", a.EvidenceUndecodable, a.EvidenceBatches, a.EvidenceTopic))
	}
	if a := &c.f.Actions; a.Omitted > 0 {
		c.note(fmt.Sprintf("%d actions after the first %d are counted, not drawn", a.Omitted, len(a.Trail)))
	}
	c.f.Actions.Escalations = escalations(&c.f)
	c.finishUnfollowed()
	c.actionIndex = nil
	f := c.f
	return &f
}

// fingerprint hashes the belief's content (FNV-1a over its fields), to tell
// an identical repeat from a conflicting one.
func fingerprint(b *decisions.Belief) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for range 8 {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	f := b.Flight
	mix(uint64(b.StampSimNs))
	for _, q := range b.OrientationQ {
		mix(math.Float64bits(q))
	}
	mix(uint64(len(b.Covariance)))
	for _, v := range b.Covariance {
		mix(math.Float64bits(v))
	}
	armed := uint64(0)
	if f.Armed {
		armed = 1
	}
	mix(armed<<8 | uint64(f.Mode))
	mix(math.Float64bits(f.BatteryV))
	mix(math.Float64bits(f.BatteryPct))
	mix(f.ErrorFlags)
	m := b.Mission
	mix(uint64(m.Mode))
	mix(math.Float64bits(m.Progress))
	mix(uint64(m.StartedSimNs))
	if g := m.Goal; g != nil {
		mix(1)
		for _, p := range g.PositionENU {
			mix(math.Float64bits(p))
		}
		mix(math.Float64bits(g.YawRad))
		for i := 0; i < len(g.MetadataJSON); i++ {
			mix(uint64(g.MetadataJSON[i]))
		}
	}
	return h
}

// capText shortens s to at most n bytes (on a rune boundary), marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// fmtDur writes a duration in ns compactly: "350 µs", "100 ms", "2.5 s".
func fmtDur(ns int64) string {
	neg := ""
	if ns < 0 {
		neg, ns = "-", -ns
		if ns < 0 { // MinInt64
			ns = math.MaxInt64
		}
	}
	switch {
	case ns < 1_000_000:
		return neg + strconv.FormatInt(ns/1000, 10) + " µs"
	case ns < 10_000_000_000:
		return neg + strconv.FormatFloat(math.Round(float64(ns)/1e5)/10, 'f', -1, 64) + " ms"
	}
	return neg + strconv.FormatFloat(float64(ns)/1e9, 'f', 1, 64) + " s"
}
