package decisions

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"unsafe"
)

// A self-assessment's identity is the SHA-256 of its canonical JSON, and on
// the decision path three parties need it: the auditor's chain index, the
// binding of a decision to its rationale, and the Runner's provenance check.
// Formatting the canonical text and hashing it is most of a decision's cost,
// so it is done once, when the assessment is decoded or admitted, and the
// result travels with the value as a seal.
//
// A seal can never go stale: it records the exact content it was computed
// from, and every read compares that content with the value's, bit for bit
// (about 30 word comparisons). A value changed after sealing no longer
// matches its seal and is hashed afresh, exactly as if it had none. The seal
// is immutable and shared by copies, so copying an assessment stays cheap and
// safe, and a sealed value may be read from several goroutines.

// assessmentSeal is the canonical identity of one assessment content.
type assessmentSeal struct {
	of    SelfAssessment // the content hashed; its own seal is nil
	hash  string         // lowercase hex SHA-256 of of's canonical JSON, in hex
	hex   [64]byte       // hash's bytes: one allocation holds the seal and its hash
	sum   [32]byte       // the SHA-256 itself
	valid bool           // of passes Validate
}

// Seal computes a's canonical JSON and its SHA-256 once and keeps the hash
// with a, so that SHA256, the rationale binding and the Runner's provenance
// check need not format and hash it again; it validates a once too. Sealing
// changes no output: a sealed value hashes, prints and validates exactly
// like an unsealed one.
// Sealing an already sealed, unchanged value does nothing.
func (a *SelfAssessment) Seal() { a.SealWith(nil) }

// SealWith is Seal taking from memo what the canonical text repeats of the
// previous assessment sealed with it, and the seal's storage (see
// TextMemo); memo may be nil. The seal is the same either way.
func (a *SelfAssessment) SealWith(memo *TextMemo) {
	if _, ok := a.SealedSHA256(); ok {
		return
	}
	var s *assessmentSeal
	if memo != nil {
		s = memo.newSeal()
	} else {
		s = new(assessmentSeal)
	}
	s.of, s.valid = *a, a.validate() == nil
	s.of.seal = nil
	var buf [1536]byte
	sum := sha256.Sum256(a.appendCanonicalJSON(buf[:0], memo))
	s.sum = sum
	hex.Encode(s.hex[:], sum[:])
	// The string shares the seal's storage: hex is written once, here,
	// and never changed, so the string is as immutable as any other.
	s.hash = unsafe.String(&s.hex[0], len(s.hex))
	a.seal = s
}

// SealedSHA256 returns the hash Seal computed, and true, when a carries a
// seal whose content is a's current content; otherwise "" and false (then
// SHA256 computes the hash). It never hashes.
func (a *SelfAssessment) SealedSHA256() (string, bool) {
	if s := a.seal; s != nil && s.of.sameContent(a) {
		return s.hash, true
	}
	return "", false
}

// SHA256Sum returns the SHA-256 of a's canonical JSON, the bytes SHA256
// writes in hex: the sealed one when a's seal holds, else computed.
func (a *SelfAssessment) SHA256Sum() [32]byte {
	if s := a.seal; s != nil && s.of.sameContent(a) {
		return s.sum
	}
	var buf [1536]byte
	return sha256.Sum256(a.AppendCanonicalJSON(buf[:0]))
}

// Equal reports whether a and o have the same content, floats bit for bit;
// seals are not compared. (Use Equal, not ==: == also compares seals, so a
// sealed and an unsealed copy of one assessment differ under ==.)
func (a *SelfAssessment) Equal(o *SelfAssessment) bool { return a.sameContent(o) }

// sameContent compares every field but the seal, floats bit for bit (0.0
// and -0.0 are written differently; two NaNs with one payload are one value).
// A field added to SelfAssessment must be added here: TestSealCoversEveryField
// fails otherwise.
func (a *SelfAssessment) sameContent(o *SelfAssessment) bool {
	if a.BeliefStampSimNs != o.BeliefStampSimNs || a.AxisLevel != o.AxisLevel || a.BlockLevel != o.BlockLevel ||
		a.OverallLevel != o.OverallLevel || a.CovarianceAvailable != o.CovarianceAvailable ||
		a.SchemaVersion != o.SchemaVersion || a.ThresholdsSHA256 != o.ThresholdsSHA256 ||
		!a.ThresholdsUsed.sameBits(o.ThresholdsUsed) {
		return false
	}
	for i := range a.Std {
		if math.Float64bits(a.Std[i]) != math.Float64bits(o.Std[i]) {
			return false
		}
	}
	return true
}
