package decisions

import (
	"math"
	"sync/atomic"
)

// SchemaVersion is the only schema version of every contract in this package.
const SchemaVersion = 1

// Thresholds are the operator-chosen bounds that classify a declared standard
// deviation (ADR-0020): std <= known is KNOWN, std >= unknown is UNKNOWN,
// anything in between UNCERTAIN. Fields mirror AssessmentThresholds.msg.
type Thresholds struct {
	PositionKnownStdM        float64
	PositionUnknownStdM      float64
	VelocityKnownStdMps      float64
	VelocityUnknownStdMps    float64
	OrientationKnownStdRad   float64
	OrientationUnknownStdRad float64
	SchemaVersion            uint8
}

// Block returns the (known, unknown) pair for block 0 (position), 1
// (velocity) or 2 (orientation).
func (t Thresholds) Block(block int) (known, unknown float64) {
	switch block {
	case 0:
		return t.PositionKnownStdM, t.PositionUnknownStdM
	case 1:
		return t.VelocityKnownStdMps, t.VelocityUnknownStdMps
	default:
		return t.OrientationKnownStdRad, t.OrientationUnknownStdRad
	}
}

// Validate applies ADR-0020: six finite values > 0, known < unknown in each
// block, schema_version 1.
func (t Thresholds) Validate() error {
	// Every context carries thresholds: the common case, valid, is
	// checked without building the field names an error needs.
	if t.SchemaVersion == SchemaVersion && validPair(t.PositionKnownStdM, t.PositionUnknownStdM) &&
		validPair(t.VelocityKnownStdMps, t.VelocityUnknownStdMps) && validPair(t.OrientationKnownStdRad, t.OrientationUnknownStdRad) {
		return nil
	}
	values := [6]struct {
		name string
		v    float64
	}{
		{"position_known_std_m", t.PositionKnownStdM},
		{"position_unknown_std_m", t.PositionUnknownStdM},
		{"velocity_known_std_mps", t.VelocityKnownStdMps},
		{"velocity_unknown_std_mps", t.VelocityUnknownStdMps},
		{"orientation_known_std_rad", t.OrientationKnownStdRad},
		{"orientation_unknown_std_rad", t.OrientationUnknownStdRad},
	}
	for _, f := range values {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v <= 0 {
			return invalid("AssessmentThresholds", f.name, f.v, "must be finite and > 0")
		}
	}
	for i := 0; i < 6; i += 2 {
		if values[i].v >= values[i+1].v {
			return invalid("AssessmentThresholds", values[i].name, values[i].v,
				"must be < "+values[i+1].name+" ("+FormatFloat(values[i+1].v)+")")
		}
	}
	if t.SchemaVersion != SchemaVersion {
		return invalid("AssessmentThresholds", "schema_version", t.SchemaVersion, "must be 1")
	}
	return nil
}

// validPair reports whether known and unknown are finite, > 0 and in
// order: what Validate requires of each block.
func validPair(known, unknown float64) bool {
	return known > 0 && known < unknown && unknown <= math.MaxFloat64
}

// AppendCanonicalJSON appends the canonical JSON of t (keys sorted, no
// whitespace, floats as Python repr).
func (t Thresholds) AppendCanonicalJSON(b []byte) []byte {
	// Every assessment of a run carries the same thresholds, and their six
	// floats are a third of an assessment's formatting work: remember the
	// last text. The cache changes no output (bitwise key), only its cost.
	if c := lastThresholds.Load(); c != nil && c.t.sameBits(t) {
		return append(b, c.json...)
	}
	start := len(b)
	b = t.appendCanonicalJSON(b)
	lastThresholds.Store(&thresholdsText{t: t, json: append([]byte(nil), b[start:]...)})
	return b
}

// thresholdsText is a Thresholds value with its canonical JSON.
type thresholdsText struct {
	t    Thresholds
	json []byte
}

var lastThresholds atomic.Pointer[thresholdsText]

// sameBits compares bit for bit: 0.0 and -0.0 are written differently.
func (t Thresholds) sameBits(o Thresholds) bool {
	return sameFloat(t.PositionKnownStdM, o.PositionKnownStdM) && sameFloat(t.PositionUnknownStdM, o.PositionUnknownStdM) &&
		sameFloat(t.VelocityKnownStdMps, o.VelocityKnownStdMps) && sameFloat(t.VelocityUnknownStdMps, o.VelocityUnknownStdMps) &&
		sameFloat(t.OrientationKnownStdRad, o.OrientationKnownStdRad) && sameFloat(t.OrientationUnknownStdRad, o.OrientationUnknownStdRad) &&
		t.SchemaVersion == o.SchemaVersion
}

func (t Thresholds) appendCanonicalJSON(b []byte) []byte {
	b = append(b, `{"orientation_known_std_rad":`...)
	b = appendPyFloat(b, t.OrientationKnownStdRad)
	b = append(b, `,"orientation_unknown_std_rad":`...)
	b = appendPyFloat(b, t.OrientationUnknownStdRad)
	b = append(b, `,"position_known_std_m":`...)
	b = appendPyFloat(b, t.PositionKnownStdM)
	b = append(b, `,"position_unknown_std_m":`...)
	b = appendPyFloat(b, t.PositionUnknownStdM)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(t.SchemaVersion))
	b = append(b, `,"velocity_known_std_mps":`...)
	b = appendPyFloat(b, t.VelocityKnownStdMps)
	b = append(b, `,"velocity_unknown_std_mps":`...)
	b = appendPyFloat(b, t.VelocityUnknownStdMps)
	return append(b, '}')
}

// SHA256 returns the lowercase hex SHA-256 of the canonical JSON of t: the
// value a self-assessment carries as thresholds_sha256.
func (t Thresholds) SHA256() string {
	var buf [256]byte
	return hashHex(t.AppendCanonicalJSON(buf[:0]))
}
