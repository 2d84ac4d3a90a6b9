package engine

import (
	"math"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// The canonical JSON of an assessment, written with a TextMemo: the same
// bytes as decisions.SelfAssessment.AppendCanonicalJSON, the reference
// writer, with the parts the previous assessment already wrote copied
// rather than formatted again. The contract package keeps the plain writer;
// this one is a performance device of the decision path and must never
// change a byte: TestTextMemoMatchesPlain, TestTextMemoEveryInput and the
// fuzz targets beside them compare it with the plain writer, and the golden
// self-assessment vectors pin both.

// appendCanonicalJSON appends a's canonical JSON, through memo when it is
// not nil (which then keeps this text's parts for the next one).
func appendCanonicalJSON(b []byte, a *decisions.SelfAssessment, memo *TextMemo) []byte {
	if memo == nil {
		return a.AppendCanonicalJSON(b)
	}
	m := floatMemo{last: memo}
	b = append(b, `{"belief_stamp_sim_ns":`...)
	b = strconv.AppendInt(b, a.BeliefStampSimNs, 10)
	b = append(b, `,"covariance_available":`...)
	b = strconv.AppendBool(b, a.CovarianceAvailable)
	b = appendBlockVia(b, a, decisions.BlockOrientation, &m)
	b = append(b, `,"overall_level":"`...)
	b = append(b, a.OverallLevel.String()...)
	b = append(b, '"')
	b = appendBlockVia(b, a, decisions.BlockPosition, &m)
	b = appendThresholdsVia(b, a, memo)
	b = appendBlockVia(b, a, decisions.BlockVelocity, &m)
	return append(b, '}')
}

// appendBlockVia writes one block, copying the previous text's block from
// m.last when that block's every input is the same.
func appendBlockVia(b []byte, a *decisions.SelfAssessment, block int, m *floatMemo) []byte {
	l := m.last
	key := blockKeyOf(a, block)
	seg := &l.blocks[block]
	if seg.n > 0 && seg.key == key {
		return append(b, seg.text[:seg.n]...)
	}
	start := len(b)
	b = appendBlock(b, a, block, m)
	seg.key, seg.n = key, 0
	if len(b)-start <= len(seg.text) {
		seg.n = uint16(copy(seg.text[:], b[start:]))
	}
	return b
}

// appendThresholdsVia writes schema_version, thresholds_sha256 and
// thresholds_used, copying the previous text's when last holds the same.
func appendThresholdsVia(b []byte, a *decisions.SelfAssessment, last *TextMemo) []byte {
	if last.thresholdsN > 0 && last.schema == a.SchemaVersion &&
		last.thresholdsSHA256 == a.ThresholdsSHA256 && last.thresholds == thresholdBitsOf(a.ThresholdsUsed) {
		return append(b, last.thresholdsText[:last.thresholdsN]...)
	}
	start := len(b)
	b = appendThresholds(b, a)
	last.schema, last.thresholdsSHA256, last.thresholds, last.thresholdsN = a.SchemaVersion, a.ThresholdsSHA256, thresholdBitsOf(a.ThresholdsUsed), 0
	if len(b)-start <= len(last.thresholdsText) {
		last.thresholdsN = uint16(copy(last.thresholdsText[:], b[start:]))
	}
	return b
}

func appendThresholds(b []byte, a *decisions.SelfAssessment) []byte {
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendUint(b, uint64(a.SchemaVersion), 10)
	b = append(b, `,"thresholds_sha256":`...)
	b = decisions.AppendJSONString(b, a.ThresholdsSHA256)
	b = append(b, `,"thresholds_used":`...)
	return a.ThresholdsUsed.AppendCanonicalJSON(b)
}

// thresholdBits is everything the thresholds' text is written from, floats
// by their bits (0.0 and -0.0 are written differently).
type thresholdBits struct {
	f      [6]uint64
	schema uint8
}

func thresholdBitsOf(t decisions.Thresholds) thresholdBits {
	return thresholdBits{f: [6]uint64{
		math.Float64bits(t.PositionKnownStdM), math.Float64bits(t.PositionUnknownStdM),
		math.Float64bits(t.VelocityKnownStdMps), math.Float64bits(t.VelocityUnknownStdMps),
		math.Float64bits(t.OrientationKnownStdRad), math.Float64bits(t.OrientationUnknownStdRad),
	}, schema: t.SchemaVersion}
}

// blockKey is everything a block's text is written from.
type blockKey struct {
	std   [3]uint64 // bits
	level [3]decisions.Level
	block decisions.Level
}

func blockKeyOf(a *decisions.SelfAssessment, block int) blockKey {
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
func appendBlock(b []byte, a *decisions.SelfAssessment, block int, m *floatMemo) []byte {
	for axis := 0; axis < 3; axis++ {
		i := block*3 + axis
		if l := a.AxisLevel[i]; l.Valid() {
			b = append(b, axisTexts[i][l]...)
		} else {
			b = append(b, levelKeys[i]...)
			b = append(b, l.String()...)
			b = append(b, stdKeys[i]...)
		}
		b = m.appendOptFloat(b, a.Std[i], i)
	}
	if l := a.BlockLevel[block]; l.Valid() {
		return append(b, overallTexts[block][l]...)
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
	last *TextMemo // the previous text's values, by axis
}

// appendOptFloat writes the standard deviation f of axis (null for none)
// into the text b that m describes.
func (m *floatMemo) appendOptFloat(b []byte, f float64, axis int) []byte {
	fb := math.Float64bits(f)
	for k := range m.n {
		if m.bits[k] == fb {
			text := b[m.at[k][0]:m.at[k][1]]
			if l := m.last; l.n[axis] == 0 || l.bits[axis] != fb {
				l.remember(axis, fb, text)
			}
			return append(b, text...)
		}
	}
	start := len(b)
	if l := m.last; l.n[axis] > 0 && l.bits[axis] == fb {
		b = append(b, l.text[axis][:l.n[axis]]...)
	} else {
		b = appendOptFloat(b, f)
		l.remember(axis, fb, b[start:])
	}
	if m.n < len(m.bits) {
		m.bits[m.n], m.at[m.n] = fb, [2]int{start, len(b)}
		m.n++
	}
	return b
}

// appendOptFloat writes a standard deviation as canonical JSON does: none
// (NaN) as null.
func appendOptFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) {
		return append(b, "null"...)
	}
	return decisions.AppendFloat(b, f)
}

// A TextMemo keeps parts of the last canonical text hashed with it
// (HashAssessment), so that the next one copies what it repeats rather
// than writing it again: each block's text with everything it was written
// from, the thresholds' text, and each standard deviation's text by axis,
// for a block of which only some values changed. Formatting floats is most
// of a canonical text's cost, and an estimator holds a variance over
// several beliefs when it updates it less often than its state (in a real
// PX4 log and in sim, about 4 values in 5 repeat the previous belief's on
// the same axis); the thresholds are those of the whole run. Every key is
// the exact input of its text (floats by their bits), so the text is the
// same either way. It also holds storage for the hashes made with it,
// allocated for many at once. The zero value is ready; one memo serves one
// goroutine.
type TextMemo struct {
	bits [9]uint64
	n    [9]uint8 // the length of text[axis]; 0 for none
	text [9][maxFloatText]byte

	blocks [3]blockText // by block index

	schema           uint8
	thresholdsSHA256 string
	thresholds       thresholdBits
	thresholdsN      uint16 // the length of thresholdsText; 0 for none
	thresholdsText   [maxThresholdsText]byte

	hashes []AssessmentHash // storage for the next hashes
	hexes  strings.Builder  // and for their hex strings
}

// newHash returns storage for one hash, zero, taken from a block the memo
// allocated for many: one allocation per hashSlab hashes rather than one
// each. A block stays alive while any of its hashes does.
func (l *TextMemo) newHash() *AssessmentHash {
	if len(l.hashes) == 0 {
		l.hashes = make([]AssessmentHash, hashSlab)
	}
	h := &l.hashes[0]
	l.hashes = l.hashes[1:]
	return h
}

const hashSlab = 64

// newHex returns hx as a string whose storage is shared with the strings
// of up to hashSlab-1 other hashes: one allocation for many. A Builder
// only ever appends, so the bytes of every string it returned stay as they
// were; once full it is replaced, and the old storage lives while any of
// its strings does.
func (l *TextMemo) newHex(hx *[64]byte) string {
	if l.hexes.Cap()-l.hexes.Len() < len(hx) {
		l.hexes = strings.Builder{}
		l.hexes.Grow(hashSlab * len(hx))
	}
	l.hexes.Write(hx[:])
	s := l.hexes.String()
	return s[len(s)-len(hx):]
}

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

// The key fragments of appendBlock, punctuation included, as the contract
// names the fields (BeliefSelfAssessment.msg): `,"<level field>":"`,
// `","<std field>":` and `,"<block>_overall_level":"`; and, for each valid
// level, the whole text between two standard deviations
// (axisTexts[i][level]) and a block's closing text
// (overallTexts[block][level]), each written with one copy.
var levelKeys, stdKeys, overallKeys = func() (level, std [9]string, overall [3]string) {
	blocks := [3]string{"position", "velocity", "orientation"}
	axes := [3]string{"x", "y", "z"}
	units := [3]string{"m", "mps", "rad"}
	for i := range level {
		field := blocks[i/3] + "_axis_" + axes[i%3]
		level[i] = `,"` + field + `_level":"`
		std[i] = `","` + field + `_std_` + units[i/3] + `":`
	}
	for b := range overall {
		overall[b] = `,"` + blocks[b] + `_overall_level":"`
	}
	return level, std, overall
}()

var axisTexts, overallTexts = func() (axis [9][3]string, overall [3][3]string) {
	for _, l := range []decisions.Level{decisions.LevelKnown, decisions.LevelUncertain, decisions.LevelUnknown} {
		for i := range axis {
			axis[i][l] = levelKeys[i] + l.String() + stdKeys[i]
		}
		for b := range overall {
			overall[b][l] = overallKeys[b] + l.String() + `"`
		}
	}
	return axis, overall
}()
