package runner

import (
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// BenchmarkRunnerExecute measures the provenance checks and one publish to
// a null sink, the Runner's share of BenchmarkLoopRunnerPerDecision.
func BenchmarkRunnerExecute(b *testing.B) {
	r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
	if err := r.Register("null", nullSink{}); err != nil {
		b.Fatal(err)
	}
	l := mustLoop(b, LoopOptions{})
	var out Output
	for _, ev := range []Event{bEv(0, 1), aEv(b, 1, 1, known)} {
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
		if err := s.Publish(cmd.Decision, cmd.Rationale); err != nil {
			b.Fatal(err)
		}
	}
}
