package decisions

import (
	"math"
	"strconv"
)

// Block and axis indices of a self-assessment: Std and AxisLevel are indexed
// by block*3 + axis, BlockLevel by block.
const (
	BlockPosition    = 0
	BlockVelocity    = 1
	BlockOrientation = 2

	AxisX = 0
	AxisY = 1
	AxisZ = 2
)

// SelfAssessment is the agent's classificatory claim about what its belief
// declares to know (ADR-0020), one per belief stamp; its fields mirror
// BeliefSelfAssessment.msg.
//
// A standard deviation that is "none" (no covariance, or a negative or
// non-finite diagonal entry) is NaN, as on the wire; canonical JSON writes it
// as null. The struct is a plain value: copying it copies everything,
// including the immutable seal (see Seal) that caches its hash. Compare
// assessments with Equal.
type SelfAssessment struct {
	// BeliefStampSimNs is the stamp of the VehicleState this assessment describes.
	BeliefStampSimNs int64
	// Std holds the per-axis standard deviations, index block*3+axis
	// (position x,y,z in m; velocity x,y,z in m/s; orientation x,y,z in rad).
	Std [9]float64
	// AxisLevel holds the per-axis levels, indexed like Std.
	AxisLevel [9]Level
	// BlockLevel holds the position, velocity and orientation overall levels.
	BlockLevel [3]Level
	// OverallLevel is the worst of the three blocks.
	OverallLevel Level
	// ThresholdsUsed are the thresholds that produced the levels, inline.
	ThresholdsUsed Thresholds
	// ThresholdsSHA256 is the claimed SHA-256 of ThresholdsUsed' canonical JSON.
	ThresholdsSHA256 string
	// CovarianceAvailable says whether the belief carried a covariance at all.
	CovarianceAvailable bool
	// SchemaVersion is 1.
	SchemaVersion uint8

	// seal caches the canonical hash of this very content (see Seal); nil
	// until sealed, ignored whenever the content differs from the sealed one.
	seal *assessmentSeal
}

var blockNames = [3]string{"position", "velocity", "orientation"}
var axisNames = [3]string{"x", "y", "z"}
var blockUnits = [3]string{"m", "mps", "rad"}

// The .msg field names of Std[i] (e.g. "velocity_axis_y_std_mps") and
// AxisLevel[i], built once so canonical JSON does not allocate them.
var stdFields, levelFields = func() (std, level [9]string) {
	for i := range std {
		std[i] = blockNames[i/3] + "_axis_" + axisNames[i%3] + "_std_" + blockUnits[i/3]
		level[i] = blockNames[i/3] + "_axis_" + axisNames[i%3] + "_level"
	}
	return std, level
}()

func stdField(i int) string   { return stdFields[i] }
func levelField(i int) string { return levelFields[i] }

// Validate applies the reference's validation: belief stamp >= 0, valid
// thresholds, thresholds_sha256 of 64 lowercase hex characters, schema
// version 1, every level in range. Like the reference it does not require
// the levels to follow from the standard deviations, nor the claimed
// thresholds hash to match the thresholds: Consistency reports those.
func (a *SelfAssessment) Validate() error {
	// A seal records whether its content was valid: the Loop validates an
	// assessment when it admits it and again in its decision's context.
	if s := a.seal; s != nil && s.valid && s.of.sameContent(a) {
		return nil
	}
	return a.validate()
}

func (a *SelfAssessment) validate() error {
	if a.BeliefStampSimNs < 0 {
		return invalid("BeliefSelfAssessment", "belief_stamp_sim_ns", a.BeliefStampSimNs, "must be >= 0")
	}
	for i, l := range a.AxisLevel {
		if !l.Valid() {
			return invalid("BeliefSelfAssessment", levelField(i), uint8(l), "must be 0 (known), 1 (uncertain) or 2 (unknown)")
		}
	}
	for b, l := range a.BlockLevel {
		if !l.Valid() {
			return invalid("BeliefSelfAssessment", blockNames[b]+"_overall_level", uint8(l), "must be 0 (known), 1 (uncertain) or 2 (unknown)")
		}
	}
	if !a.OverallLevel.Valid() {
		return invalid("BeliefSelfAssessment", "overall_level", uint8(a.OverallLevel), "must be 0 (known), 1 (uncertain) or 2 (unknown)")
	}
	if err := a.ThresholdsUsed.Validate(); err != nil {
		return err
	}
	if !isSHA256Hex(a.ThresholdsSHA256) {
		return invalid("BeliefSelfAssessment", "thresholds_sha256", a.ThresholdsSHA256, "must be 64 lowercase hex characters")
	}
	if a.SchemaVersion != SchemaVersion {
		return invalid("BeliefSelfAssessment", "schema_version", a.SchemaVersion, "must be 1")
	}
	return nil
}

// Inconsistency is something a self-assessment claims that its own content
// contradicts, but that the reference accepts (so hashes and decisions stay
// identical to it). Auditors and diagnostics report them.
type Inconsistency struct {
	Field  string // .msg field name
	Detail string // what disagrees with what
}

// Consistency lists what the reference tolerates but an auditor should see:
// an axis level that does not follow from its std and the thresholds, a block
// or overall level that is not the worst of its parts, a thresholds_sha256
// that is not the hash of thresholds_used, covariance_available disagreeing
// with the presence of standard deviations (false while some std is given;
// true with every std none is what a covariance of non-finite or negative
// diagonal entries produces, so it is not reported). The list is empty for anything
// Assess produced. Call it on a valid assessment.
func (a *SelfAssessment) Consistency() []Inconsistency {
	var out []Inconsistency
	for i, std := range a.Std {
		known, unknown := a.ThresholdsUsed.Block(i / 3)
		if want := classify(std, known, unknown); want != a.AxisLevel[i] {
			out = append(out, Inconsistency{levelField(i),
				"claims " + a.AxisLevel[i].String() + " but " + stdField(i) + " " + FormatFloat(std) + " classifies as " + want.String()})
		}
	}
	for b := 0; b < 3; b++ {
		if w := Worst(a.AxisLevel[3*b], a.AxisLevel[3*b+1], a.AxisLevel[3*b+2]); w != a.BlockLevel[b] {
			out = append(out, Inconsistency{blockNames[b] + "_overall_level",
				"claims " + a.BlockLevel[b].String() + " but the worst of its axes is " + w.String()})
		}
	}
	if w := Worst(a.BlockLevel[:]...); w != a.OverallLevel {
		out = append(out, Inconsistency{"overall_level",
			"claims " + a.OverallLevel.String() + " but the worst of its blocks is " + w.String()})
	}
	if h := a.ThresholdsUsed.SHA256(); h != a.ThresholdsSHA256 {
		out = append(out, Inconsistency{"thresholds_sha256", "claims " + a.ThresholdsSHA256 + " but thresholds_used hashes to " + h})
	}
	anyStd := false
	for _, s := range a.Std {
		if !math.IsNaN(s) {
			anyStd = true
		}
	}
	if anyStd && !a.CovarianceAvailable {
		out = append(out, Inconsistency{"covariance_available", "false, yet standard deviations are present"})
	}
	return out
}

// AppendCanonicalJSON appends the canonical JSON of a: every field, keys
// sorted, thresholds_used nested with its own sorted keys, levels as their
// names, a none std as null.
func (a *SelfAssessment) AppendCanonicalJSON(b []byte) []byte { return a.appendCanonicalJSON(b, nil) }

// appendCanonicalJSON is AppendCanonicalJSON taking the standard
// deviations the previous text wrote from last, when not nil, and leaving
// this text's there.
func (a *SelfAssessment) appendCanonicalJSON(b []byte, last *TextMemo) []byte {
	m := floatMemo{last: last}
	b = append(b, `{"belief_stamp_sim_ns":`...)
	b = appendInt(b, a.BeliefStampSimNs)
	b = append(b, `,"covariance_available":`...)
	b = appendBool(b, a.CovarianceAvailable)
	b = a.appendBlockVia(b, BlockOrientation, &m)
	b = append(b, `,"overall_level":"`...)
	b = append(b, a.OverallLevel.String()...)
	b = append(b, '"')
	b = a.appendBlockVia(b, BlockPosition, &m)
	b = a.appendThresholdsVia(b, last)
	b = a.appendBlockVia(b, BlockVelocity, &m)
	return append(b, '}')
}

// appendBlockVia is appendBlock, copying the previous text's block from
// m.last when that block's every input is the same.
func (a *SelfAssessment) appendBlockVia(b []byte, block int, m *floatMemo) []byte {
	l := m.last
	if l == nil {
		return a.appendBlock(b, block, m)
	}
	key := a.blockKey(block)
	seg := &l.blocks[block]
	if seg.n > 0 && seg.key == key {
		return append(b, seg.text[:seg.n]...)
	}
	start := len(b)
	b = a.appendBlock(b, block, m)
	seg.key, seg.n = key, 0
	if len(b)-start <= len(seg.text) {
		seg.n = uint16(copy(seg.text[:], b[start:]))
	}
	return b
}

// appendThresholdsVia writes schema_version, thresholds_sha256 and
// thresholds_used, copying the previous text's when last holds the same.
func (a *SelfAssessment) appendThresholdsVia(b []byte, last *TextMemo) []byte {
	if last != nil && last.thresholdsN > 0 && last.schema == a.SchemaVersion &&
		last.thresholdsSHA256 == a.ThresholdsSHA256 && last.thresholds.sameBits(a.ThresholdsUsed) {
		return append(b, last.thresholdsText[:last.thresholdsN]...)
	}
	start := len(b)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(a.SchemaVersion))
	b = append(b, `,"thresholds_sha256":`...)
	b = appendJSONString(b, a.ThresholdsSHA256)
	b = append(b, `,"thresholds_used":`...)
	b = a.ThresholdsUsed.AppendCanonicalJSON(b)
	if last != nil {
		last.schema, last.thresholdsSHA256, last.thresholds, last.thresholdsN = a.SchemaVersion, a.ThresholdsSHA256, a.ThresholdsUsed, 0
		if len(b)-start <= len(last.thresholdsText) {
			last.thresholdsN = uint16(copy(last.thresholdsText[:], b[start:]))
		}
	}
	return b
}

// blockKey is everything a block's text is written from.
type blockKey struct {
	std   [3]uint64 // bits
	level [3]Level
	block Level
}

func (a *SelfAssessment) blockKey(block int) blockKey {
	k := blockKey{block: a.BlockLevel[block]}
	for axis := range 3 {
		i := block*3 + axis
		k.std[axis] = math.Float64bits(a.Std[i])
		k.level[axis] = a.AxisLevel[i]
	}
	return k
}

// appendBlock writes one block's keys in sorted order:
// <block>_axis_{x,y,z}_{level,std_<unit>} then <block>_overall_level.
// "level" sorts before "std", and every block's keys are contiguous.
func (a *SelfAssessment) appendBlock(b []byte, block int, m *floatMemo) []byte {
	for axis := 0; axis < 3; axis++ {
		i := block*3 + axis
		b = append(b, levelKeys[i]...)
		b = append(b, a.AxisLevel[i].String()...)
		b = append(b, stdKeys[i]...)
		b = m.appendOptFloat(b, a.Std[i], i)
	}
	b = append(b, overallKeys[block]...)
	b = append(b, a.BlockLevel[block].String()...)
	return append(b, '"')
}

// floatMemo remembers where the standard deviations already written into
// one canonical text are: a value with the same bits is written the same
// way, so it is copied rather than formatted again. Axes of one block often
// share a value (a horizontally isotropic filter, a constant attitude
// uncertainty), and formatting a float is most of the text's cost.
type floatMemo struct {
	n    int
	bits [9]uint64
	at   [9][2]int // the text of bits[k] is b[at[k][0]:at[k][1]]
	last *TextMemo // the previous text's values, by axis; nil for none
}

// appendOptFloat is appendOptFloat, for axis, for the text b that m
// describes.
func (m *floatMemo) appendOptFloat(b []byte, f float64, axis int) []byte {
	fb := math.Float64bits(f)
	for k := range m.n {
		if m.bits[k] == fb {
			text := b[m.at[k][0]:m.at[k][1]]
			if l := m.last; l != nil && (l.n[axis] == 0 || l.bits[axis] != fb) {
				l.remember(axis, fb, text)
			}
			return append(b, text...)
		}
	}
	start := len(b)
	if l := m.last; l != nil && l.n[axis] > 0 && l.bits[axis] == fb {
		b = append(b, l.text[axis][:l.n[axis]]...)
	} else {
		b = appendOptFloat(b, f)
		if l != nil {
			l.remember(axis, fb, b[start:])
		}
	}
	if m.n < len(m.bits) {
		m.bits[m.n], m.at[m.n] = fb, [2]int{start, len(b)}
		m.n++
	}
	return b
}

// A TextMemo keeps parts of the last canonical text sealed with it
// (SealWith), so that the next one copies what it repeats rather than
// writing it again: each block's text with everything it was written from,
// the thresholds' text, and each standard deviation's text by axis, for a
// block of which only some values changed. Formatting floats is most of a
// canonical text's cost, and an estimator holds a variance over several
// beliefs when it updates it less often than its state (in a real PX4 log
// and in sim, about 4 values in 5 repeat the previous belief's on the same
// axis); the thresholds are those of the whole run. Every key is the exact
// input of its text (floats by their bits), so the text is the same either
// way. It also holds storage for the seals made with it, allocated for
// many at once. The zero value is ready; one memo serves one goroutine.
type TextMemo struct {
	bits [9]uint64
	n    [9]uint8 // the length of text[axis]; 0 for none
	text [9][maxFloatText]byte

	blocks [3]blockText // by block index

	schema           uint8
	thresholdsSHA256 string
	thresholds       Thresholds
	thresholdsN      uint16 // the length of thresholdsText; 0 for none
	thresholdsText   [maxThresholdsText]byte

	seals []assessmentSeal // storage for the next seals
}

// newSeal returns storage for one seal, zero, taken from a block the memo
// allocated for many: one allocation per sealSlab seals rather than one
// each. A block stays alive while any of its seals does.
func (l *TextMemo) newSeal() *assessmentSeal {
	if len(l.seals) == 0 {
		l.seals = make([]assessmentSeal, sealSlab)
	}
	s := &l.seals[0]
	l.seals = l.seals[1:]
	return s
}

const sealSlab = 64

// blockText is one block's text and what it was written from.
type blockText struct {
	key  blockKey
	n    uint16 // the length of text; 0 for none
	text [maxBlockText]byte
}

// maxBlockText and maxThresholdsText bound what a TextMemo keeps: a block
// of the longest floats and levels takes 323 bytes, the thresholds part
// with a hash of 64 characters 457 (TestTextMemoBounds); a longer text (an
// invalid hash) is written afresh each time.
const (
	maxBlockText      = 352
	maxThresholdsText = 512
)

// maxFloatText bounds what a TextMemo keeps: the longest text of a
// float64, "-2.2250738585072014e-308", is 24 bytes.
const maxFloatText = 24

func (l *TextMemo) remember(axis int, bits uint64, text []byte) {
	if len(text) > maxFloatText {
		l.n[axis] = 0
		return
	}
	l.bits[axis], l.n[axis] = bits, uint8(copy(l.text[axis][:], text))
}

// The key fragments of appendBlock, punctuation included, built once:
// `,"<level field>":"`, `","<std field>":` and `,"<block>_overall_level":"`.
var levelKeys, stdKeys, overallKeys = func() (level, std [9]string, overall [3]string) {
	for i := range level {
		level[i] = `,"` + levelField(i) + `":"`
		std[i] = `","` + stdField(i) + `":`
	}
	for b := range overall {
		overall[b] = `,"` + blockNames[b] + `_overall_level":"`
	}
	return level, std, overall
}()

// CanonicalJSON returns the canonical JSON of a.
func (a *SelfAssessment) CanonicalJSON() []byte { return a.AppendCanonicalJSON(make([]byte, 0, 1536)) }

// SHA256 returns the lowercase hex SHA-256 of a's canonical JSON: the value a
// rationale carries as self_assessment_sha256.
func (a *SelfAssessment) SHA256() string {
	if h, ok := a.SealedSHA256(); ok {
		return h
	}
	var buf [1536]byte
	return hashHex(a.AppendCanonicalJSON(buf[:0]))
}

// String summarises a for logs.
func (a *SelfAssessment) String() string {
	return "self-assessment@" + strconv.FormatInt(a.BeliefStampSimNs, 10) + " overall " + a.OverallLevel.String()
}
