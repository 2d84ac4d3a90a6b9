package audit

import (
	"crypto/ed25519"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// benchRecording writes, once per process, a simulated recording of
// GHOST_BENCH_BELIEFS beliefs (default 1,000,000) with their assessments and
// decisions, at 1 kHz, and returns its path.
var benchRecording = sync.OnceValues(func() (string, error) {
	n := 1_000_000
	if s := os.Getenv("GHOST_BENCH_BELIEFS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return "", err
		}
		n = v
	}
	dir, err := os.MkdirTemp("", "ghost-bench")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "flight.mcap")
	rec, err := bag.CreateRecording(path, bag.RecorderOptions{NoSync: true})
	if err != nil {
		return "", err
	}
	src, err := newSimPublisher(time.Duration(n-1)*time.Millisecond, 1000)
	if err != nil {
		return "", err
	}
	if _, err := Replay(src, rec, ReplayOptions{}); err != nil {
		return "", err
	}
	return path, rec.Close()
})

// benchInput is GHOST_BENCH_FILE when set, else benchRecording.
func benchInput(b *testing.B) (string, int64) {
	path := os.Getenv("GHOST_BENCH_FILE")
	if path == "" {
		var err error
		if path, err = benchRecording(); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

// replayToDiscard replays the recording at path into a zstd recording
// thrown away, sealed with key unless it is nil, and returns the beliefs
// it read.
func replayToDiscard(b *testing.B, path string, key ed25519.PrivateKey, opts ReplayOptions) uint64 {
	b.Helper()
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	rec, err := bag.NewRecorder(io.Discard, bag.RecorderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var out Recorder = rec
	closeOut := rec.Close
	if key != nil {
		s, err := seal.NewSealer(key)
		if err != nil {
			b.Fatal(err)
		}
		sr, err := seal.NewRecorder(rec, s, seal.RecorderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		out, closeOut = sr, sr.Close
	}
	res, err := Replay(in, out, opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := closeOut(); err != nil {
		b.Fatal(err)
	}
	return res.Stats.Input(session.KeyState).Messages
}

// BenchmarkReplayEndToEnd: read, decode, decide, check provenance, encode
// and write zstd, for a whole recording per iteration.
func BenchmarkReplayEndToEnd(b *testing.B) {
	path, size := benchInput(b)
	b.ReportAllocs()
	b.SetBytes(size)
	var beliefs uint64
	for b.Loop() {
		beliefs += replayToDiscard(b, path, nil, ReplayOptions{})
	}
	b.ReportMetric(float64(beliefs)/b.Elapsed().Seconds(), "beliefs/s")
}

// BenchmarkVerify audits a whole recording per iteration.
func BenchmarkVerify(b *testing.B) {
	path, size := benchInput(b)
	b.ReportAllocs()
	b.SetBytes(size)
	var decided uint64
	for b.Loop() {
		in, err := bag.OpenRecording(path, bag.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Verify(in, VerifyOptions{})
		if err != nil || !r.Passed() {
			b.Fatal(err, r.Problems)
		}
		in.Close()
		decided += r.Decisions
	}
	b.ReportMetric(float64(decided)/b.Elapsed().Seconds(), "decisions/s")
}
