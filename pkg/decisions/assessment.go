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
// as null. The struct is a plain comparable value. == follows Go's float
// rules (NaN differs from itself, 0.0 equals -0.0); Equal compares the
// floats bit for bit, as canonical JSON tells them apart.
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
// thresholds hash to match the thresholds.
func (a *SelfAssessment) Validate() error {
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

// AppendCanonicalJSON appends the canonical JSON of a: every field, keys
// sorted, thresholds_used nested with its own sorted keys, levels as their
// names, a none std as null.
func (a *SelfAssessment) AppendCanonicalJSON(b []byte) []byte {
	var w stdWriter
	b = append(b, `{"belief_stamp_sim_ns":`...)
	b = appendInt(b, a.BeliefStampSimNs)
	b = append(b, `,"covariance_available":`...)
	b = appendBool(b, a.CovarianceAvailable)
	b = a.appendBlock(b, BlockOrientation, &w)
	b = append(b, `,"overall_level":"`...)
	b = append(b, a.OverallLevel.String()...)
	b = append(b, '"')
	b = a.appendBlock(b, BlockPosition, &w)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(a.SchemaVersion))
	b = append(b, `,"thresholds_sha256":`...)
	b = appendJSONString(b, a.ThresholdsSHA256)
	b = append(b, `,"thresholds_used":`...)
	b = a.ThresholdsUsed.AppendCanonicalJSON(b)
	b = a.appendBlock(b, BlockVelocity, &w)
	return append(b, '}')
}

// appendBlock writes one block's keys in sorted order:
// <block>_axis_{x,y,z}_{level,std_<unit>} then <block>_overall_level.
// "level" sorts before "std", and every block's keys are contiguous.
func (a *SelfAssessment) appendBlock(b []byte, block int, w *stdWriter) []byte {
	for axis := 0; axis < 3; axis++ {
		i := block*3 + axis
		if l := a.AxisLevel[i]; l.Valid() {
			b = append(b, axisTexts[i][l]...)
		} else {
			b = append(b, levelKeys[i]...)
			b = append(b, l.String()...)
			b = append(b, stdKeys[i]...)
		}
		b = w.append(b, a.Std[i])
	}
	if l := a.BlockLevel[block]; l.Valid() {
		return append(b, overallTexts[block][l]...)
	}
	b = append(b, overallKeys[block]...)
	b = append(b, a.BlockLevel[block].String()...)
	return append(b, '"')
}

// stdWriter writes the standard deviations of one canonical text, copying
// a value it already wrote in this text rather than formatting it again:
// axes often share a value (a horizontally isotropic filter, a constant
// attitude uncertainty), and formatting floats is most of the text's cost.
// It lives for one text only; it keeps nothing between calls.
type stdWriter struct {
	n    int
	bits [9]uint64
	at   [9][2]int // the text of bits[k] is b[at[k][0]:at[k][1]]
}

func (w *stdWriter) append(b []byte, f float64) []byte {
	fb := math.Float64bits(f)
	for k := range w.n {
		if w.bits[k] == fb {
			return append(b, b[w.at[k][0]:w.at[k][1]]...)
		}
	}
	start := len(b)
	b = appendOptFloat(b, f)
	if w.n < len(w.bits) {
		w.bits[w.n], w.at[w.n] = fb, [2]int{start, len(b)}
		w.n++
	}
	return b
}

// The key fragments of appendBlock, punctuation included, built once:
// `,"<level field>":"`, `","<std field>":` and `,"<block>_overall_level":"`;
// and, for each valid level, the whole text between two standard
// deviations (axisTexts[i][level]: a level key, its level and the next std
// key) and a block's closing text (overallTexts[block][level]), each
// written with one copy.
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

var axisTexts, overallTexts = func() (axis [9][3]string, overall [3][3]string) {
	for l := range levelNames {
		for i := range axis {
			axis[i][l] = levelKeys[i] + levelNames[l] + stdKeys[i]
		}
		for b := range overall {
			overall[b][l] = overallKeys[b] + levelNames[l] + `"`
		}
	}
	return axis, overall
}()

// SHA256 returns the lowercase hex SHA-256 of a's canonical JSON: the value a
// rationale carries as self_assessment_sha256.
func (a *SelfAssessment) SHA256() string {
	var buf [1536]byte
	return hashHex(a.AppendCanonicalJSON(buf[:0]))
}

// String summarises a for logs.
func (a *SelfAssessment) String() string {
	return "self-assessment@" + strconv.FormatInt(a.BeliefStampSimNs, 10) + " overall " + a.OverallLevel.String()
}

// Equal reports whether a and o have the same content with their floats
// compared bit for bit: what canonical JSON, and so the hash, tells apart.
// It differs from == on floats only: 0.0 and -0.0 are written differently,
// and a NaN (a none std, written null) equals a NaN of the same bits.
// A field added to SelfAssessment must be added here:
// TestEqualCoversEveryField fails otherwise.
func (a *SelfAssessment) Equal(o *SelfAssessment) bool {
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
