package audit

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// The floor of a replay or a verification is what the MCAP library alone
// needs for the same file: reading every message (and SHA-256 of one 1.3 KB
// buffer per decision, the hash an audit cannot avoid), or reading every
// message and writing it again with zstd. BenchmarkFloorRatios measures both
// floors, Verify and Replay on one recording, interleaved round by round in
// one process, and reports the medians and their ratios (and the ratios of
// the least of each), in CPU time (user + system, every goroutine) and in
// wall time. Verify runs twice a round: as the command line runs it on one
// recording (decode workers on the other cores), and on one goroutine, as
// it runs beside other verifications ("verify-1g"). A third measure,
// "decode", is the floor read plus the decoding verify cannot skip
// (floorDecode): what is left of verify's ratio above it is the Loop, the
// Runner and the audit.
//
//	GHOST_BENCH_FILE=flight.mcap go test -run '^$' -bench FloorRatios -benchtime 1x ./pkg/audit
//
// GHOST_BENCH_FILE names the recording (default: a generated one of
// GHOST_BENCH_BELIEFS beliefs); GHOST_BENCH_ROUNDS the rounds (default 5).
// The GC target is the command line's for replay and verify, 100 %.

// floorHashBuffer stands for one decision's canonical self-assessment.
var floorHashBuffer = make([]byte, 1300)

// floorMessages opens path with the MCAP library alone and iterates its
// messages in log-time order, through its index, as every floor reads them.
func floorMessages(path string) (mcap.MessageIterator, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := mcap.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	it, err := r.Messages(mcap.UsingIndex(true), mcap.InOrder(mcap.LogTimeOrder))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return it, f, nil
}

// floorRead reads every message of path with the MCAP library in log-time
// order, hashing floorHashBuffer once per message on decisionsTopic.
func floorRead(path, decisionsTopic string) (messages, decisions uint64, err error) {
	it, f, err := floorMessages(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var m mcap.Message
	for {
		_, ch, _, err := it.NextInto(&m)
		if errors.Is(err, io.EOF) {
			return messages, decisions, nil
		}
		if err != nil {
			return messages, decisions, err
		}
		messages++
		if ch.Topic == decisionsTopic {
			decisions++
			sum := sha256.Sum256(floorHashBuffer)
			floorSink ^= sum[0]
		}
	}
}

var floorSink byte

// floorDecode reads every message of path with the MCAP library, as
// floorRead, and decodes each the way verify must before it can compare
// anything: every input with the Loop's decoders (each assessment hashed:
// its canonical text and SHA-256), every decision decoded and validated.
// No Loop, no chain index, no comparison: the part of verify that stays
// however cheap those become.
func floorDecode(path, decisionsTopic string) (messages uint64, err error) {
	it, f, err := floorMessages(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	dec := session.NewDecoder(session.Enabled(session.DefaultInputs()))
	decodeDecision := CDRFormat().NewDecodeDecision()
	var sc session.Scratch
	var out session.Decoded
	var m mcap.Message
	for {
		_, ch, _, err := it.NextInto(&m)
		if errors.Is(err, io.EOF) {
			return messages, nil
		}
		if err != nil {
			return messages, err
		}
		messages++
		if ch.Topic == decisionsTopic {
			r, err := decodeDecision(m.Data)
			if err == nil {
				err = r.Validate()
			}
			if err != nil {
				return messages, err
			}
			continue
		}
		if err := dec.DecodeInto(ch.Topic, int64(m.LogTime), m.Data, &sc, &out); err != nil {
			return messages, err
		}
		sc.Reset()
	}
}

// floorReadWrite reads every message of path with the MCAP library and
// writes it again, chunked and zstd-compressed (fastest level, 1 MiB chunks,
// CRCs, indexes: what the Recorder writes), to io.Discard.
func floorReadWrite(path string) (messages uint64, err error) {
	it, f, err := floorMessages(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w, err := mcap.NewWriter(io.Discard, &mcap.WriterOptions{
		IncludeCRC: true, Chunked: true, ChunkSize: bag.DefaultChunkSize,
		Compression: mcap.CompressionZSTD, CompressionLevel: mcap.CompressionLevelFastest,
	})
	if err != nil {
		return 0, err
	}
	if err := w.WriteHeader(&mcap.Header{Profile: "ros2"}); err != nil {
		return 0, err
	}
	schemas, channels := map[uint16]bool{}, map[uint16]bool{}
	var m mcap.Message
	for {
		s, ch, _, err := it.NextInto(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return messages, err
		}
		if s != nil && !schemas[s.ID] {
			schemas[s.ID] = true
			if err := w.WriteSchema(s); err != nil {
				return messages, err
			}
		}
		if !channels[ch.ID] {
			channels[ch.ID] = true
			if err := w.WriteChannel(ch); err != nil {
				return messages, err
			}
		}
		if err := w.WriteMessage(&m); err != nil {
			return messages, err
		}
		messages++
	}
	return messages, w.Close()
}

// cpuNow returns the process's user + system CPU time.
func cpuNow(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measured is one timed run: CPU and wall time.
type measured struct{ cpu, wall time.Duration }

func measure(tb testing.TB, f func()) measured {
	c0, w0 := cpuNow(tb), time.Now()
	f()
	return measured{cpuNow(tb) - c0, time.Since(w0)}
}

// medianOf and minOf summarise rounds: the median, and the least, which
// other tenants of a shared machine can only have made larger.
func medianOf(ms []measured) measured { return quantileOf(ms, func(n int) int { return n / 2 }) }
func minOf(ms []measured) measured    { return quantileOf(ms, func(int) int { return 0 }) }

func quantileOf(ms []measured, at func(n int) int) measured {
	cpu := make([]time.Duration, len(ms))
	wall := make([]time.Duration, len(ms))
	for i, m := range ms {
		cpu[i], wall[i] = m.cpu, m.wall
	}
	slices.Sort(cpu)
	slices.Sort(wall)
	return measured{cpu[at(len(cpu))], wall[at(len(wall))]}
}

func BenchmarkFloorRatios(b *testing.B) {
	path, _ := benchInput(b)
	rounds := 5
	if s := os.Getenv("GHOST_BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("GHOST_BENCH_ROUNDS = %q: want a positive integer", s)
		}
		rounds = n
	}
	// The command line's GC target for replay and verify, for all four.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	decisionsTopic := session.DefaultTopics().Decisions()
	var read, decode, verify, verifyAlone, readWrite, replay []measured
	var msgs, decided uint64
	b.ReportAllocs()
	for b.Loop() {
		for range rounds {
			read = append(read, measure(b, func() {
				var err error
				if msgs, decided, err = floorRead(path, decisionsTopic); err != nil {
					b.Fatal(err)
				}
			}))
			decode = append(decode, measure(b, func() {
				if n, err := floorDecode(path, decisionsTopic); err != nil || n != msgs {
					b.Fatal(err, n, msgs)
				}
			}))
			verify = append(verify, measure(b, func() { floorVerify(b, path, decided, 0) }))
			verifyAlone = append(verifyAlone, measure(b, func() { floorVerify(b, path, decided, -1) }))
			readWrite = append(readWrite, measure(b, func() {
				if _, err := floorReadWrite(path); err != nil {
					b.Fatal(err)
				}
			}))
			replay = append(replay, measure(b, func() {
				in, err := bag.OpenRecording(path, bag.ReaderOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer in.Close()
				rec, err := bag.NewRecorder(io.Discard, bag.RecorderOptions{})
				if err != nil {
					b.Fatal(err)
				}
				res, err := Replay(in, rec, ReplayOptions{})
				if err != nil || res.Messages != msgs {
					b.Fatal(err, res.Messages, msgs)
				}
				if err := rec.Close(); err != nil {
					b.Fatal(err)
				}
			}))
		}
	}
	fr, fd, v, v1, frw, rp := medianOf(read), medianOf(decode), medianOf(verify), medianOf(verifyAlone), medianOf(readWrite), medianOf(replay)
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(msgs) }
	b.ReportMetric(per(fr.cpu), "floor-read-cpu-ns/msg")
	b.ReportMetric(per(v.cpu), "verify-cpu-ns/msg")
	b.ReportMetric(per(frw.cpu), "floor-rw-cpu-ns/msg")
	b.ReportMetric(per(rp.cpu), "replay-cpu-ns/msg")
	b.ReportMetric(float64(v.cpu)/float64(fr.cpu), "verify/floor-cpu")
	b.ReportMetric(float64(rp.cpu)/float64(frw.cpu), "replay/floor-cpu")
	b.ReportMetric(float64(v.wall)/float64(fr.wall), "verify/floor-wall")
	b.ReportMetric(float64(v1.cpu)/float64(fr.cpu), "verify-1g/floor-cpu")
	b.ReportMetric(float64(fd.cpu)/float64(fr.cpu), "decode/floor-cpu")
	b.ReportMetric(float64(v1.wall)/float64(fr.wall), "verify-1g/floor-wall")
	b.ReportMetric(float64(rp.wall)/float64(frw.wall), "replay/floor-wall")
	mfr, mv, mfrw, mrp := minOf(read), minOf(verify), minOf(readWrite), minOf(replay)
	b.ReportMetric(float64(mv.cpu)/float64(mfr.cpu), "verify/floor-cpu-min")
	b.ReportMetric(float64(mv.wall)/float64(mfr.wall), "verify/floor-wall-min")
	b.ReportMetric(float64(mrp.cpu)/float64(mfrw.cpu), "replay/floor-cpu-min")
	b.ReportMetric(float64(mrp.wall)/float64(mfrw.wall), "replay/floor-wall-min")
	b.Logf("%d messages, %d decisions, %d rounds; medians cpu/wall: floor-read %v/%v floor-decode %v/%v verify %v/%v verify-1g %v/%v floor-rw %v/%v replay %v/%v",
		msgs, decided, rounds, fr.cpu, fr.wall, fd.cpu, fd.wall, v.cpu, v.wall, v1.cpu, v1.wall, frw.cpu, frw.wall, rp.cpu, rp.wall)
}

// floorVerify verifies path with decodeWorkers (VerifyOptions), which must
// pass with decided decisions.
func floorVerify(b *testing.B, path string, decided uint64, decodeWorkers int) {
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	r, err := Verify(in, VerifyOptions{DecodeWorkers: decodeWorkers})
	if err != nil || !r.Passed() || r.Decisions != decided {
		b.Fatal(err, r.Decisions, decided, r.Problems)
	}
}
