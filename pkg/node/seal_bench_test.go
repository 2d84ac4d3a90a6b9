package node

import (
	"context"
	"encoding/binary"
	"log/slog"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testkeys"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// BenchmarkHandleBeliefAndAssessmentSealed is BenchmarkHandleBeliefAndAssessment
// with seal.key_file set: the same path, plus a leaf and a fold for the
// belief, the assessment and the rationale (the bytes the Runner encoded), and
// a seal signed every 1,000 stamps (once a second at 1 kHz).
func BenchmarkHandleBeliefAndAssessmentSealed(b *testing.B) {
	cfg := testConfig()
	cfg.Seal.KeyFile = testkeys.Private(b, sealKeys+"node.key")
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
	cfg.Seal.KeyFile = testkeys.Private(b, sealKeys+"node.key")
	benchSealed(b, cfg)
}

func benchSealed(b *testing.B, cfg config.Config) {
	n, err := newNode(context.Background(), cfg, discardTransport{transport.NewFakeTransport()},
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

// BenchmarkSealingCost steps blocks of 20,000 stamps alternately through a
// plain and a sealed node, recording or not, and reports the median ratio
// of their process CPU times (sealed/plain): side by side in one process,
// the load of a shared machine weighs on both alike. The budget is 1.10.
// It also reports the median CPU per stamp of each.
func BenchmarkSealingCost(b *testing.B) {
	for _, recorded := range []bool{false, true} {
		name := "bare"
		if recorded {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			nodes := [2]*node{}
			for i := range nodes {
				cfg := testConfig()
				if recorded {
					cfg.Recording.Path = filepath.Join(b.TempDir(), "bench.mcap")
				}
				if i == 1 {
					cfg.Seal.KeyFile = testkeys.Private(b, sealKeys+"node.key")
				}
				n, err := newNode(context.Background(), cfg, discardTransport{transport.NewFakeTransport()},
					slog.New(slog.DiscardHandler), func() time.Time { return base }, "")
				if err != nil {
					b.Fatal(err)
				}
				nodes[i] = n
			}
			belief := beliefCDR(b, testBelief(0))
			assessment := assessmentCDR(b, testAssessment(b, 0, 0.1))
			next := [2]int{}
			block := func(k int) time.Duration {
				n := nodes[k]
				c0 := cpuTime(b)
				for range blockStamps {
					next[k]++
					i := next[k]
					binary.LittleEndian.PutUint64(belief[4:], uint64(i))
					binary.LittleEndian.PutUint64(assessment[4:], uint64(i))
					recv := base.Add(time.Duration(i) * time.Millisecond)
					n.handle(input{kind: 0, data: belief, recv: recv})
					n.handle(input{kind: 1, data: assessment, recv: recv})
					if i%1000 == 0 {
						n.sealNow(recv, false)
					}
				}
				return cpuTime(b) - c0
			}
			var ratios, plains, sealeds []float64
			for b.Loop() {
				plain := block(0)
				sealed := block(1)
				ratios = append(ratios, float64(sealed)/float64(plain))
				plains = append(plains, float64(plain.Nanoseconds())/1e3/blockStamps)
				sealeds = append(sealeds, float64(sealed.Nanoseconds())/1e3/blockStamps)
			}
			for _, n := range nodes {
				if err := n.run.Close(); err != nil {
					b.Fatal(err)
				}
			}
			for _, m := range []struct {
				v    []float64
				unit string
			}{{ratios, "sealed/plain-cpu"}, {plains, "plain-cpu-us/stamp"}, {sealeds, "sealed-cpu-us/stamp"}} {
				slices.Sort(m.v)
				b.ReportMetric(m.v[len(m.v)/2], m.unit)
			}
		})
	}
}

// blockStamps is how many stamps SealingCost steps through one node at a time.
const blockStamps = 20_000

// cpuTime returns the process's user and system CPU time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
