package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// plainCanonicalJSON is the contract's own writer: the memo must never
// change a byte of it.
func plainCanonicalJSON(a *decisions.SelfAssessment) []byte { return a.AppendCanonicalJSON(nil) }

func hashHex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// memoAssessment is a valid uncertain assessment with distinct standard
// deviations, as an estimator's covariance gives them.
func memoAssessment(t testing.TB, stamp int64) decisions.SelfAssessment {
	t.Helper()
	cov := make([]float64, decisions.CovarianceLen)
	for i, s := range []float64{0.5, 0.2, 0.3, 0.04, 0.05, 0.06, 0.007, 0.008, 0.009} {
		cov[i*decisions.CovarianceDim+i] = s * s
	}
	a, err := decisions.Assess(stamp, cov, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkMemoCanonical sets a's standard deviations to std, where share[i]
// (mod i+1) names an earlier axis whose value axis i takes instead (itself:
// its own), and compares the canonical text written through a fresh memo
// with the plain one, from an empty buffer and from one with a prefix (the
// memo's offsets within one text are absolute).
func checkMemoCanonical(t *testing.T, std [9]float64, share [9]byte) {
	t.Helper()
	a := memoAssessment(t, 12345)
	for i := range std {
		a.Std[i] = std[i]
		if j := int(share[i]) % (i + 1); j != i {
			a.Std[i] = a.Std[j]
		}
	}
	want := plainCanonicalJSON(&a)
	if got := appendCanonicalJSON(nil, &a, &TextMemo{}); !bytes.Equal(got, want) {
		t.Fatalf("std %v:\n got %s\nwant %s", a.Std, got, want)
	}
	prefix := []byte("0123456789")
	if got := appendCanonicalJSON(prefix[:10:10], &a, &TextMemo{}); !bytes.Equal(got[10:], want) {
		t.Fatalf("std %v after a prefix:\n got %s\nwant %s", a.Std, got[10:], want)
	}
}

func TestCanonicalMemoMatchesPlain(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	for _, tc := range []struct {
		std   [9]float64
		share [9]byte
	}{
		{[9]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{0.1, 0.1, 0.08, 0.3, 0.3, 0.3, 0.01, 0.01, 0.01}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{0.5}, [9]byte{0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{[9]float64{nan, nan, 1, negZero, 0, negZero, 1e16, 1e-5, math.Inf(1)}, [9]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{[9]float64{math.Float64frombits(0x7ff8000000000001), nan, 2}, [9]byte{0, 1, 2, 1, 0, 2, 3, 4, 5}},
	} {
		checkMemoCanonical(t, tc.std, tc.share)
	}
}

func FuzzCanonicalMemo(f *testing.F) {
	f.Add(0.1, 0.1, 0.08, 0.3, 0.3, 0.3, 0.01, 0.01, 0.01, uint64(0x0807060504030201))
	f.Add(math.NaN(), 0.0, math.Copysign(0, -1), 1e16, 9.999999999999998e15, 1e-4, 9.9e-5, 123456.789, -2.5, uint64(0))
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3, s4, s5, s6, s7, s8 float64, share uint64) {
		var sh [9]byte
		for i := range sh {
			sh[i] = byte(share >> (7 * i))
		}
		checkMemoCanonical(t, [9]float64{s0, s1, s2, s3, s4, s5, s6, s7, s8}, sh)
	})
}

// checkTextMemo writes the canonical text of assessments with the standard
// deviations of each row in turn, through one TextMemo, and compares each
// with the plain text; the hash through the memo must be the plain one too.
func checkTextMemo(t *testing.T, rows ...[9]float64) {
	t.Helper()
	var memo TextMemo
	for k, std := range rows {
		a := memoAssessment(t, int64(k))
		a.Std = std
		checkMemoText(t, &memo, &a, fmt.Sprintf("row %d, std %v", k, std))
	}
}

// checkMemoText writes a's canonical text through memo, after a prefix
// (the memo's offsets are its own), and hashes a with it; both must be the
// plain text's.
func checkMemoText(t *testing.T, memo *TextMemo, a *decisions.SelfAssessment, what string) {
	t.Helper()
	want := plainCanonicalJSON(a)
	if got := appendCanonicalJSON([]byte("prefix"), a, memo); !bytes.Equal(got[6:], want) {
		t.Fatalf("%s:\n got %s\nwant %s", what, got[6:], want)
	}
	h := HashAssessment(a, memo)
	if sum := h.Sum(); h.Hex() != hashHex(want) || hex.EncodeToString(sum[:]) != hashHex(want) || !h.For(a) {
		t.Fatalf("%s: hashed with the memo %q, want %q", what, h.Hex(), hashHex(want))
	}
}

func TestTextMemoMatchesPlain(t *testing.T) {
	nan, nan1, negZero := math.NaN(), math.Float64frombits(0x7ff8000000000001), math.Copysign(0, -1)
	longest := -math.SmallestNonzeroFloat64 * (1 << 52) // -2.2250738585072014e-308
	checkTextMemo(t,
		[9]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9},
		[9]float64{0.1, 0.2, 0.31, 0.4, 0.5, 0.6, 0.7, 0.8, 0.91}, // two change
		[9]float64{0.2, 0.1, 0.31, 0.4, 0.4, 0.4, 0.7, 0.8, 0.91}, // swapped, shared
		[9]float64{0, negZero, nan, nan1, nan, 0, negZero, 1e16, 1e-5},
		[9]float64{negZero, 0, nan1, nan, nan1, negZero, 0, 9.999999999999998e15, 1e-4},
		[9]float64{longest, -math.MaxFloat64, longest, math.Inf(1), math.Inf(-1), longest, 1, 1, 1},
		[9]float64{longest, -math.MaxFloat64, 2, math.Inf(1), math.Inf(-1), 3, 1, 1, 1},
	)
}

func FuzzTextMemo(f *testing.F) {
	f.Add(0.1, 0.1, 0.08, 0.3, 0.3, 0.3, 0.01, 0.01, 0.01, uint64(0x0807060504030201), uint16(0x1f0))
	f.Add(math.NaN(), 0.0, math.Copysign(0, -1), 1e16, 9.999999999999998e15, 1e-4, 9.9e-5, 123456.789, -2.5, uint64(0), uint16(0x155))
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3, s4, s5, s6, s7, s8 float64, share uint64, keep uint16) {
		// The second row keeps the first's value where keep has a bit,
		// and takes another axis's value, or its negation, elsewhere.
		first := [9]float64{s0, s1, s2, s3, s4, s5, s6, s7, s8}
		var second [9]float64
		for i := range second {
			switch j := int(share>>(7*i)) % 9; {
			case keep&(1<<i) != 0:
				second[i] = first[i]
			case j%2 == 0:
				second[i] = first[j]
			default:
				second[i] = -first[j]
			}
		}
		checkTextMemo(t, first, second, first)
	})
}

// memoMutations change one input of a canonical text each, so that a
// TextMemo keyed on less than all of a part's inputs copies a stale part.
var memoMutations = func() []func(a *decisions.SelfAssessment) {
	var out []func(a *decisions.SelfAssessment)
	for i := range 9 {
		out = append(out,
			func(a *decisions.SelfAssessment) { a.AxisLevel[i] = (a.AxisLevel[i] + 1) % 3 },
			func(a *decisions.SelfAssessment) { a.Std[i] = math.Copysign(a.Std[i], -1) },
			func(a *decisions.SelfAssessment) { a.Std[i] = math.Float64frombits(math.Float64bits(a.Std[i]) + 1) },
			func(a *decisions.SelfAssessment) { a.Std[i] = math.NaN() },
			func(a *decisions.SelfAssessment) { a.AxisLevel[i] = decisions.Level(200) }, // invalid: its text is longest
		)
	}
	for b := range 3 {
		out = append(out, func(a *decisions.SelfAssessment) { a.BlockLevel[b] = (a.BlockLevel[b] + 1) % 3 })
	}
	thr := []func(t *decisions.Thresholds){
		func(t *decisions.Thresholds) { t.PositionKnownStdM = math.Nextafter(t.PositionKnownStdM, 1) },
		func(t *decisions.Thresholds) { t.PositionUnknownStdM = -t.PositionUnknownStdM },
		func(t *decisions.Thresholds) { t.VelocityKnownStdMps = 0 },
		func(t *decisions.Thresholds) { t.VelocityUnknownStdMps = math.Inf(1) },
		func(t *decisions.Thresholds) { t.OrientationKnownStdRad = math.Copysign(0, -1) },
		func(t *decisions.Thresholds) { t.OrientationUnknownStdRad *= 3 },
		func(t *decisions.Thresholds) { t.SchemaVersion++ },
	}
	for _, m := range thr {
		out = append(out, func(a *decisions.SelfAssessment) { m(&a.ThresholdsUsed) })
	}
	return append(out,
		func(a *decisions.SelfAssessment) { a.OverallLevel = (a.OverallLevel + 2) % 3 },
		func(a *decisions.SelfAssessment) { a.CovarianceAvailable = !a.CovarianceAvailable },
		func(a *decisions.SelfAssessment) { a.SchemaVersion++ },
		func(a *decisions.SelfAssessment) { a.BeliefStampSimNs = -a.BeliefStampSimNs - 1 },
		func(a *decisions.SelfAssessment) { a.ThresholdsSHA256 = strings.Repeat("f", 64) },
		func(a *decisions.SelfAssessment) { a.ThresholdsSHA256 = strings.Repeat("\"\x01é", 300) }, // longer than the memo keeps
	)
}()

// checkTextMemoMutations writes, through one TextMemo, the canonical texts
// of a sequence of assessments, each the previous one with the mutations
// that ops names applied (an op of 0xff: no change), and compares each text
// and hash with the plain ones.
func checkTextMemoMutations(t *testing.T, ops []byte) {
	t.Helper()
	var memo TextMemo
	a := memoAssessment(t, 7)
	for k, op := range ops {
		if op != 0xff {
			memoMutations[int(op)%len(memoMutations)](&a)
		}
		checkMemoText(t, &memo, &a, fmt.Sprintf("text %d (op %d)", k, op))
	}
}

func TestTextMemoEveryInput(t *testing.T) {
	// Each mutation alone, then again (its text from the memo), then
	// undone by a fresh fixture.
	for op := range memoMutations {
		checkTextMemoMutations(t, []byte{0xff, byte(op), 0xff, byte(op), 0xff})
	}
	var all []byte
	for op := range memoMutations {
		all = append(all, byte(op), 0xff)
	}
	checkTextMemoMutations(t, all)
}

func FuzzTextMemoMutations(f *testing.F) {
	f.Add([]byte{0xff, 1, 0xff, 2, 3, 0xff})
	f.Add([]byte{50, 50, 51, 0xff, 52, 53, 54})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		checkTextMemoMutations(t, ops)
	})
}

// TestTextMemoBounds: the memo keeps the parts of every valid assessment
// (and of invalid levels): the longest texts fit its buffers, and a text
// written through it leaves every part in it.
func TestTextMemoBounds(t *testing.T) {
	longest := -math.SmallestNonzeroFloat64 * (1 << 52) // -2.2250738585072014e-308
	if got := len(appendOptFloat(nil, longest)); got != maxFloatText {
		t.Fatalf("longest float text %d bytes, maxFloatText %d", got, maxFloatText)
	}
	a := memoAssessment(t, math.MaxInt64)
	for i := range a.Std {
		a.Std[i], a.AxisLevel[i] = longest, decisions.Level(255)
	}
	a.BlockLevel = [3]decisions.Level{255, 255, 255}
	a.ThresholdsSHA256 = strings.Repeat("a", 64)
	a.SchemaVersion = 255
	a.ThresholdsUsed = decisions.Thresholds{
		PositionKnownStdM: longest, PositionUnknownStdM: longest,
		VelocityKnownStdMps: longest, VelocityUnknownStdMps: longest,
		OrientationKnownStdRad: longest, OrientationUnknownStdRad: longest,
		SchemaVersion: 255,
	}
	for b := range 3 {
		m := floatMemo{last: &TextMemo{}}
		if n := len(appendBlock(nil, &a, b, &m)); n > maxBlockText {
			t.Errorf("block %d: %d bytes, maxBlockText %d", b, n, maxBlockText)
		}
	}
	if n := len(appendThresholds(nil, &a)); n > maxThresholdsText {
		t.Errorf("thresholds part: %d bytes, maxThresholdsText %d", n, maxThresholdsText)
	}
	var memo TextMemo
	want := plainCanonicalJSON(&a)
	if got := appendCanonicalJSON(nil, &a, &memo); !bytes.Equal(got, want) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	for b, seg := range memo.blocks {
		if seg.n == 0 {
			t.Errorf("block %d not kept", b)
		}
	}
	if memo.thresholdsN == 0 {
		t.Error("thresholds part not kept")
	}
}
