package whatif

import (
	"maps"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Decision is what the comparison keeps of one decision.
type Decision struct {
	StampNs int64
	Kind    decisions.Kind
	Reason  string
}

func (d *Decision) text() string { return d.Kind.String() + "/" + d.Reason }

// Command is what a decision of kind k commands the vehicle to do: the
// kind itself for the kinds an executor acts on (hold, yield_to_pilot,
// engage_rtl, engage_land, engage_kill), and nothing (ok false) for
// proceed and abstain_uncertain, which command nothing. Two decisions
// command the vehicle differently when their commands differ.
func Command(k decisions.Kind) (decisions.Kind, bool) {
	switch k {
	case decisions.KindProceed, decisions.KindAbstainUncertain:
		return 0, false
	}
	return k, true
}

func commandsDiffer(a, b decisions.Kind) bool {
	ca, oka := Command(a)
	cb, okb := Command(b)
	return oka != okb || oka && ca != cb
}

// failsafeKinds are the kinds whose onsets are compared, in severity order.
var failsafeKinds = []decisions.Kind{
	decisions.KindHold, decisions.KindYieldToPilot, decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill,
}

// Defaults of CompareOptions.
const (
	DefaultMaxRows     = 50
	DefaultMaxLaneRuns = 2000
	DefaultMaxHeld     = 65536
	// maxReasons bounds the distinct reasons tallied per flight; a
	// recording's reasons are bounded by its policy's, so only a forged one
	// reaches it.
	maxReasons = 256
	// maxPolicies bounds the recorded policy ids kept per flight.
	maxPolicies = 4
)

// otherReasons is where reasons past maxReasons are tallied.
const otherReasons = "(other reasons)"

// CompareOptions configure a Comparison.
type CompareOptions struct {
	// MaxRows bounds the rows kept (DefaultMaxRows); the rest are counted.
	MaxRows int
	// MaxLaneRuns bounds each side's runs of one kind kept for the
	// timeline (DefaultMaxLaneRuns).
	MaxLaneRuns int
	// MaxHeld bounds the decisions one side may be ahead of the other
	// (DefaultMaxHeld); past it the oldest is counted as that side's
	// alone.
	MaxHeld int
	// RuleNames maps a reason to the names of the rules that give it.
	RuleNames map[string][]string
}

// Comparison pairs a flight's baseline and candidate decisions by stamp and
// reduces them to a FlightResult as they come: each side in increasing
// stamp order, the two sides in any interleaving. It is not safe for
// concurrent use.
type Comparison struct {
	opts       CompareOptions
	side       [2]queue // baseline, candidate
	last       [2]int64 // newest stamp taken per side
	have       [2]bool
	res        FlightResult
	reasons    map[string]*[2]uint64
	pairs      [decisions.NumKinds][decisions.NumKinds][2]uint64
	kindCounts [2][decisions.NumKinds]uint64
	prev       [2]decisions.Kind // previous compared kind per side
	onset      [2][decisions.NumKinds]int64
	episodes   [2][decisions.NumKinds]uint64
	started    bool // a stamp was compared
	cfNs       int64
	haveCF     bool
	open       *Row // the row being extended, nil when the last stamp agreed
	policies   map[string]bool
}

const (
	baseSide = 0
	candSide = 1
)

// NewComparison starts a flight's comparison.
func NewComparison(opts CompareOptions) *Comparison {
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultMaxRows
	}
	if opts.MaxLaneRuns <= 0 {
		opts.MaxLaneRuns = DefaultMaxLaneRuns
	}
	if opts.MaxHeld <= 0 {
		opts.MaxHeld = DefaultMaxHeld
	}
	c := &Comparison{opts: opts, reasons: map[string]*[2]uint64{}, policies: map[string]bool{}}
	for s := range c.onset {
		for k := range c.onset[s] {
			c.onset[s][k] = -1
		}
	}
	return c
}

// Baseline takes the baseline's next decision. A decision not after the
// baseline's previous stamp (a repeat a recorder wrote twice, or a stamp
// out of order) is counted as skipped and left out.
func (c *Comparison) Baseline(d Decision) { c.take(baseSide, d) }

// Candidate takes the candidate's next decision, as Baseline does.
func (c *Comparison) Candidate(d Decision) { c.take(candSide, d) }

// RecordedPolicy notes the policy a recorded decision names.
func (c *Comparison) RecordedPolicy(id string) {
	if !c.policies[id] && len(c.policies) < maxPolicies {
		c.policies[id] = true
	}
}

// SkipRecorded counts a recorded decision that could not be taken (it did
// not decode).
func (c *Comparison) SkipRecorded() { c.res.RecordedSkipped++ }

func (c *Comparison) take(s int, d Decision) {
	if c.have[s] && d.StampNs <= c.last[s] {
		if s == baseSide {
			c.res.RecordedSkipped++
		}
		return
	}
	c.last[s], c.have[s] = d.StampNs, true
	c.side[s].push(d)
	c.match(false)
	for s := range c.side {
		for c.side[s].len() > c.opts.MaxHeld {
			c.alone(s)
		}
	}
}

// match pairs the sides' oldest decisions while both have one; with end,
// it then drains what is left.
func (c *Comparison) match(end bool) {
	b, k := &c.side[baseSide], &c.side[candSide]
	for b.len() > 0 && k.len() > 0 {
		bs, ks := b.front().StampNs, k.front().StampNs
		switch {
		case bs == ks:
			bd, kd := b.pop(), k.pop()
			c.pair(&bd, &kd)
		case bs < ks:
			// The candidate decides in stamp order and is past bs.
			c.alone(baseSide)
		default:
			c.alone(candSide)
		}
	}
	if end {
		for b.len() > 0 {
			c.alone(baseSide)
		}
		for k.len() > 0 {
			c.alone(candSide)
		}
	}
}

// alone counts the oldest decision of side s as decided by that side only.
func (c *Comparison) alone(s int) {
	c.side[s].pop()
	if s == baseSide {
		c.res.OnlyBaseline++
	} else {
		c.res.OnlyCandidate++
	}
}

// pair compares the two sides' decisions of one stamp.
func (c *Comparison) pair(b, k *Decision) {
	t := b.StampNs
	if !c.started {
		c.res.FirstStampNs = t
	}
	c.res.LastStampNs = t
	c.res.Compared++
	kinds := [2]decisions.Kind{b.Kind, k.Kind}
	for s, kd := range kinds {
		if kd < decisions.NumKinds {
			c.kindCounts[s][kd]++
			c.res.kinds[s] |= 1 << kd
			if !c.started || c.prev[s] != kd {
				c.episodes[s][kd]++
				if c.onset[s][kd] < 0 {
					c.onset[s][kd] = t
				}
			}
		}
		c.res.lanes[s].add(t, kd, c.opts.MaxLaneRuns)
	}
	c.prev, c.started = kinds, true
	c.tallyReasons(b.Reason, k.Reason)
	if !c.haveCF && commandsDiffer(b.Kind, k.Kind) {
		c.cfNs, c.haveCF = t, true
		c.res.CommandDivergence = &Divergence{StampNs: t, Baseline: b.text(), Candidate: k.text()}
	}
	after := c.haveCF && t > c.cfNs
	if after {
		c.res.Counterfactual++
	}
	if k.Kind == decisions.KindAbstainUncertain && b.Kind != decisions.KindAbstainUncertain {
		c.res.NewAbstains++
	}
	if b.Kind == k.Kind && b.Reason == k.Reason {
		c.open = nil
		return
	}
	c.res.Changed++
	if c.res.FirstDivergence == nil {
		c.res.FirstDivergence = &Divergence{StampNs: t, Baseline: b.text(), Candidate: k.text()}
	}
	if b.Kind != k.Kind {
		c.res.KindChanged++
		if b.Kind < decisions.NumKinds && k.Kind < decisions.NumKinds {
			c.pairs[b.Kind][k.Kind][0]++
			if after {
				c.pairs[b.Kind][k.Kind][1]++
			}
		}
	}
	c.row(t, b, k, after)
}

// row extends the open row with stamp t, or opens a new one.
func (c *Comparison) row(t int64, b, k *Decision, after bool) {
	bt, kt := b.text(), k.text()
	if c.open != nil && c.open.Baseline == bt && c.open.Candidate == kt {
		c.open.ToNs = t
		c.open.Decisions++
		return
	}
	r := Row{FromNs: t, ToNs: t, Decisions: 1, Baseline: bt, Candidate: kt}
	switch {
	case after:
		r.Mark = MarkCounterfactual
	case c.haveCF && t == c.cfNs:
		r.Mark = MarkFirst
	}
	if len(c.res.Rows) >= c.opts.MaxRows {
		c.res.RowsOmitted++
		// Later stamps of this stretch belong to the omitted row.
		c.open = &Row{Baseline: bt, Candidate: kt}
		return
	}
	c.res.Rows = append(c.res.Rows, r)
	c.open = &c.res.Rows[len(c.res.Rows)-1]
}

func (c *Comparison) tallyReasons(base, cand string) {
	for s, r := range [2]string{base, cand} {
		n, ok := c.reasons[r]
		if !ok {
			if len(c.reasons) >= maxReasons {
				r = otherReasons
				if n, ok = c.reasons[r]; !ok {
					n = new([2]uint64)
					c.reasons[r] = n
				}
			} else {
				n = new([2]uint64)
				c.reasons[r] = n
			}
		}
		n[s]++
	}
}

// Finish pairs what is left and returns the flight's result (without its
// path, status and sides' names, which the caller sets).
func (c *Comparison) Finish() *FlightResult {
	c.match(true)
	r := &c.res
	for s, counts := range c.kindCounts {
		var out []KindCount
		for k, n := range counts {
			if n > 0 {
				out = append(out, KindCount{Kind: decisions.Kind(k).String(), N: n})
			}
		}
		if s == baseSide {
			r.BaselineKinds = out
		} else {
			r.CandidateKinds = out
		}
	}
	r.KindPairs = pairList(&c.pairs)
	for _, k := range failsafeKinds {
		if o, ok := c.onsetOf(k); ok {
			r.Onsets = append(r.Onsets, o)
		}
	}
	for _, reason := range slices.Sorted(maps.Keys(c.reasons)) {
		n := c.reasons[reason]
		if n[0] != n[1] {
			r.Reasons = append(r.Reasons, ReasonChange{Reason: reason, Rules: c.opts.RuleNames[reason], Baseline: n[0], Candidate: n[1]})
		}
	}
	for k := range decisions.Kind(decisions.NumKinds) {
		if r.kinds[candSide]&(1<<k) != 0 && r.kinds[baseSide]&(1<<k) == 0 {
			r.NewKinds = append(r.NewKinds, k.String())
		}
	}
	r.RecordedPolicies = slices.Sorted(maps.Keys(c.policies))
	return r
}

// onsetOf is kind k's onset on both sides, false when neither decided it.
func (c *Comparison) onsetOf(k decisions.Kind) (Onset, bool) {
	b, n := c.onset[baseSide][k], c.onset[candSide][k]
	if b < 0 && n < 0 {
		return Onset{}, false
	}
	o := Onset{Kind: k.String(), BaselineEpisodes: c.episodes[baseSide][k], CandidateEpisodes: c.episodes[candSide][k]}
	if b >= 0 {
		o.BaselineNs = &b
	}
	if n >= 0 {
		o.CandidateNs = &n
		o.Counterfactual = c.haveCF && n > c.cfNs
	}
	if b >= 0 && n >= 0 {
		d := n - b
		o.ShiftNs = &d
	}
	return o, true
}

// pairList lists the non-zero kind pairs in catalog order of From, then To.
func pairList(p *[decisions.NumKinds][decisions.NumKinds][2]uint64) []KindPair {
	var out []KindPair
	for from := range p {
		for to, n := range p[from] {
			if n[0] > 0 {
				out = append(out, KindPair{From: decisions.Kind(from).String(), To: decisions.Kind(to).String(), N: n[0], Counterfactual: n[1]})
			}
		}
	}
	return out
}

// add extends the lane with a decision of kind k at stamp t.
func (l *lane) add(t int64, k decisions.Kind, max int) {
	if l.truncated {
		return
	}
	if n := len(l.runs); n > 0 && l.runs[n-1].kind == k {
		l.runs[n-1].toNs = t
		l.runs[n-1].decisions++
		return
	}
	if len(l.runs) >= max {
		l.truncated = true
		return
	}
	l.runs = append(l.runs, run{fromNs: t, toNs: t, kind: k, decisions: 1})
}

// queue is a FIFO of decisions whose storage is reused once its consumed
// head is at least half of it.
type queue struct {
	items []Decision
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(d Decision) {
	if len(q.items) == cap(q.items) && q.head > 0 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, d)
}

func (q *queue) front() *Decision { return &q.items[q.head] }

func (q *queue) pop() Decision {
	d := q.items[q.head]
	q.items[q.head] = Decision{}
	if q.head++; q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return d
}
