package pyref

import (
	"bytes"
	"errors"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/ghost-robotics/ghost/internal/golden"
)

// rewrite copies a recording through the mcap Writer, letting edit replace
// each message by zero or more messages (their channel ids must exist or
// be added by extra).
func rewrite(t *testing.T, data []byte, extra func(w *mcap.Writer), edit func(ch ChannelInfo, m mcap.Message) []mcap.Message) []byte {
	t.Helper()
	rec := readRecording(t, data)
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{Chunked: true, ChunkSize: 1 << 20, Compression: mcap.CompressionZSTD})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&mcap.Header{Library: rec.library, Profile: rec.profile}); err != nil {
		t.Fatal(err)
	}
	for id := uint16(1); id <= 64; id++ {
		if s, ok := rec.schemas[id]; ok {
			if err := w.WriteSchema(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	for id := uint16(1); id <= 64; id++ {
		if c, ok := rec.rawChannels[id]; ok {
			if err := w.WriteChannel(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if extra != nil {
		extra(w)
	}
	for _, m := range rec.msgs {
		for _, out := range edit(m.ch, m.msg) {
			if err := w.WriteMessage(&out); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const tamperStamp = 2000000000

// TestTamperedAssessment changes one float of one recorded assessment
// (keeping or changing the payload length): the trace reports exactly that
// stamp broken, with the hash of what is now recorded, and every other
// record unchanged.
func TestTamperedAssessment(t *testing.T) {
	data := readFile(t, golden.Path(t, "python", "gps_denial.mcap"))
	base, _ := traceOf(t, data)
	for _, tc := range []struct{ name, from, to string }{
		{"same length", `"position_axis_y_std_m":0.01,`, `"position_axis_y_std_m":0.02,`},
		{"longer", `"velocity_axis_z_std_mps":0.01,`, `"velocity_axis_z_std_mps":0.010000000000000002,`},
		{"exponent form", `"orientation_known_std_rad":0.05,`, `"orientation_known_std_rad":5e-2,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := 0
			out := rewrite(t, data, nil, func(ch ChannelInfo, m mcap.Message) []mcap.Message {
				if ch.Topic == "/self_assessment" && m.LogTime == tamperStamp {
					if !bytes.Contains(m.Data, []byte(tc.from)) {
						t.Fatalf("payload lacks %s", tc.from)
					}
					m.Data = bytes.Replace(m.Data, []byte(tc.from), []byte(tc.to), 1)
					edited++
				}
				return []mcap.Message{m}
			})
			if edited != 1 {
				t.Fatalf("edited %d messages", edited)
			}
			got, _ := traceOf(t, out)
			wantBroken := tc.name != "exponent form" // 5e-2 is the same float: the reference re-hashes its canonical form
			for i, r := range got.Records {
				b := base.Records[i]
				if r.TimestampNs == tamperStamp && wantBroken {
					if r.ChainStatus != StatusBroken || r.RecomputedAssessmentSHA256 == r.ClaimedAssessmentSHA256 ||
						r.ClaimedAssessmentSHA256 != b.ClaimedAssessmentSHA256 {
						t.Errorf("tampered stamp: %+v", r)
					}
					continue
				}
				if r != b {
					t.Errorf("record %d changed: %+v, was %+v", i, r, b)
				}
			}
			wantB := 0
			if wantBroken {
				wantB = 1
			}
			if got.BrokenCount != wantB || got.VerifiedCount != 50-wantB {
				t.Errorf("broken %d verified %d, want %d and %d", got.BrokenCount, got.VerifiedCount, wantB, 50-wantB)
			}
			if got.SourceMCAPSHA256 == base.SourceMCAPSHA256 {
				t.Error("source hash unchanged")
			}
		})
	}
}

// TestChainLastWinsAndMissing: a second assessment for a stamp replaces the
// first (whichever is genuine), and a dropped one makes the stamp
// assessment_missing.
func TestChainLastWinsAndMissing(t *testing.T) {
	data := readFile(t, golden.Path(t, "python", "gps_denial.mcap"))
	forged := func(m mcap.Message) mcap.Message {
		f := m
		f.Data = bytes.Replace(m.Data, []byte(`"position_axis_x_std_m":0.01,`), []byte(`"position_axis_x_std_m":0.011,`), 1)
		f.Sequence++
		return f
	}
	for _, tc := range []struct {
		name string
		edit func(m mcap.Message) []mcap.Message
		want ChainStatus
	}{
		{"forgery after the genuine one", func(m mcap.Message) []mcap.Message { return []mcap.Message{m, forged(m)} }, StatusBroken},
		{"genuine after a forgery", func(m mcap.Message) []mcap.Message { return []mcap.Message{forged(m), m} }, StatusVerified},
		{"dropped", func(mcap.Message) []mcap.Message { return nil }, StatusAssessmentMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := rewrite(t, data, nil, func(ch ChannelInfo, m mcap.Message) []mcap.Message {
				if ch.Topic == "/self_assessment" && m.LogTime == tamperStamp {
					return tc.edit(m)
				}
				return []mcap.Message{m}
			})
			got, _ := traceOf(t, out)
			for _, r := range got.Records {
				want := StatusVerified
				if r.TimestampNs == tamperStamp {
					want = tc.want
				}
				if r.ChainStatus != want {
					t.Errorf("stamp %d: %s, want %s", r.TimestampNs, r.ChainStatus, want)
				}
				if r.ChainStatus == StatusAssessmentMissing && r.RecomputedAssessmentSHA256 != "" {
					t.Errorf("stamp %d: missing assessment with a recomputed hash", r.TimestampNs)
				}
			}
		})
	}
}

// TestUnknownChannelsCounted adds channels the audit does not read (an
// unknown reference class, a CDR channel, a channel without schema) to a
// recording: they are counted as other, and the verdicts do not change.
func TestUnknownChannelsCounted(t *testing.T) {
	data := readFile(t, golden.Path(t, "python", "gps_denial.mcap"))
	base, baseCounts := traceOf(t, data)
	extra := func(w *mcap.Writer) {
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(w.WriteSchema(&mcap.Schema{ID: 20, Name: "project_ghost.future.types.Unknown"}))
		must(w.WriteSchema(&mcap.Schema{ID: 21, Name: "ghost/msg/DecisionRationale", Encoding: "ros2msg", Data: []byte("uint8 kind")}))
		must(w.WriteChannel(&mcap.Channel{ID: 20, SchemaID: 20, Topic: "/future", MessageEncoding: "json"}))
		must(w.WriteChannel(&mcap.Channel{ID: 21, SchemaID: 21, Topic: "/decisions_cdr", MessageEncoding: "cdr"}))
		must(w.WriteChannel(&mcap.Channel{ID: 22, SchemaID: 0, Topic: "/raw", MessageEncoding: "json"}))
	}
	out := rewrite(t, data, extra, func(ch ChannelInfo, m mcap.Message) []mcap.Message {
		msgs := []mcap.Message{m}
		if ch.Topic == "/decisions" && m.LogTime == tamperStamp {
			for _, id := range []uint16{20, 21, 22} {
				msgs = append(msgs, mcap.Message{ChannelID: id, LogTime: m.LogTime, PublishTime: m.LogTime, Data: []byte("{not json")})
			}
		}
		return msgs
	})
	got, counts := traceOf(t, out)
	if counts[RoleOther] != baseCounts[RoleOther]+3 {
		t.Errorf("other messages %d, want %d", counts[RoleOther], baseCounts[RoleOther]+3)
	}
	got.SourceMCAPSHA256 = base.SourceMCAPSHA256
	var a, b bytes.Buffer
	if err := WriteTraceReport(&a, got); err != nil {
		t.Fatal(err)
	}
	if err := WriteTraceReport(&b, base); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("verdicts changed\n%s", firstDiff(a.Bytes(), b.Bytes()))
	}
}

// TestUnparsableMessage: a /decisions payload that is not JSON is reported
// with its channel and the byte offset where parsing failed.
func TestUnparsableMessage(t *testing.T) {
	data := readFile(t, golden.Path(t, "python", "gps_denial.mcap"))
	out := rewrite(t, data, nil, func(ch ChannelInfo, m mcap.Message) []mcap.Message {
		if ch.Topic == "/decisions" && m.LogTime == tamperStamp {
			m.Data = m.Data[:len(m.Data)-1] // drop the closing brace
		}
		return []mcap.Message{m}
	})
	rec := readRecording(t, out)
	failures := 0
	for _, m := range rec.msgs {
		_, err := Decode(m.ch, m.msg.Data)
		if err == nil {
			continue
		}
		failures++
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrDecode) {
			t.Fatalf("error %v is not a DecodeError", err)
		}
		if de.Topic != "/decisions" || de.Offset != len(m.msg.Data) || m.msg.LogTime != tamperStamp {
			t.Errorf("error %q: topic %q offset %d (payload %d bytes) at %d", err, de.Topic, de.Offset, len(m.msg.Data), m.msg.LogTime)
		}
	}
	if failures != 1 {
		t.Errorf("%d failures, want 1", failures)
	}
}
