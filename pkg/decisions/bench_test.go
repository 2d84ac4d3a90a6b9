package decisions

import (
	"crypto/sha256"
	"testing"
)

func BenchmarkSelfAssessmentSHA256(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	b.ReportAllocs()
	for b.Loop() {
		if len(a.SHA256()) != 64 {
			b.Fatal("bad hash")
		}
	}
}

// BenchmarkDecideWithRationaleKnown is the binding on the decision path: the
// assessment was sealed when decoded or admitted, so the binding hashes
// nothing.
func BenchmarkDecideWithRationaleKnown(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	a.Seal()
	c := neutralContext(a.BeliefStampSimNs)
	c.SelfAssessment = &a
	p := ReferencePolicy{}
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := DecideWithRationale(p, c)
		if err != nil || d.Kind != KindProceed {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkDecideWithRationaleUnsealed is the binding of an assessment that
// was never sealed: it formats and hashes the canonical JSON itself.
func BenchmarkDecideWithRationaleUnsealed(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	c := neutralContext(a.BeliefStampSimNs)
	c.SelfAssessment = &a
	p := ReferencePolicy{}
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := DecideWithRationale(p, c)
		if err != nil || d.Kind != KindProceed {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkRawSHA256Canonical is the floor of the ratios: SHA-256 alone of
// the same canonical bytes, already formatted.
func BenchmarkRawSHA256Canonical(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	data := a.CanonicalJSON()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sum := sha256.Sum256(data)
		if sum[0] == 0 && sum[1] == 0 && sum[2] == 0 {
			b.Log("unlikely")
		}
	}
}

// BenchmarkSeal is the one hash per assessment: canonical JSON, SHA-256 and
// the seal, as the decoder or the Loop's admission does it.
func BenchmarkSeal(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	b.ReportAllocs()
	for b.Loop() {
		x := a // unsealed copy
		x.Seal()
		if _, ok := x.SealedSHA256(); !ok {
			b.Fatal("not sealed")
		}
	}
}

// BenchmarkAppendCanonicalJSON is the canonical text alone, the part of a
// seal beyond the hash, for an estimator's assessment: nine distinct
// standard deviations, as a filter's covariance has them.
func BenchmarkAppendCanonicalJSON(b *testing.B) {
	a, err := Assess(1_700_000_000_000_000_000, diagCovariance([9]float64{
		0.0412, 0.0398, 0.0871, 0.0123, 0.0131, 0.0277, 1.7e-5, 1.9e-5, 4.4e-5}), validThresholds())
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1536)
	b.ReportAllocs()
	for b.Loop() {
		buf = a.AppendCanonicalJSON(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}

// estimatorAssessments are assessments as an estimator's beliefs give them:
// nine distinct standard deviations, of which each assessment changes two
// and repeats seven from the one before (about what PX4's logs show).
func estimatorAssessments(tb testing.TB, n int) []SelfAssessment {
	std := [9]float64{0.0412, 0.0398, 0.0871, 0.0123, 0.0131, 0.0277, 1.7e-5, 1.9e-5, 4.4e-5}
	out := make([]SelfAssessment, n)
	for k := range out {
		i := k % 9
		std[i] *= 1.0001
		std[(i+4)%9] *= 0.9999
		var diag [9]float64
		for j, s := range std {
			diag[j] = s * s
		}
		a, err := Assess(1_700_000_000_000_000_000+int64(k), diagCovariance(diag), validThresholds())
		if err != nil {
			tb.Fatal(err)
		}
		out[k] = a
	}
	return out
}

// BenchmarkSealEstimator seals estimatorAssessments one after the other,
// without a memo (Seal) and with one (SealWith), as the decoders do.
func BenchmarkSealEstimator(b *testing.B) {
	as := estimatorAssessments(b, 64)
	for _, tc := range []struct {
		name string
		memo *TextMemo
	}{{"Seal", nil}, {"SealWith", &TextMemo{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				x := as[k%len(as)] // unsealed copy
				x.SealWith(tc.memo)
				if _, ok := x.SealedSHA256(); !ok {
					b.Fatal("not sealed")
				}
				k++
			}
		})
	}
}
