//go:build unix

package bag

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

const benchMessages = 1_000_000

// benchRationales returns distinct serialized ros2msg.DecisionRationale messages
// (about 150 bytes each: distinct stamps and hashes, as on /decisions).
func benchRationales(tb testing.TB, n int) [][]byte {
	tb.Helper()
	reasons := []string{"overall_known", "overall_uncertain", "overall_unknown", "no_assessment"}
	out := make([][]byte, n)
	for i := range out {
		m := ros2msg.NewDecisionRationale()
		m.Decision.Kind = uint8(i % 7)
		m.Decision.DecisionStampSimNs = int64(i) * 100_000_000
		m.Decision.Reason = reasons[i%len(reasons)]
		m.BeliefStampSimNs = m.Decision.DecisionStampSimNs
		sum := sha256.Sum256([]byte(strconv.Itoa(i)))
		m.SelfAssessmentSHA256 = hex.EncodeToString(sum[:])
		m.PolicyID = "uncertainty_aware_reference_v1"
		b, err := m.MarshalCDR()
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// writeDecisions records n messages at 1 µs log-time steps.
func writeDecisions(tb testing.TB, w io.Writer, opts RecorderOptions, msgs [][]byte, n int) int64 {
	rec, err := NewRecorder(w, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ch, err := rec.AddMessageChannel("/decisions", "DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		tb.Fatal(err)
	}
	var bytesIn int64
	for i := range n {
		data := msgs[i%len(msgs)]
		t := uint64(i) * 1000
		if err := rec.Write(ch, t, t, data); err != nil {
			tb.Fatal(err)
		}
		bytesIn += int64(len(data))
	}
	if err := rec.Close(); err != nil {
		tb.Fatal(err)
	}
	return bytesIn
}

// cpuSeconds is the CPU time (user and system, all threads) the process has
// used. Reported per message it says what the work costs, which wall time
// on a shared machine does not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkRecord1MDecisions writes 1M ros2msg.DecisionRationale messages per
// iteration, zstd, default options, to a discarding output.
func BenchmarkRecord1MDecisions(b *testing.B) {
	for _, comp := range []Compression{CompressionZstd, CompressionLZ4, CompressionNone} {
		b.Run(string(comp), func(b *testing.B) {
			msgs := benchRationales(b, 4096)
			b.ReportAllocs()
			var payload int64
			start, cpu := time.Now(), cpuSeconds()
			for b.Loop() {
				payload += writeDecisions(b, io.Discard, RecorderOptions{Compression: comp}, msgs, benchMessages)
			}
			sec := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)*benchMessages/sec, "msgs/s")
			b.ReportMetric(float64(payload)/1e6/sec, "MB/s")
			b.ReportMetric((cpuSeconds()-cpu)*1e9/(float64(b.N)*benchMessages), "cpu-ns/msg")
		})
	}
}

// BenchmarkRecorderWrite is the per-message cost in steady state.
func BenchmarkRecorderWrite(b *testing.B) {
	msgs := benchRationales(b, 4096)
	rec, err := NewRecorder(io.Discard, RecorderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ch, err := rec.AddMessageChannel("/decisions", "DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		if err := rec.Write(ch, i*1000, i*1000, msgs[i%4096]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.StopTimer()
	_ = rec.Close()
}

// BenchmarkRead1MDecisions reads back a 1M-message zstd recording, indexed
// and as a stream.
func BenchmarkRead1MDecisions(b *testing.B) {
	msgs := benchRationales(b, 4096)
	var file bytes.Buffer
	payload := writeDecisions(b, &file, RecorderOptions{}, msgs, benchMessages)
	for _, stream := range []bool{false, true} {
		b.Run(map[bool]string{false: "indexed", true: "stream"}[stream], func(b *testing.B) {
			b.ReportAllocs()
			start, cpu := time.Now(), cpuSeconds()
			for b.Loop() {
				r, err := NewReader(bytes.NewReader(file.Bytes()), ReaderOptions{Stream: stream})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, err := range r.Messages() {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != benchMessages {
					b.Fatalf("read %d messages", n)
				}
				_ = r.Close()
			}
			sec := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)*benchMessages/sec, "msgs/s")
			b.ReportMetric(float64(b.N)*float64(payload)/1e6/sec, "MB/s")
			b.ReportMetric(float64(file.Len()), "file-bytes")
			b.ReportMetric((cpuSeconds()-cpu)*1e9/(float64(b.N)*benchMessages), "cpu-ns/msg")
		})
	}
}
