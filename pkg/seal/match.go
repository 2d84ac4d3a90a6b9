package seal

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// maxUnaligned bounds the messages a topic holds before its first whole
// block is found; older ones are counted as before it.
const maxUnaligned = 1 << 16

// advance matches ts's pending messages against its blocks, as far as both
// go.
func (c *Checker) advance(ts *topicState) {
	for !ts.broken && len(ts.blocks) > 0 {
		if !ts.aligned && !c.align(ts) {
			if n := len(ts.pending) - maxUnaligned; n > 0 {
				c.dropBefore(ts, n)
			}
			return
		}
		b := &ts.blocks[0]
		for ts.cur < len(ts.pending) && ts.n < b.count {
			it := ts.pending[ts.cur]
			if ts.n == 0 && it.leaf != b.first {
				break // the chain cannot match: decided below
			}
			ts.h.add(it.leaf)
			ts.n++
			ts.cur++
		}
		done := ts.n == b.count
		if !done && !(ts.n == 0 && ts.cur < len(ts.pending)) {
			return // waiting for more messages
		}
		if done && ts.h.digest() == b.chain {
			c.whole(ts)
			continue
		}
		c.brokenBlock(ts, b)
		return
	}
}

// whole takes ts's first block as found.
func (c *Checker) whole(ts *topicState) {
	b := ts.blocks[0]
	c.seals[b.seal].matched++
	ts.pending = slices.Delete(ts.pending, 0, ts.cur)
	c.pending -= ts.cur
	ts.cur, ts.n = 0, 0
	ts.h.reset()
	ts.blocks = ts.blocks[1:]
}

// brokenBlock records that ts's messages are not those of its first block.
func (c *Checker) brokenBlock(ts *topicState, b *block) {
	s := &c.seals[b.seal]
	s.broken = true
	ts.broken = true
	first := ts.pending[0]
	last := ts.pending[max(ts.cur, 1)-1]
	detail := fmt.Sprintf("the first of the %d messages seal %d lists on this topic is not the sealed one", b.count, s.s.Index)
	if first.leaf == b.first {
		detail = fmt.Sprintf("the %d messages seal %d lists on this topic (recording messages %d to %d, log times %d to %d) are not the sealed ones: one of them was changed, inserted, dropped or reordered",
			b.count, s.s.Index, first.index, last.index, first.logTime, last.logTime)
	}
	c.addBreak(Break{Kind: BreakChanged, Topic: ts.name, LogTimeNs: first.logTime, Index: first.index, Seal: int64(s.s.Index), Detail: detail})
	c.pending -= len(ts.pending)
	ts.pending, ts.blocks = nil, nil
}

// dropBefore counts ts's n oldest pending messages as before its first
// whole block.
func (c *Checker) dropBefore(ts *topicState, n int) {
	for _, it := range ts.pending[:n] {
		ts.before++
		if it.logTime >= ts.lastBefore.logTime {
			ts.lastBefore = it
		}
	}
	ts.pending = slices.Delete(ts.pending, 0, n)
	c.pending -= n
	ts.cur, ts.n = 0, 0
	ts.h.reset()
}

// align finds ts's first block in the recording, and reports whether it
// did. A run's first block starts at the topic's first message. Otherwise
// (a recorder that started late) it is the first block found whole: at a
// message with its first leaf, its chain matching, its last message logged
// no later than its seal, which the node makes after every message it
// covers. Where a topic repeats a message byte for byte, the same chain is
// found one message on as well; the latest such place logged before the
// seal is the block, since the node's next message comes after it. The
// blocks before it are skipped (their seals are not whole here) and the
// messages before it are counted as before.
func (c *Checker) align(ts *topicState) bool {
	if len(ts.pending) == 0 {
		return false
	}
	if c.seals[ts.blocks[0].seal].runStart {
		ts.aligned = true
		return true
	}
	for bi, b := range ts.blocks {
		sealAt := c.seals[b.seal].logTime
		at := -1
		for p, it := range ts.pending {
			if it.leaf != b.first || uint64(len(ts.pending)-p) < b.count {
				continue
			}
			end := p + int(b.count) - 1
			if ts.pending[end].logTime <= sealAt && chainOf(ts.pending[p:end+1]) == b.chain {
				at = p
			}
		}
		if at < 0 {
			continue
		}
		for _, sb := range ts.blocks[:bi] {
			if c.seals[sb.seal].skipped == "" {
				c.seals[sb.seal].skipped = ts.name
			}
		}
		ts.blocks = ts.blocks[bi:]
		c.dropBefore(ts, at)
		ts.aligned = true
		return true
	}
	return false
}

func chainOf(items []item) Digest {
	c := newChainHash()
	for _, it := range items {
		c.add(it.leaf)
	}
	return c.digest()
}

// Finish applies the rules that need the whole recording (docs/seals.md)
// and returns the report; complete says whether the recording was read to
// its end.
func (c *Checker) Finish(complete bool) *Report {
	r := &c.report
	if !c.trusting() {
		return r
	}
	for _, ts := range c.order {
		if !ts.listed && !ts.unsealed {
			for _, it := range ts.pending {
				c.unsealed(ts, it)
			}
		}
		if ts.nUnseal > 0 {
			r.Unsealed[ts.name] = ts.nUnseal
			continue
		}
		for _, b := range ts.blocks {
			if c.seals[b.seal].skipped == "" {
				c.seals[b.seal].skipped = ts.name
			}
		}
	}
	first, last := c.trustedRange(complete)
	if first < 0 {
		if !c.stopped {
			c.addBreak(Break{Kind: BreakUnsealed, Topic: c.opts.Topic, Index: c.index, Seal: -1,
				Detail: "the recording holds no seal whose interval it holds whole: nothing can be trusted"})
		}
	} else {
		c.fill(first, last)
	}
	r.Breaks = c.nbreaks
	if len(c.breaks) > 0 {
		// A seal that does not verify comes first: the messages it should
		// have covered break only because of it.
		b := slices.MinFunc(c.breaks, func(a, b Break) int {
			return cmp.Or(cmp.Compare(rank(a.Kind), rank(b.Kind)), cmp.Compare(a.Index, b.Index))
		})
		r.FirstBreak = &b
	}
	return r
}

// trustedRange returns the first and last seals (in c.seals) of the trusted
// range, -1 when there is none, and records the breaks of the seals that
// are not whole where they must be.
func (c *Checker) trustedRange(complete bool) (first, last int) {
	whole := func(s *sealState) bool { return s.matched == s.blocks && !s.broken }
	first = -1
	for k := range c.seals {
		if whole(&c.seals[k]) {
			first = k
			break
		}
	}
	// The run's first seal must be whole where the recording holds it.
	for k := range c.seals {
		if s := &c.seals[k]; s.runStart && !whole(s) && !s.broken && (first < 0 || k < first) {
			c.missing(s, "the recording holds the run's first seal, but not its whole interval")
		}
	}
	if first < 0 {
		return -1, -1
	}
	last = first
	truncated := len(c.seals)
	if !complete {
		// A cut recording loses what follows its last whole seal.
		for truncated > first && !whole(&c.seals[truncated-1]) && !c.seals[truncated-1].broken {
			truncated--
		}
	}
	for k := first + 1; k < len(c.seals); k++ {
		s := &c.seals[k]
		switch {
		case whole(s) && k < truncated:
			if last == k-1 && s.linkOK {
				last = k
			}
		case s.broken || k >= truncated:
		default:
			c.missing(s, "")
		}
	}
	return first, last
}

// missing records that seal s's interval is not whole in the recording.
func (c *Checker) missing(s *sealState, why string) {
	if why == "" {
		why = fmt.Sprintf("messages seal %d lists are not in the recording", s.s.Index)
	}
	s.broken = true
	c.addBreak(Break{Kind: BreakMissing, Topic: s.skipped, LogTimeNs: s.logTime, Index: s.index, Seal: int64(s.s.Index),
		Detail: fmt.Sprintf("%s (first short on %s)", why, s.skipped)})
}

// fill completes the report for the trusted range and checks what lies
// outside it.
func (c *Checker) fill(first, last int) {
	r := &c.report
	fs, ls := &c.seals[first], &c.seals[last]
	r.FirstSeal, r.LastSeal = int64(fs.s.Index), int64(ls.s.Index)
	r.Final = ls.s.Final
	for k := first; k <= last; k++ {
		r.Checked++
		r.Messages += c.seals[k].s.Count
	}
	for _, ts := range c.order {
		if ts.nUnseal > 0 {
			continue
		}
		if ts.before > 0 {
			it := ts.lastBefore
			switch {
			case fs.runStart:
				c.addBreak(Break{Kind: BreakInserted, Topic: ts.name, LogTimeNs: it.logTime, Index: it.index, Seal: int64(fs.s.Index),
					Detail: fmt.Sprintf("%d messages before the run's first sealed interval", ts.before)})
			case it.logTime > fs.logTime+c.skew():
				c.addBreak(Break{Kind: BreakInserted, Topic: ts.name, LogTimeNs: it.logTime, Index: it.index, Seal: int64(fs.s.Index),
					Detail: fmt.Sprintf("a message in no sealed interval, logged after seal %d", fs.s.Index)})
			}
			r.Before += ts.before
		}
		c.leftovers(ts, first, last)
	}
}

// rank orders break kinds for the first break: the seals' own first.
func rank(k BreakKind) int {
	switch k {
	case BreakMalformed, BreakKey, BreakSignature, BreakLink:
		return 0
	}
	return 1
}

// leftovers sorts out the messages of ts that no block took, the sealed
// range being c.seals[first..last]. Any logged inside the range, where
// every seal lists this topic with all its messages, is inserted; the run's
// first seal has nothing before it, and its final seal nothing after. The
// range's edges are the seals' own log times, narrowed by the skew another
// recorder may have.
func (c *Checker) leftovers(ts *topicState, first, last int) {
	for _, b := range ts.blocks {
		if b.seal <= last {
			return // a seal in the range is short of them: already a break
		}
	}
	r := &c.report
	fs := &c.seals[first]
	lo, hi := fs.logTime+c.skew(), c.seals[last].logTime
	if fs.runStart {
		lo = 0
	}
	switch {
	case r.Final:
		hi = math.MaxUint64
	case hi < c.skew():
		hi = 0
	default:
		hi -= c.skew()
	}
	reported := ts.broken
	for _, it := range ts.pending {
		switch {
		case (it.logTime > lo || fs.runStart) && it.logTime < hi:
			if !reported {
				c.addBreak(Break{Kind: BreakInserted, Topic: ts.name, LogTimeNs: it.logTime, Index: it.index, Seal: -1,
					Detail: fmt.Sprintf("a message in no sealed interval, logged between seals %d and %d, which cover this topic", fs.s.Index, c.seals[last].s.Index)})
				reported = true
			}
		case it.logTime <= lo:
			r.Before++
		default:
			r.After++
		}
	}
}

func (c *Checker) skew() uint64 { return uint64(max(c.opts.Skew, 0)) }
