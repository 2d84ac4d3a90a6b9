package decisions

import "testing"

func BenchmarkSelfAssessmentSHA256(b *testing.B) {
	a := validAssessment(b, 1_700_000_000_000_000_000, LevelKnown)
	b.ReportAllocs()
	for b.Loop() {
		if len(a.SHA256()) != 64 {
			b.Fatal("bad hash")
		}
	}
}

func BenchmarkDecideWithRationaleKnown(b *testing.B) {
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
