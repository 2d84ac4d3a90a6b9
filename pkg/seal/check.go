package seal

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"time"
)

// DefaultMaxPending bounds the messages a Checker holds while it waits for
// the seal that covers them (about 56 bytes each).
const DefaultMaxPending = 1 << 20

// maxBreaks bounds the breaks a Checker keeps to pick the first from; the
// count stays exact.
const maxBreaks = 1024

// CheckOptions configure a Checker.
type CheckOptions struct {
	// Topic is the seal topic; default DefaultTopic.
	Topic string
	// TrustKeys are the keys whose seals are trusted. Without one, the
	// Checker only counts the seals and lists their key ids.
	TrustKeys []ed25519.PublicKey
	// Reads reports whether the audit reads a topic (its inputs, decisions
	// and receipts): messages on such a topic that no seal lists are a
	// break, those on other topics are only counted. Nil: every topic.
	Reads func(topic string) bool
	// MaxPending bounds the messages held while waiting for their seal;
	// default DefaultMaxPending. Past it, checking stops with a break.
	MaxPending int
	// Skew is how far another recorder's log times may put a message on
	// the wrong side of a seal: zero for a recording the node wrote itself,
	// whose seals are logged after every message they cover and before any
	// they do not; about a second for a recorder such as rosbag2, which
	// logs each topic at its own receive time.
	Skew time.Duration
}

// Checker checks a recording against its seals, message by message in the
// order read (see docs/seals.md for the rules). It is not safe for
// concurrent use.
type Checker struct {
	opts    CheckOptions
	trust   map[string]ed25519.PublicKey
	index   uint64 // messages observed
	seals   []sealState
	topics  map[string]*topicState
	order   []*topicState // creation order
	pending int
	stopped bool
	breaks  []Break
	nbreaks uint64
	report  Report
	leaf    *leafHasher
}

// sealState is one trusted seal as recorded.
type sealState struct {
	s        Seal
	index    uint64 // of the seal message in the recording
	logTime  uint64
	blocks   int // topics with messages in its interval
	matched  int // of those, found whole
	skipped  string
	broken   bool
	linkOK   bool
	runStart bool
}

// item is one recorded message of a sealed topic.
type item struct {
	leaf    Digest
	logTime uint64
	index   uint64
}

// block is one topic's part of a seal's interval, still to be found.
type block struct {
	seal         int // in Checker.seals
	count        uint64
	first, chain Digest
}

type topicState struct {
	name     string
	starts   map[string]*leafStart // by recorded schema name
	listed   bool                  // a seal lists it
	unsealed bool                  // decided to be in no seal
	nUnseal  uint64
	pending  []item
	cur      int // pending[:cur] folded into the current block
	blocks   []block
	aligned  bool
	h        chainHash
	n        uint64
	broken   bool
	// Messages found before the topic's first whole block: how many, and
	// the latest logged of them.
	before     uint64
	lastBefore item
}

// NewChecker returns a Checker.
func NewChecker(opts CheckOptions) *Checker {
	if opts.Topic == "" {
		opts.Topic = DefaultTopic
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	c := &Checker{opts: opts, trust: map[string]ed25519.PublicKey{}, topics: map[string]*topicState{}, leaf: newLeafHasher()}
	for _, k := range opts.TrustKeys {
		c.trust[KeyID(k)] = k
	}
	c.report = Report{Trusted: len(c.trust) > 0, KeyIDs: []string{}, Unsealed: map[string]uint64{}, FirstSeal: -1, LastSeal: -1}
	return c
}

func (c *Checker) trusting() bool { return len(c.trust) > 0 }

func (c *Checker) reads(topic string) bool { return c.opts.Reads == nil || c.opts.Reads(topic) }

// addBreak records a break; the first in the recording is reported.
func (c *Checker) addBreak(b Break) {
	c.nbreaks++
	if len(c.breaks) < maxBreaks {
		c.breaks = append(c.breaks, b)
	}
}

// Observe takes the next message of the recording, of any topic.
func (c *Checker) Observe(topic, schemaName string, logTime uint64, data []byte) {
	i := c.index
	c.index++
	if topic == c.opts.Topic {
		c.observeSeal(schemaName, logTime, data, i)
		return
	}
	if !c.trusting() || c.stopped {
		return
	}
	ts := c.topic(topic)
	switch {
	case ts.unsealed:
		c.unsealed(ts, item{logTime: logTime, index: i})
		return
	case ts.broken:
		return
	}
	start, ok := ts.starts[schemaName]
	if !ok {
		s := c.leaf.start(topic, schemaName)
		start = &s
		ts.starts[schemaName] = start
	}
	ts.pending = append(ts.pending, item{leaf: c.leaf.leaf(start, data), logTime: logTime, index: i})
	c.pending++
	if c.pending > c.opts.MaxPending {
		c.stopped = true
		c.addBreak(Break{Kind: BreakUnsealed, Topic: topic, LogTimeNs: logTime, Index: i, Seal: -1,
			Detail: fmt.Sprintf("more than %d messages wait for a seal: checking stopped", c.opts.MaxPending)})
		return
	}
	c.advance(ts)
}

func (c *Checker) topic(name string) *topicState {
	ts, ok := c.topics[name]
	if !ok {
		ts = &topicState{name: name, starts: map[string]*leafStart{}, h: newChainHash()}
		c.topics[name] = ts
		c.order = append(c.order, ts)
	}
	return ts
}

// unsealed counts a message on a topic no seal lists.
func (c *Checker) unsealed(ts *topicState, it item) {
	if ts.nUnseal == 0 && c.reads(ts.name) {
		c.addBreak(Break{Kind: BreakUnsealed, Topic: ts.name, LogTimeNs: it.logTime, Index: it.index, Seal: -1,
			Detail: "the audit reads this topic, and no seal lists it"})
	}
	ts.nUnseal++
}

func (c *Checker) observeSeal(schemaName string, logTime uint64, data []byte, i uint64) {
	c.report.Seals++
	s, err := Decode(data)
	if err == nil && CanonicalType(schemaName) != SchemaName {
		err = fmt.Errorf("%w: type %s on the seal topic", ErrMalformed, clip(schemaName))
	}
	if err == nil && !slices.Contains(c.report.KeyIDs, s.KeyID) && len(c.report.KeyIDs) < 16 {
		c.report.KeyIDs = append(c.report.KeyIDs, s.KeyID)
	}
	if !c.trusting() || c.stopped {
		return
	}
	at := Break{Topic: c.opts.Topic, LogTimeNs: logTime, Index: i, Seal: int64(s.Index)}
	switch pub, ok := c.trust[s.KeyID]; {
	case err != nil:
		at.Kind, at.Seal, at.Detail = BreakMalformed, -1, err.Error()
	case !ok:
		at.Kind, at.Detail = BreakKey, fmt.Sprintf("seal %d is signed by key %s, which is not trusted", s.Index, s.KeyID)
	case !s.VerifySignature(pub):
		at.Kind, at.Detail = BreakSignature, fmt.Sprintf("seal %d's signature does not verify with key %s", s.Index, s.KeyID)
	}
	if at.Kind != "" {
		c.addBreak(at)
		return
	}
	st := sealState{s: s, index: i, logTime: logTime, linkOK: true, runStart: s.Index == 0}
	if n := len(c.seals); n > 0 && !st.runStart {
		if d := link(&c.seals[n-1].s, &s); d != "" {
			at.Kind, at.Detail = BreakLink, d
			c.addBreak(at)
			st.linkOK = false
		}
	}
	c.seals = append(c.seals, st)
	k := len(c.seals) - 1
	listed := map[string]bool{}
	for _, t := range s.Topics {
		ts := c.topic(t.Topic)
		listed[t.Topic] = true
		if ts.unsealed {
			continue // counted as unsealed from its first message
		}
		ts.listed = true
		if t.Count > 0 {
			ts.blocks = append(ts.blocks, block{seal: k, count: t.Count, first: t.First, chain: t.Chain})
			c.seals[k].blocks++
		}
	}
	for _, ts := range c.order {
		if !ts.listed && !ts.unsealed && !listed[ts.name] && len(ts.pending) > 0 {
			// A seal after its first message does not list it.
			ts.unsealed = true
			c.pending -= len(ts.pending)
			for _, it := range ts.pending {
				c.unsealed(ts, it)
			}
			ts.pending = nil
		}
		c.advance(ts)
	}
}

// link says why next cannot follow prev in one run, "" when it can.
func link(prev, next *Seal) string {
	seq := prev.LastSequence + 1
	if prev.Count == 0 {
		seq = prev.FirstSequence
	}
	switch {
	case prev.Final:
		return fmt.Sprintf("seal %d follows the final seal %d of its run", next.Index, prev.Index)
	case next.Index != prev.Index+1:
		return fmt.Sprintf("seal %d follows seal %d: seals are missing or out of order", next.Index, prev.Index)
	case next.Previous != prev.Digest():
		return fmt.Sprintf("seal %d does not name seal %d's digest: they are not of one run", next.Index, prev.Index)
	case next.FirstSequence != seq:
		return fmt.Sprintf("seal %d starts at sequence %d, seal %d ended before %d", next.Index, next.FirstSequence, prev.Index, seq)
	}
	return ""
}
