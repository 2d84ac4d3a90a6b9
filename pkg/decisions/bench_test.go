package decisions

import (
	"crypto/sha256"
	"testing"

	"github.com/ghost-robotics/ghost/internal/benchratio"
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

// BenchmarkDecideWithRationaleKnown is the binding on the decision path:
// the assessment's hash was made when it was decoded or admitted and is
// handed in, so the binding hashes nothing.
func BenchmarkDecideWithRationaleKnown(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	c := neutralContext(a.BeliefStampSimNs)
	c.SelfAssessment = &a
	h := a.SHA256()
	p := ReferencePolicy{}
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := DecideWithRationale(p, c, h)
		if err != nil || d.Kind != KindProceed {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkDecideWithRationaleHashing is the binding of an assessment whose
// hash nobody made: the caller formats and hashes the canonical JSON.
func BenchmarkDecideWithRationaleHashing(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	c := neutralContext(a.BeliefStampSimNs)
	c.SelfAssessment = &a
	p := ReferencePolicy{}
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := DecideWithRationale(p, c, c.SelfAssessmentSHA256())
		if err != nil || d.Kind != KindProceed {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkRawSHA256Canonical is the floor of the ratios: SHA-256 alone of
// the same canonical bytes, already formatted.
func BenchmarkRawSHA256Canonical(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	data := a.AppendCanonicalJSON(nil)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sum := sha256.Sum256(data)
		if sum[0] == 0 && sum[1] == 0 && sum[2] == 0 {
			b.Log("unlikely")
		}
	}
}

// BenchmarkAppendCanonicalJSON is the plain canonical text alone, the part
// of a hash beyond SHA-256, for an estimator's assessment: nine distinct
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

// BenchmarkHashingOverRawSHA256 measures the ratio the decision path is
// held to: a decision bound to an assessment it must hash itself
// (DecideWithRationaleHashing's work, the plain writer) over the bare
// SHA-256 of that assessment's canonical text (RawSHA256Canonical's),
// alternated (benchratio). Its parts are measured the same way: the
// binding with the hash handed in (DecideWithRationaleKnown's work), the
// canonical text alone, and its hex SHA-256 (SelfAssessment.SHA256: the
// text, the hash and the hex string).
func BenchmarkHashingOverRawSHA256(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	c := neutralContext(a.BeliefStampSimNs)
	c.SelfAssessment = &a
	p := ReferencePolicy{}
	data := a.AppendCanonicalJSON(nil)
	h := a.SHA256()
	buf := make([]byte, 0, 1536)
	var sink byte
	raw := func() { sum := sha256.Sum256(data); sink ^= sum[0] }
	for _, tc := range []struct {
		name string
		num  func()
	}{
		{"decide-hashing", func() {
			if d, _, err := DecideWithRationale(p, c, c.SelfAssessmentSHA256()); err != nil || d.Kind != KindProceed {
				b.Fatal(d, err)
			}
		}},
		{"binding", func() {
			if d, _, err := DecideWithRationale(p, c, h); err != nil || d.Kind != KindProceed {
				b.Fatal(d, err)
			}
		}},
		{"text", func() { buf = a.AppendCanonicalJSON(buf[:0]) }},
		{"hash", func() { sink ^= a.SHA256()[0] }},
	} {
		b.Run(tc.name, func(b *testing.B) { benchratio.Report(b, tc.num, raw) })
	}
	_ = sink
}
