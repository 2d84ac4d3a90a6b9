package decisions

import (
	"bytes"
	"math"
	"testing"
)

// fieldByFieldJSON writes an assessment's canonical JSON with every
// standard deviation formatted on its own: the reference for the writer's
// copying of values it already wrote.
func fieldByFieldJSON(a *SelfAssessment) []byte {
	block := func(b []byte, block int) []byte {
		for axis := 0; axis < 3; axis++ {
			i := block*3 + axis
			b = append(b, levelKeys[i]...)
			b = append(b, a.AxisLevel[i].String()...)
			b = append(b, stdKeys[i]...)
			b = appendOptFloat(b, a.Std[i])
		}
		b = append(b, overallKeys[block]...)
		b = append(b, a.BlockLevel[block].String()...)
		return append(b, '"')
	}
	b := append([]byte(nil), `{"belief_stamp_sim_ns":`...)
	b = appendInt(b, a.BeliefStampSimNs)
	b = append(b, `,"covariance_available":`...)
	b = appendBool(b, a.CovarianceAvailable)
	b = block(b, BlockOrientation)
	b = append(b, `,"overall_level":"`...)
	b = append(b, a.OverallLevel.String()...)
	b = append(b, '"')
	b = block(b, BlockPosition)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(a.SchemaVersion))
	b = append(b, `,"thresholds_sha256":`...)
	b = appendJSONString(b, a.ThresholdsSHA256)
	b = append(b, `,"thresholds_used":`...)
	b = a.ThresholdsUsed.appendCanonicalJSON(b)
	b = block(b, BlockVelocity)
	return append(b, '}')
}

// checkSharedStd sets a's standard deviations to std, where share[i] (mod
// i+1) names an earlier axis whose value axis i takes instead, and compares
// the canonical text with the field-by-field one, from an empty buffer and
// after a prefix (the offsets of copied values are absolute).
func checkSharedStd(t *testing.T, std [9]float64, share [9]byte) {
	t.Helper()
	a := validAssessment(t, 12345, LevelUncertain)
	for i := range std {
		a.Std[i] = std[i]
		if j := int(share[i]) % (i + 1); j != i {
			a.Std[i] = a.Std[j]
		}
	}
	want := fieldByFieldJSON(&a)
	if got := a.AppendCanonicalJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("std %v:\n got %s\nwant %s", a.Std, got, want)
	}
	prefix := []byte("0123456789")
	if got := a.AppendCanonicalJSON(prefix[:10:10]); !bytes.Equal(got[10:], want) {
		t.Fatalf("std %v after a prefix:\n got %s\nwant %s", a.Std, got[10:], want)
	}
}

func TestCanonicalJSONSharedValues(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	for _, tc := range []struct {
		std   [9]float64
		share [9]byte
	}{
		{[9]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{0.1, 0.1, 0.08, 0.3, 0.3, 0.3, 0.01, 0.01, 0.01}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{0.5}, [9]byte{0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{[9]float64{nan, nan, 1, negZero, 0, negZero, 1e16, 1e-5, math.Inf(1)}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{math.Float64frombits(0x7ff8000000000002), nan, 2}, [9]byte{0, 1, 2, 1, 0, 2, 3, 4, 5}},
	} {
		checkSharedStd(t, tc.std, tc.share)
	}
}

func FuzzCanonicalJSONSharedValues(f *testing.F) {
	f.Add(0.1, 0.1, 0.08, 0.3, 0.3, 0.3, 0.01, 0.01, 0.01, uint64(0x0807060504030201))
	f.Add(math.NaN(), 0.0, math.Copysign(0, -1), 1e16, 9.999999999999998e15, 1e-4, 9.9e-5, 123456.789, -2.5, uint64(0))
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3, s4, s5, s6, s7, s8 float64, share uint64) {
		var sh [9]byte
		for i := range sh {
			sh[i] = byte(share >> (7 * i))
		}
		checkSharedStd(t, [9]float64{s0, s1, s2, s3, s4, s5, s6, s7, s8}, sh)
	})
}
