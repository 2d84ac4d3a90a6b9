package audit

import (
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/runner"
	"github.com/ghost-robotics/ghost/pkg/seal"
)

// BenchmarkReplayEndToEndSealed is BenchmarkReplayEndToEnd writing through
// a sealing recorder, as replay --signing-key does: every message written
// is hashed once more, and a seal is signed every second of log time.
func BenchmarkReplayEndToEndSealed(b *testing.B) {
	path, size := benchInput(b)
	key := sealKey(b, "node")
	b.ReportAllocs()
	b.SetBytes(size)
	var beliefs uint64
	for b.Loop() {
		in, err := bag.OpenRecording(path, bag.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rec, err := bag.NewRecorder(io.Discard, bag.RecorderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := seal.NewSealer(key)
		if err != nil {
			b.Fatal(err)
		}
		out, err := seal.NewRecorder(rec, s, seal.RecorderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Replay(in, out, ReplayOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
		in.Close()
		beliefs += res.Stats.Input(runner.KeyState).Messages
	}
	b.ReportMetric(float64(beliefs)/b.Elapsed().Seconds(), "beliefs/s")
}
