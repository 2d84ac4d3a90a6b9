package engine

import "testing"

// BenchmarkLoopAssessmentOverflow measures the adversarial path: an
// assessment without belief pushing the oldest out of a full buffer.
func BenchmarkLoopAssessmentOverflow(b *testing.B) {
	l := mustLoop(b, LoopOptions{})
	a := assessment(b, 0, known)
	var out Output
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.BeliefStampSimNs = int64(i)
		if err := l.Step(AssessmentEvent{ArrivalNs: int64(i), Assessment: a}, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoopStepPerDecision measures the Loop's share of
// BenchmarkLoopRunnerPerDecision: a belief and its assessment, one decision.
func BenchmarkLoopStepPerDecision(b *testing.B) {
	l := mustLoop(b, LoopOptions{})
	bel := BeliefEvent{Belief: belief(0)}
	ass := AssessmentEvent{Assessment: assessment(b, 0, known)}
	var out Output
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := int64(i)
		bel.ArrivalNs, bel.Belief.StampSimNs = s*1000, s
		ass.ArrivalNs, ass.Assessment.BeliefStampSimNs = s*1000+500, s
		if err := l.Step(bel, &out); err != nil {
			b.Fatal(err)
		}
		if err := l.Step(ass, &out); err != nil {
			b.Fatal(err)
		}
	}
}
