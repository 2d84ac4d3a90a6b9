package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// A self-assessment's identity is the SHA-256 of its canonical JSON, and on
// the decision path three parties need it: the auditor's chain index, the
// binding of a decision to its rationale, and the provenance check.
// Formatting the canonical text and hashing it is most of a decision's cost,
// so it is done once, when the assessment is decoded (the session's
// decoders) or admitted (the Loop), and the hash travels beside the value.
//
// An AssessmentHash keeps a copy of the content it was computed from, and
// For compares that copy with a given assessment bit for bit (about 30 word
// comparisons): the provenance check takes the carried hash only for the
// very content it was computed from, and hashes anything else afresh. The
// hash is immutable once made, so it is shared by pointer, across
// goroutines too.

// AssessmentHash is the SHA-256 of one self-assessment's canonical JSON,
// raw and in lowercase hex, with the content it was computed from. Only
// HashAssessment makes one; the zero value and nil are the hash of nothing.
type AssessmentHash struct {
	of  decisions.SelfAssessment // the content hashed
	sum [32]byte
	hex string
}

// HashAssessment formats a's canonical JSON and hashes it, taking from memo
// what the text repeats of the previous assessment hashed with it (memo may
// be nil; the hash is the same either way).
func HashAssessment(a *decisions.SelfAssessment, memo *TextMemo) *AssessmentHash {
	var h *AssessmentHash
	if memo != nil {
		h = memo.newHash()
	} else {
		h = new(AssessmentHash)
	}
	h.of = *a
	var buf [1536]byte
	h.sum = sha256.Sum256(appendCanonicalJSON(buf[:0], a, memo))
	var hx [64]byte
	hex.Encode(hx[:], h.sum[:])
	if memo != nil {
		h.hex = memo.newHex(&hx)
	} else {
		h.hex = string(hx[:])
	}
	return h
}

// For reports whether h is the hash of a's content, floats compared bit for
// bit; false for a nil h.
func (h *AssessmentHash) For(a *decisions.SelfAssessment) bool {
	return h != nil && h.hex != "" && h.of.Equal(a)
}

// Hex returns the lowercase hex SHA-256, as a rationale carries it; "" for
// a nil h.
func (h *AssessmentHash) Hex() string {
	if h == nil {
		return ""
	}
	return h.hex
}

// Sum returns the SHA-256.
func (h *AssessmentHash) Sum() [32]byte { return h.sum }

// BeliefStampSimNs returns the belief stamp of the assessment hashed.
func (h *AssessmentHash) BeliefStampSimNs() int64 { return h.of.BeliefStampSimNs }
