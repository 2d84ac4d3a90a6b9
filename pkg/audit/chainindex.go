package audit

import (
	"encoding/hex"
	"sort"

	"github.com/ghost-robotics/ghost/pkg/engine"
)

// chainIndex holds the hashes of the recorded self-assessments by stamp,
// bounded: beyond max stamps the oldest (smallest) stamps are forgotten
// first.
//
// Stamps arrive nearly in order, so the entries are kept sorted by stamp in
// a ring of at most max entries: a newer stamp goes at the end, an older
// one is found by binary search (and, rarely, inserted with a short move),
// the oldest leave from the front. No allocation per entry, and each hash
// is held as its 32 bytes, inline: the ring of 40-byte entries is the only
// storage (2.5 MiB at the default bound) and holds nothing the collector
// must follow. The rare further hashes of a stamp (conflicting
// assessments) are kept aside, in a map.
type chainIndex struct {
	max  int
	ring []chainEntry // a power of two long, grown by doubling to hold max
	head int          // position of the oldest entry
	n    int          // live entries
	// more holds, for a stamp in ring, its further distinct hashes in
	// arrival order.
	more map[int64][]sha256Digest
	// oldest is the oldest stamp ever added (any: one was), forgotten or
	// not.
	oldest int64
	any    bool
}

// chainEntry is a stamp and the first hash recorded for it.
type chainEntry struct {
	stamp int64
	first sha256Digest
}

type sha256Digest [32]byte

// hex returns the lowercase hex form, as hashes are written.
func (d *sha256Digest) hex() string { return hex.EncodeToString(d[:]) }

// is reports whether h is d's lowercase hex form.
func (d *sha256Digest) is(h string) bool {
	var buf [64]byte
	hex.Encode(buf[:], d[:])
	return string(buf[:]) == h
}

// chainHashes are the distinct hashes recorded for one stamp, in arrival
// order: first, then more; none when count is 0.
type chainHashes struct {
	first sha256Digest
	more  []sha256Digest
	found bool
}

// count returns the number of hashes.
func (h *chainHashes) count() int {
	if !h.found {
		return 0
	}
	return 1 + len(h.more)
}

// at returns the i-th hash.
func (h *chainHashes) at(i int) *sha256Digest {
	if i == 0 {
		return &h.first
	}
	return &h.more[i-1]
}

func newChainIndex(max int) chainIndex {
	return chainIndex{max: max}
}

// entry returns the i-th live entry, oldest first.
func (c *chainIndex) entry(i int) *chainEntry { return &c.ring[(c.head+i)&(len(c.ring)-1)] }

// search returns the index of the first live entry with a stamp >= s and
// whether it is s.
func (c *chainIndex) search(s int64) (int, bool) {
	if c.n == 0 || c.entry(c.n-1).stamp < s {
		return c.n, false // the common case for add: a newer stamp
	}
	// A decision is audited soon after its assessment arrived: its stamp
	// is among the newest held, so look there before searching them all.
	for i := c.n - 1; i >= max(c.n-8, 0); i-- {
		if st := c.entry(i).stamp; st <= s {
			if st == s {
				return i, true
			}
			return i + 1, false
		}
	}
	i := sort.Search(c.n, func(i int) bool { return c.entry(i).stamp >= s })
	return i, i < c.n && c.entry(i).stamp == s
}

func (c *chainIndex) add(h *engine.AssessmentHash) {
	s := h.BeliefStampSimNs()
	d := sha256Digest(h.Sum())
	if !c.any || s < c.oldest {
		c.oldest, c.any = s, true
	}
	i, found := c.search(s)
	if found {
		if c.entry(i).first == d {
			return
		}
		more := c.more[s]
		for k := range more {
			if more[k] == d {
				return
			}
		}
		if c.more == nil {
			c.more = map[int64][]sha256Digest{}
		}
		c.more[s] = append(more, d)
		return
	}
	if c.n == c.max {
		if i == 0 {
			return // older than every stamp held: the first to forget
		}
		if len(c.more) > 0 {
			delete(c.more, c.entry(0).stamp)
		}
		*c.entry(0) = chainEntry{}
		c.head = (c.head + 1) & (len(c.ring) - 1)
		c.n--
		i--
	}
	if c.n == len(c.ring) {
		c.grow()
	}
	for k := c.n; k > i; k-- { // a short move: stamps arrive nearly in order
		*c.entry(k) = *c.entry(k - 1)
	}
	*c.entry(i) = chainEntry{stamp: s, first: d}
	c.n++
}

func (c *chainIndex) grow() {
	ring := make([]chainEntry, max(2*len(c.ring), 64))
	for k := range c.n {
		ring[k] = *c.entry(k)
	}
	c.ring, c.head = ring, 0
}

// find returns the hashes of stamp (count 0 when none is held).
func (c *chainIndex) find(stamp int64) chainHashes {
	i, ok := c.search(stamp)
	if !ok {
		return chainHashes{}
	}
	return chainHashes{first: c.entry(i).first, more: c.more[stamp], found: true}
}
