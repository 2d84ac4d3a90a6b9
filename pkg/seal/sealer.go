package seal

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"
)

// TopicID names a topic declared to a Sealer.
type TopicID int

// Sealer keeps the running chains of one run and makes its seals. It reads
// no clock: its owner gives every message's time and says when to seal.
// It is not safe for concurrent use.
type Sealer struct {
	key    ed25519.PrivateKey
	keyID  string
	topics []topicChain // by TopicID
	sorted []TopicID    // by name, for the seal's list
	leaf   *leafHasher

	next  uint64 // sequence number of the next message
	index uint64 // of the next seal
	prev  Digest
	// The open interval.
	first, count uint64
	minNs, maxNs int64
	finished     bool
}

type topicChain struct {
	name, typ string
	start     leafStart
	count     uint64
	first     Digest
	chain     chainHash
}

// NewSealer returns a Sealer that signs with key.
func NewSealer(key ed25519.PrivateKey) (*Sealer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("seal: %w: private key of %d bytes", ErrKey, len(key))
	}
	return &Sealer{key: key, keyID: KeyID(key.Public().(ed25519.PublicKey)), leaf: newLeafHasher()}, nil
}

// KeyID returns the id of the signing key.
func (s *Sealer) KeyID() string { return s.keyID }

// Declare adds a topic that every later seal lists, and returns its id;
// declaring it again with the same type returns the same id.
func (s *Sealer) Declare(topic, typ string) (TopicID, error) {
	typ = CanonicalType(typ)
	if topic == "" || !strings.Contains(typ, "/msg/") {
		return 0, fmt.Errorf("seal: declare topic %q of type %q: want a topic and a pkg/msg/Type", clip(topic), clip(typ))
	}
	for i, t := range s.topics {
		if t.name != topic {
			continue
		}
		if t.typ != typ {
			return 0, fmt.Errorf("seal: topic %s declared as %s and as %s", topic, t.typ, typ)
		}
		return TopicID(i), nil
	}
	if len(s.topics) == MaxTopics {
		return 0, fmt.Errorf("seal: more than %d topics", MaxTopics)
	}
	id := TopicID(len(s.topics))
	s.topics = append(s.topics, topicChain{name: topic, typ: typ, start: s.leaf.start(topic, typ), chain: newChainHash()})
	i, _ := slices.BinarySearchFunc(s.sorted, topic, func(a TopicID, name string) int { return strings.Compare(s.topics[a].name, name) })
	s.sorted = slices.Insert(s.sorted, i, id)
	return id, nil
}

// Add folds one message of topic id, taken or published at timeNs, into
// the open interval.
func (s *Sealer) Add(id TopicID, timeNs int64, payload []byte) {
	t := &s.topics[id]
	l := s.leaf.leaf(&t.start, payload)
	if t.count == 0 {
		t.first = l
	}
	t.chain.add(l)
	t.count++
	if s.count == 0 {
		s.first, s.minNs, s.maxNs = s.next, timeNs, timeNs
	}
	s.minNs, s.maxNs = min(s.minNs, timeNs), max(s.maxNs, timeNs)
	s.count++
	s.next++
}

// Pending returns the number of messages since the last seal.
func (s *Sealer) Pending() uint64 { return s.count }

// Seal closes the open interval into a signed seal made at sealNs; final
// marks the run's last seal, after which Seal fails.
func (s *Sealer) Seal(sealNs int64, final bool) (*Seal, error) {
	if s.finished {
		return nil, fmt.Errorf("seal: seal %d after the final seal", s.index)
	}
	out := &Seal{
		Version: Version, Index: s.index, Final: final, Count: s.count,
		FirstSequence: s.next, LastSequence: s.next,
		SealTimeNs: sealNs, Previous: s.prev, Topics: make([]TopicDigest, 0, len(s.sorted)),
	}
	if s.count > 0 {
		out.FirstSequence, out.LastSequence = s.first, s.next-1
		out.FirstTimeNs, out.LastTimeNs = s.minNs, s.maxNs
	}
	for _, id := range s.sorted {
		t := &s.topics[id]
		out.Topics = append(out.Topics, TopicDigest{Topic: t.name, Type: t.typ, Count: t.count, First: t.first, Chain: t.chain.digest()})
		t.count, t.first = 0, Digest{}
		t.chain.reset()
	}
	out.Chain = IntervalDigest(out.Topics)
	out.signAs(s.key, s.keyID)
	s.prev = out.Digest()
	s.index++
	s.count = 0
	s.finished = final
	return out, nil
}
