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
