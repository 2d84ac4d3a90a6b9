package runner

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// BenchmarkLoopRunnerPerDecision measures one decision end to end: a belief
// and its (known) assessment through Loop.Step, then Runner.Execute with
// its provenance checks into a null sink.
func BenchmarkLoopRunnerPerDecision(b *testing.B) {
	l := mustLoop(b, LoopOptions{})
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
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
		if len(out.Commands) != 1 {
			b.Fatalf("step %d: %d commands", i, len(out.Commands))
		}
		if res := r.Execute(out.Commands[0]); res.Err != nil || res.Receipts[0].Err != nil {
			b.Fatal(res.Errors())
		}
	}
}

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

// BenchmarkLoopRunnerPerDecisionSealed is BenchmarkLoopRunnerPerDecision
// with every assessment sealed beforehand, as verify's decode workers hand
// them over: the Loop's and the Runner's own share of a decision, without
// the canonical text and the hash (sealed outside the timer, 4,096 at a
// time: a seal holds for its stamp only).
func BenchmarkLoopRunnerPerDecisionSealed(b *testing.B) {
	l := mustLoop(b, LoopOptions{})
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
	const batch = 1 << 12
	ass := make([]AssessmentEvent, batch)
	proto := assessment(b, 0, known)
	bel := BeliefEvent{Belief: belief(0)}
	var out Output
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := int64(i)
		if i%batch == 0 {
			b.StopTimer()
			for k := range ass {
				ass[k] = AssessmentEvent{ArrivalNs: (s+int64(k))*1000 + 500, Assessment: proto}
				ass[k].Assessment.BeliefStampSimNs = s + int64(k)
				ass[k].Assessment.Seal()
			}
			b.StartTimer()
		}
		bel.ArrivalNs, bel.Belief.StampSimNs = s*1000, s
		if err := l.Step(bel, &out); err != nil {
			b.Fatal(err)
		}
		if err := l.Step(ass[i%batch], &out); err != nil {
			b.Fatal(err)
		}
		if len(out.Commands) != 1 || out.Commands[0].Rationale.SelfAssessmentSHA256 == "" {
			b.Fatalf("step %d: %d commands", i, len(out.Commands))
		}
		if res := r.Execute(out.Commands[0]); res.Err != nil || res.Receipts[0].Err != nil {
			b.Fatal(res.Errors())
		}
	}
}
