package seal

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Version is the seal format this package writes and reads.
const Version = 1

// DefaultTopic is where the node publishes its seals.
const DefaultTopic = "/decisions/seal"

// SchemaName is the seal's message type.
const SchemaName = "ghost/msg/RecordingSeal"

// MaxTopics bounds the topics one seal may list: a node seals a dozen.
const MaxTopics = 1024

// ErrMalformed is matched by every error about a seal's content.
var ErrMalformed = errors.New("malformed seal")

// TopicDigest is one topic's messages in a seal's interval.
type TopicDigest struct {
	Topic string
	Type  string // "pkg/msg/Type"
	Count uint64
	First Digest // the first message's leaf; zero when Count is 0
	Chain Digest // the fold of every leaf in order, from the zero digest
}

// Seal is one ghost/msg/RecordingSeal.
type Seal struct {
	Version       uint8
	KeyID         string
	Index         uint64
	Final         bool
	FirstSequence uint64
	LastSequence  uint64
	Count         uint64
	FirstTimeNs   int64
	LastTimeNs    int64
	SealTimeNs    int64
	Previous      Digest
	Chain         Digest // IntervalDigest(Topics)
	Topics        []TopicDigest
	Signature     [ed25519.SignatureSize]byte
}

// SignedBytes returns the bytes s's signature covers (docs/seals.md): the
// domain, then every field but the topics (which Chain covers) and the
// signature, big-endian, strings length-prefixed.
func (s *Seal) SignedBytes() []byte {
	b := make([]byte, 0, len(SignatureDomain)+1+4+len(s.KeyID)+8+1+3*8+3*8+2*sha256.Size)
	b = append(b, SignatureDomain...)
	b = append(b, s.Version)
	b = appendString(b, s.KeyID)
	b = binary.BigEndian.AppendUint64(b, s.Index)
	final := byte(0)
	if s.Final {
		final = 1
	}
	b = append(b, final)
	b = binary.BigEndian.AppendUint64(b, s.FirstSequence)
	b = binary.BigEndian.AppendUint64(b, s.LastSequence)
	b = binary.BigEndian.AppendUint64(b, s.Count)
	b = binary.BigEndian.AppendUint64(b, uint64(s.FirstTimeNs))
	b = binary.BigEndian.AppendUint64(b, uint64(s.LastTimeNs))
	b = binary.BigEndian.AppendUint64(b, uint64(s.SealTimeNs))
	b = append(b, s.Previous[:]...)
	return append(b, s.Chain[:]...)
}

// Digest is the seal's identity, which the next seal names as its
// previous: the SHA-256 of its signed bytes.
func (s *Seal) Digest() Digest { return sha256.Sum256(s.SignedBytes()) }

// Sign sets the key id and the signature.
func (s *Seal) Sign(key ed25519.PrivateKey) {
	s.signAs(key, KeyID(key.Public().(ed25519.PublicKey)))
}

// signAs is Sign with the key's id given, which a Sealer keeps rather than
// marshal the public key again for every seal.
func (s *Seal) signAs(key ed25519.PrivateKey, keyID string) {
	s.KeyID = keyID
	copy(s.Signature[:], ed25519.Sign(key, s.SignedBytes()))
}

// VerifySignature reports whether s is signed by pub (and names pub's id).
func (s *Seal) VerifySignature(pub ed25519.PublicKey) bool {
	return s.KeyID == KeyID(pub) && ed25519.Verify(pub, s.SignedBytes(), s.Signature[:])
}

// Validate checks what a seal says about itself: the version, the key id's
// form, the range, the topics (sorted, unique, counts adding up, a first
// leaf exactly when there are messages) and the interval digest. It does
// not check the signature.
func (s *Seal) Validate() error {
	if s.Version != Version {
		return fmt.Errorf("%w: version %d, this build reads %d", ErrMalformed, s.Version, Version)
	}
	if len(s.KeyID) != KeyIDLen || strings.Trim(s.KeyID, "0123456789abcdef") != "" {
		return fmt.Errorf("%w: key_id %q: want %d lowercase hex digits", ErrMalformed, clip(s.KeyID), KeyIDLen)
	}
	switch {
	case s.Count == 0 && s.LastSequence != s.FirstSequence:
		return fmt.Errorf("%w: an empty interval with first_sequence %d and last_sequence %d", ErrMalformed, s.FirstSequence, s.LastSequence)
	case s.Count > 0 && s.LastSequence-s.FirstSequence != s.Count-1, s.Count > 0 && s.LastSequence < s.FirstSequence:
		return fmt.Errorf("%w: sequences %d to %d for message_count %d", ErrMalformed, s.FirstSequence, s.LastSequence, s.Count)
	case s.Count > 0 && s.LastTimeNs < s.FirstTimeNs, s.Count == 0 && (s.FirstTimeNs != 0 || s.LastTimeNs != 0):
		return fmt.Errorf("%w: first_time_ns %d and last_time_ns %d for %d messages", ErrMalformed, s.FirstTimeNs, s.LastTimeNs, s.Count)
	case s.Index == 0 && s.Previous != Digest{}:
		return fmt.Errorf("%w: seal 0 names a previous seal", ErrMalformed)
	case len(s.Topics) > MaxTopics:
		return fmt.Errorf("%w: %d topics, at most %d", ErrMalformed, len(s.Topics), MaxTopics)
	}
	var total uint64
	for i, t := range s.Topics {
		if t.Topic == "" || (i > 0 && t.Topic <= s.Topics[i-1].Topic) {
			return fmt.Errorf("%w: topics[%d] %q: want non-empty names in increasing byte order, each once", ErrMalformed, i, clip(t.Topic))
		}
		if CanonicalType(t.Type) != t.Type || !strings.Contains(t.Type, "/msg/") {
			return fmt.Errorf("%w: topics[%d] type %q: want pkg/msg/Type", ErrMalformed, i, clip(t.Type))
		}
		if (t.Count == 0) != (t.First == Digest{}) || t.Count == 0 && t.Chain != (Digest{}) {
			return fmt.Errorf("%w: topic %s: %d messages with first %x and chain %x", ErrMalformed, clip(t.Topic), t.Count, t.First[:4], t.Chain[:4])
		}
		if total+t.Count < total {
			return fmt.Errorf("%w: topic counts overflow", ErrMalformed)
		}
		total += t.Count
	}
	if total != s.Count {
		return fmt.Errorf("%w: topic counts add up to %d, message_count is %d", ErrMalformed, total, s.Count)
	}
	if d := IntervalDigest(s.Topics); d != s.Chain {
		return fmt.Errorf("%w: chain_sha256 %x is not the digest of its topics (%x)", ErrMalformed, s.Chain[:8], d[:8])
	}
	return nil
}

// ToWire converts s to its message.
func (s *Seal) ToWire() ros2msg.RecordingSeal {
	m := ros2msg.RecordingSeal{
		Version: s.Version, KeyID: s.KeyID, SealIndex: s.Index, FinalSeal: s.Final,
		FirstSequence: s.FirstSequence, LastSequence: s.LastSequence, MessageCount: s.Count,
		FirstTimeNs: s.FirstTimeNs, LastTimeNs: s.LastTimeNs, SealTimeNs: s.SealTimeNs,
		PreviousSHA256: s.Previous, ChainSHA256: s.Chain, Signature: s.Signature,
		Topics: make([]ros2msg.RecordingSealTopic, len(s.Topics)),
	}
	for i, t := range s.Topics {
		m.Topics[i] = ros2msg.RecordingSealTopic{Topic: t.Topic, Type: t.Type, MessageCount: t.Count,
			FirstSHA256: t.First, ChainSHA256: t.Chain}
	}
	return m
}

// FromWire converts a message to a Seal, unchecked.
func FromWire(m *ros2msg.RecordingSeal) Seal {
	s := Seal{
		Version: m.Version, KeyID: m.KeyID, Index: m.SealIndex, Final: m.FinalSeal,
		FirstSequence: m.FirstSequence, LastSequence: m.LastSequence, Count: m.MessageCount,
		FirstTimeNs: m.FirstTimeNs, LastTimeNs: m.LastTimeNs, SealTimeNs: m.SealTimeNs,
		Previous: m.PreviousSHA256, Chain: m.ChainSHA256, Signature: m.Signature,
		Topics: make([]TopicDigest, len(m.Topics)),
	}
	for i, t := range m.Topics {
		s.Topics[i] = TopicDigest{Topic: t.Topic, Type: t.Type, Count: t.MessageCount, First: t.FirstSHA256, Chain: t.ChainSHA256}
	}
	return s
}

// AppendCDR appends s as a CDR-encoded ghost/msg/RecordingSeal.
func (s *Seal) AppendCDR(buf []byte) ([]byte, error) {
	m := s.ToWire()
	return m.AppendCDR(buf)
}

// Decode decodes and validates one CDR-encoded ghost/msg/RecordingSeal; the
// signature is not checked.
func Decode(data []byte) (Seal, error) {
	var m ros2msg.RecordingSeal
	if err := m.UnmarshalCDR(data); err != nil {
		return Seal{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	s := FromWire(&m)
	if err := s.Validate(); err != nil {
		return Seal{}, err
	}
	return s, nil
}
