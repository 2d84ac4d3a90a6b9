package session

import (
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// BenchmarkRunnerExecute measures the provenance checks and one publish to
// a null sink, the Runner's share of BenchmarkLoopRunnerPerDecision.
func BenchmarkRunnerExecute(b *testing.B) {
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
	l := mustLoop(b, engine.LoopOptions{})
	var out engine.Output
	for _, ev := range []engine.Event{bEv(0, 1), aEv(b, 1, 1, known)} {
		if err := l.Step(ev, &out); err != nil {
			b.Fatal(err)
		}
	}
	cmd := out.Commands[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := r.Execute(cmd); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkJSONLinesSink measures writing one rationale line.
func BenchmarkJSONLinesSink(b *testing.B) {
	s := newJSONLinesSink(io.Discard)
	cmd := commandFor(b, 1, known, true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Publish(cmd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoopRunnerPerDecision measures one decision end to end: a belief
// and its (known) assessment through Loop.Step, then Runner.Execute with
// its provenance checks into a null sink.
func BenchmarkLoopRunnerPerDecision(b *testing.B) {
	l := mustLoop(b, engine.LoopOptions{})
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
	bel := engine.BeliefEvent{Belief: belief(0)}
	ass := engine.AssessmentEvent{Assessment: assessment(b, 0, known)}
	var out engine.Output
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

// BenchmarkLoopRunnerPerDecisionHashed is BenchmarkLoopRunnerPerDecision
// with every assessment hashed beforehand, as verify's decode workers hand
// them over: the Loop's and the Runner's own share of a decision, without
// the canonical text and the hash (hashed outside the timer, 4,096 at a
// time: a hash holds for its stamp only).
func BenchmarkLoopRunnerPerDecisionHashed(b *testing.B) {
	l := mustLoop(b, engine.LoopOptions{})
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
	const batch = 1 << 12
	ass := make([]engine.AssessmentEvent, batch)
	proto := assessment(b, 0, known)
	bel := engine.BeliefEvent{Belief: belief(0)}
	var out engine.Output
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := int64(i)
		if i%batch == 0 {
			b.StopTimer()
			for k := range ass {
				ass[k] = engine.AssessmentEvent{ArrivalNs: (s+int64(k))*1000 + 500, Assessment: proto}
				ass[k].Assessment.BeliefStampSimNs = s + int64(k)
				ass[k].Hash = engine.HashAssessment(&ass[k].Assessment, nil)
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

// BenchmarkRunnerExecuteEncodedSinks is a decision as the live node
// publishes and records it: two sinks take the rationale's CDR (the ROS
// publisher's and the recording's; each copies it, as a publisher and a
// recorder do), the rationale encoded once for both.
func BenchmarkRunnerExecuteEncodedSinks(b *testing.B) {
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	var ros, rec []byte
	for _, sink := range []struct {
		id  string
		dst *[]byte
	}{{"ros", &ros}, {"recording", &rec}} {
		id, dst := sink.id, sink.dst
		s := NewRecordingSink(func(_ uint64, data []byte) error { *dst = append((*dst)[:0], data...); return nil }, func() int64 { return 0 })
		if err := r.RegisterEncoded(id, s); err != nil {
			b.Fatal(err)
		}
	}
	cmd := commandFor(b, 1, known, true)
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Execute(cmd); res.Errors() != nil {
			b.Fatal(res.Errors())
		}
	}
	if len(ros) == 0 || string(ros) != string(rec) {
		b.Fatal("the sinks got different bytes")
	}
}
