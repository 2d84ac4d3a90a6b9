package node

import (
	"context"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// discardTransport publishes into the void, so a benchmark's memory does
// not grow with b.N.
type discardTransport struct{ *transport.FakeTransport }

type discardPublisher struct{ n int }

func (p *discardPublisher) Publish([]byte) error { p.n++; return nil }

func (discardTransport) Advertise(string, string, qos.Profile) (transport.Publisher, error) {
	return &discardPublisher{}, nil
}

// BenchmarkHandleBeliefAndAssessment is the node's hot path for one belief
// stamp: decode a VehicleState and a BeliefSelfAssessment, step both
// through the Loop, check provenance, encode and publish the rationale.
func BenchmarkHandleBeliefAndAssessment(b *testing.B) {
	n, err := newNode(context.Background(), testConfig(), discardTransport{transport.NewFakeTransport()},
		slog.New(slog.DiscardHandler), func() time.Time { return base }, "")
	if err != nil {
		b.Fatal(err)
	}
	belief := beliefCDR(b, testBelief(0))
	assessment := assessmentCDR(b, testAssessment(b, 0, 0.1))
	// Both messages start with their stamp (int64 right after the 4-byte
	// encapsulation header), so each iteration rewrites it in place.
	const stampAt = 4
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		stamp := uint64(i + 1)
		binary.LittleEndian.PutUint64(belief[stampAt:], stamp)
		binary.LittleEndian.PutUint64(assessment[stampAt:], stamp)
		recv := base.Add(time.Duration(i) * time.Millisecond)
		n.handle(input{kind: 0, data: belief, recv: recv})
		n.handle(input{kind: 1, data: assessment, recv: recv})
	}
	b.StopTimer()
	if c := n.run.Counters(); c.DecisionsTotal() != uint64(b.N) || c.WithoutAssessment != 0 {
		b.Fatalf("%d decisions (%d without assessment) for %d stamps", c.DecisionsTotal(), c.WithoutAssessment, b.N)
	}
}

// BenchmarkDiagnostics builds and encodes one /diagnostics report.
func BenchmarkDiagnostics(b *testing.B) {
	n, _ := benchNode(b)
	b.ReportAllocs()
	for b.Loop() {
		n.publishDiagnostics(base)
	}
}
