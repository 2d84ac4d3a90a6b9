package audit

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// replayBytes replays src into an in-memory recording and returns its bytes.
func replayBytes(t testing.TB, src Source, opts ReplayOptions) ([]byte, *ReplayResult, error) {
	t.Helper()
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, rerr := Replay(src, rec, opts)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res, rerr
}

func openBytes(t testing.TB, data []byte) *bag.Reader {
	t.Helper()
	r, err := bag.NewReader(bytes.NewReader(data), bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// recordedDecisions decodes every /decisions message of a recording.
func recordedDecisions(t testing.TB, data []byte) []decisions.Rationale {
	t.Helper()
	r := openBytes(t, data)
	var out []decisions.Rationale
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != "/decisions" {
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, ros2msg.RationaleFromWire(&w))
	}
}

func TestReplayGoldenSampleFlight(t *testing.T) {
	path, want := golden.SampleFlight(t)
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, res, err := replayBytes(t, in, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := recordedDecisions(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d decisions, want %d (counters %+v)", len(got), len(want), res.Counters)
	}
	for i, w := range want {
		g := got[i]
		if !w.Matches(g.BeliefStampSimNs, g.Decision.DecisionStampSimNs, uint8(g.Decision.Kind), g.Decision.Reason, g.PolicyID, g.SelfAssessmentSHA256) {
			t.Errorf("decision %d: got %v sha %q policy %s, want %+v", i, got[i].Decision, got[i].SelfAssessmentSHA256, got[i].PolicyID, w)
		}
	}
	// The replayed recording verifies.
	report, err := Verify(openBytes(t, out), VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed() || report.Decisions != uint64(len(want)) || report.RerunCount(RerunDiverged) != 0 {
		t.Fatalf("verify: passed=%v decisions=%d problems=%v", report.Passed(), report.Decisions, report.Problems)
	}
}

func newSimPublisher(d time.Duration, rate float64) (*sim.Publisher, error) {
	v, err := sim.NewVehicle(sim.Options{Duration: d, RateHz: rate, Thresholds: decisions.Thresholds{
		PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
		OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: 1,
	}})
	if err != nil {
		return nil, err
	}
	return sim.NewPublisher(v, nil), nil
}

func simSource(t testing.TB, d time.Duration, rate float64) *sim.Publisher {
	t.Helper()
	p, err := newSimPublisher(d, rate)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimReachesEveryBranchAndVerifies(t *testing.T) {
	out, res, err := replayBytes(t, simSource(t, 30*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for _, r := range recordedDecisions(t, out) {
		reasons[r.Decision.Kind.String()+"/"+r.Decision.Reason]++
	}
	for _, b := range []string{"proceed/overall_known", "hold/overall_uncertain", "abstain_uncertain/overall_unknown", "abstain_uncertain/no_assessment"} {
		if reasons[b] == 0 {
			t.Errorf("the simulated flight never reaches %s (%v)", b, reasons)
		}
	}
	if res.Counters.WithoutAssessmentBy[engine.WithoutTimeout] == 0 {
		t.Errorf("no belief decided by timeout: %+v", res.Counters.WithoutAssessmentBy)
	}
	if res.Counters.RejectedTotal() != 0 || res.Stats.Corrupt() != 0 {
		t.Errorf("the simulator's own messages were rejected: %+v %+v", res.Counters.Rejected, res.Stats)
	}
	report, err := Verify(openBytes(t, out), VerifyOptions{})
	if err != nil || !report.Passed() || report.RerunCount(RerunMatched) != report.Decisions {
		t.Fatalf("verify: %v passed=%v %+v", err, report.Passed(), report.Problems)
	}
}

func TestReplayAndSimAreByteIdentical(t *testing.T) {
	first, _, err := replayBytes(t, simSource(t, 5*time.Second, 100), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := replayBytes(t, simSource(t, 5*time.Second, 100), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("sim twice gave different recordings")
	}
	// Replaying the simulated recording reproduces it exactly: same inputs,
	// same log times, same decisions.
	again, _, err := replayBytes(t, openBytes(t, first), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	twice, _, err := replayBytes(t, openBytes(t, first), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, twice) {
		t.Fatal("replaying the same recording twice gave different bytes")
	}
	// Whether a goroutine of its own reads ahead changes no byte, also
	// from a source that overwrites each message's Data at its next call.
	msgs := drainSource(t, openBytes(t, first))
	for _, ahead := range []int8{-1, 1} {
		got, _, err := replayBytes(t, &reusingSource{msgs: msgs}, ReplayOptions{readAhead: ahead})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, again) {
			t.Fatalf("read ahead %d: the replay's bytes differ", ahead)
		}
	}
	a, b := recordedDecisions(t, first), recordedDecisions(t, again)
	if len(a) != len(b) {
		t.Fatalf("replay of the sim: %d decisions, sim: %d", len(b), len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("decision %d: replay %v, sim %v", i, b[i], a[i])
		}
	}
}

// sliceSource serves fixed messages.
type sliceSource struct {
	msgs []bag.Message
	err  error // returned after the last message instead of io.EOF
}

func (s *sliceSource) Next() (bag.Message, error) {
	if len(s.msgs) == 0 {
		if s.err != nil {
			return bag.Message{}, s.err
		}
		return bag.Message{}, io.EOF
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func drainSource(t testing.TB, src Source) []bag.Message {
	t.Helper()
	var out []bag.Message
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		m.Data = append([]byte(nil), m.Data...)
		out = append(out, m)
	}
}

func TestReplayDamagedInput(t *testing.T) {
	for _, ahead := range []int8{-1, 1} {
		t.Run(map[int8]string{-1: "one goroutine", 1: "read ahead"}[ahead], func(t *testing.T) { testReplayDamagedInput(t, ahead) })
	}
}

func testReplayDamagedInput(t *testing.T, readAhead int8) {
	msgs := drainSource(t, simSource(t, 2*time.Second, 50))
	// Corrupt one belief and one assessment in the middle; cut the stream
	// short with a truncation error.
	var corrupted []string
	for i := range msgs {
		if len(corrupted) < 2 && i > 20 && (msgs[i].Topic == "/state/nav" && len(corrupted) == 0 || msgs[i].Topic == "/self_assessment" && len(corrupted) == 1) {
			msgs[i].Data = msgs[i].Data[:len(msgs[i].Data)/2]
			corrupted = append(corrupted, msgs[i].Topic)
		}
	}
	cut := len(msgs) * 3 / 4
	damage := &bag.TruncatedError{Offset: 12345, Record: "chunk", Err: io.ErrUnexpectedEOF}
	var reported []error
	out, res, err := replayBytes(t, &sliceSource{msgs: msgs[:cut], err: damage}, ReplayOptions{
		OnCorrupt: func(err error) { reported = append(reported, err) },
		readAhead: readAhead,
	})
	if !errors.Is(err, bag.ErrTruncated) || res.Truncated == nil {
		t.Fatalf("replay error %v, want the truncation", err)
	}
	if len(reported) != 2 || res.Stats.Input(session.KeyState).Corrupt != 1 || res.Stats.Input(session.KeySelfAssessment).Corrupt != 1 {
		t.Fatalf("corrupt reports %v, stats %+v", reported, res.Stats)
	}
	var ce *session.CorruptError
	if !errors.As(reported[0], &ce) || ce.Topic != "/state/nav" || ce.Offset < 0 {
		t.Fatalf("corrupt report %v does not name the topic and offset", reported[0])
	}
	// The output is a complete recording holding a decision for every
	// belief that decoded before the damage.
	beliefs := 0
	for _, m := range msgs[:cut] {
		if m.Topic == "/state/nav" {
			beliefs++
		}
	}
	if got := len(recordedDecisions(t, out)); got != beliefs-1 {
		t.Fatalf("%d decisions for %d readable beliefs", got, beliefs-1)
	}
}

func TestReplayReadsAheadWhereACoreIsFree(t *testing.T) {
	for _, tc := range []struct {
		c     bag.Compression
		procs int
		want  bool
	}{
		{bag.CompressionZstd, 1, false}, {bag.CompressionZstd, 2, false}, {bag.CompressionZstd, 3, true},
		{bag.CompressionLZ4, 1, false}, {bag.CompressionLZ4, 2, true}, {bag.CompressionNone, 2, true},
	} {
		if got := readsAhead(tc.c, tc.procs); got != tc.want {
			t.Errorf("%s on %d cores: reads ahead %v, want %v", tc.c, tc.procs, got, tc.want)
		}
	}
}
