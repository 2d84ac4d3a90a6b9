package seal

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
	"strings"
)

// Domains separate the digests and the signature from each other and from
// any other use of the same key or hash (docs/seals.md).
const (
	leafDomain     = "ghost-seal-leaf-v1\x00"
	intervalDomain = "ghost-seal-interval-v1\x00"
	// SignatureDomain starts the bytes a seal's signature covers.
	SignatureDomain = "ghost-recording-seal-v1\x00"
)

// Digest is a SHA-256.
type Digest = [sha256.Size]byte

// CanonicalType returns a message type in its "pkg/msg/Type" form: MCAP
// files name types either way ("pkg/Type" in older rosbag2 files).
func CanonicalType(t string) string {
	pkg, name, ok := strings.Cut(t, "/")
	if ok && pkg != "" && name != "" && !strings.Contains(name, "/") {
		return pkg + "/msg/" + name
	}
	return t
}

// leafPrefix returns the bytes a leaf starts with for topic and type (in its
// canonical form): the domain and both names, length-prefixed.
func leafPrefix(topic, typ string) []byte {
	typ = CanonicalType(typ)
	b := make([]byte, 0, len(leafDomain)+8+len(topic)+len(typ))
	b = append(b, leafDomain...)
	b = appendString(b, topic)
	return appendString(b, typ)
}

// zeros pads payloads to a multiple of 4 bytes.
var zeros [3]byte

// leafStart is where every leaf of one topic and type starts: its prefix,
// and the SHA-256 state after it, so that a leaf hashes only what follows.
// The prefix is 60 to 100 bytes; from 64 on, that is a block a topic
// hashes once instead of once per message. The digests are the same.
type leafStart struct {
	prefix []byte
	state  []byte // the marshaled state after prefix; nil: hash prefix each time
}

// leafHasher computes leaf digests without allocating.
type leafHasher struct {
	h       hash.Hash
	restore encoding.BinaryUnmarshaler // h's; nil when it cannot restore a state
	buf     [8]byte
	sum     []byte
}

func newLeafHasher() *leafHasher {
	h := sha256.New()
	l := &leafHasher{h: h, sum: make([]byte, 0, sha256.Size)}
	// crypto/sha256 documents both; a hash without them hashes the prefix
	// every time.
	if _, ok := h.(encoding.BinaryMarshaler); ok {
		l.restore, _ = h.(encoding.BinaryUnmarshaler)
	}
	return l
}

// start returns the leafStart of topic and type.
func (l *leafHasher) start(topic, typ string) leafStart {
	s := leafStart{prefix: leafPrefix(topic, typ)}
	if l.restore == nil {
		return s
	}
	l.h.Reset()
	l.h.Write(s.prefix)
	if state, err := l.h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
		s.state = state
	}
	return s
}

// leaf returns the digest of one message that starts at s: SHA-256 of the
// prefix, the payload's padded length (u64), the payload and up to three
// zero bytes. rmw_cyclonedds pads what it delivers to a multiple of 4 and
// the node's own encoder does not, so padding both alike makes a recorder's
// copy and the node's hash the same; a valid message's length is fixed by
// its content, so no two messages share a padded form.
func (l *leafHasher) leaf(s *leafStart, payload []byte) Digest {
	if s.state == nil || l.restore.UnmarshalBinary(s.state) != nil {
		l.h.Reset()
		l.h.Write(s.prefix)
	}
	pad := (4 - len(payload)%4) % 4
	binary.BigEndian.PutUint64(l.buf[:], uint64(len(payload)+pad))
	l.h.Write(l.buf[:])
	l.h.Write(payload)
	l.h.Write(zeros[:pad])
	var d Digest
	l.sum = l.h.Sum(l.sum[:0])
	copy(d[:], l.sum)
	return d
}

// Leaf returns the leaf digest of one message of topic and type (docs/seals.md).
func Leaf(topic, typ string, payload []byte) Digest {
	l := newLeafHasher()
	start := leafStart{prefix: leafPrefix(topic, typ)}
	return l.leaf(&start, payload)
}

// chainHash folds a topic's leaves, in order, into its chain: the SHA-256
// of the leaves one after the other, or the zero digest when there are
// none. A running hash takes each leaf for half a SHA-256 block.
type chainHash struct {
	h   hash.Hash
	n   uint64
	sum []byte
	in  []byte // a leaf handed to h: a stack array would escape through the interface
}

func newChainHash() chainHash {
	return chainHash{h: sha256.New(), sum: make([]byte, 0, sha256.Size), in: make([]byte, sha256.Size)}
}

func (c *chainHash) add(leaf Digest) {
	copy(c.in, leaf[:])
	c.h.Write(c.in)
	c.n++
}

// digest returns the chain so far.
func (c *chainHash) digest() Digest {
	var d Digest
	if c.n > 0 {
		c.sum = c.h.Sum(c.sum[:0])
		copy(d[:], c.sum)
	}
	return d
}

func (c *chainHash) reset() {
	c.h.Reset()
	c.n = 0
}

// Chain returns the chain of a topic's leaves in an interval: the SHA-256
// of the leaves one after the other, the zero digest for none.
func Chain(leaves ...Digest) Digest {
	c := newChainHash()
	for _, l := range leaves {
		c.add(l)
	}
	return c.digest()
}

// IntervalDigest is the digest of an interval's topics (chain_sha256): the
// domain, the topic count (u32) and each topic in order: its name and type,
// length-prefixed, its count (u64), its first leaf and its chain.
func IntervalDigest(topics []TopicDigest) Digest {
	h := sha256.New()
	var b []byte
	b = append(b, intervalDomain...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(topics)))
	for _, t := range topics {
		b = appendString(b, t.Topic)
		b = appendString(b, t.Type)
		b = binary.BigEndian.AppendUint64(b, t.Count)
		b = append(b, t.First[:]...)
		b = append(b, t.Chain[:]...)
		h.Write(b)
		b = b[:0]
	}
	h.Write(b)
	var d Digest
	h.Sum(d[:0])
	return d
}

// appendString appends s with its length as a big-endian u32.
func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}
