package node

import (
	"context"
	"encoding/binary"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/nodeconfig"
	"github.com/ghost-robotics/ghost/pkg/ros2"
)

// BenchmarkHandleBeliefAndAssessmentSealed is BenchmarkHandleBeliefAndAssessment
// with seal.key_file set: the same path, plus a leaf and a fold for the
// belief, the assessment and the rationale (encoded once more for it), and
// a seal signed every 1,000 stamps (once a second at 1 kHz).
func BenchmarkHandleBeliefAndAssessmentSealed(b *testing.B) {
	cfg := testConfig()
	cfg.Seal.KeyFile = sealKeys + "node.key"
	benchSealed(b, cfg)
}

// BenchmarkHandleRecorded is the node's path with its in-node recording
// (zstd), the configuration whose file verify checks.
func BenchmarkHandleRecorded(b *testing.B) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(b.TempDir(), "bench.mcap")
	benchSealed(b, cfg)
}

// BenchmarkHandleRecordedSealed is BenchmarkHandleRecorded, sealed.
func BenchmarkHandleRecordedSealed(b *testing.B) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(b.TempDir(), "bench.mcap")
	cfg.Seal.KeyFile = sealKeys + "node.key"
	benchSealed(b, cfg)
}

func benchSealed(b *testing.B, cfg nodeconfig.Config) {
	n, err := newNode(context.Background(), cfg, discardTransport{ros2.NewFakeTransport()},
		slog.New(slog.DiscardHandler), func() time.Time { return base }, "")
	if err != nil {
		b.Fatal(err)
	}
	if (n.seal == nil) != (cfg.Seal.KeyFile == "") {
		b.Fatal("sealing not as configured")
	}
	belief := beliefCDR(b, testBelief(0))
	assessment := assessmentCDR(b, testAssessment(b, 0, 0.1))
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
		if i%1000 == 999 {
			n.sealNow(recv, false)
		}
	}
	n.sealNow(base, true)
	if err := n.run.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if c := n.run.Counters(); c.DecisionsTotal() != uint64(b.N) {
		b.Fatalf("%d decisions for %d stamps", c.DecisionsTotal(), b.N)
	}
}
