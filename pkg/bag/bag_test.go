package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// testSchemaText is a small ros2msg schema with one dependency, in the
// layout rosbag2 writes.
var testSchemaText = "int64 stamp\nDep dep\n\n" + sep80 + "\nMSG: test/Dep\nuint8 x\n"

var sep80 = strings.Repeat("=", 80)

type wantMsg struct {
	topic       string
	schema      string
	logTime     uint64
	publishTime uint64
	seq         uint32
	data        []byte
}

// recordingCase is one recording described once and used by both the
// writing and the reading assertions.
type recordingCase struct {
	name     string
	opts     RecorderOptions
	channels []testChannel
	writes   []testWrite
}

type testChannel struct {
	topic, schema string
	qos           []qos.Profile
}

type testWrite struct {
	channel int // index into channels
	logTime uint64
	data    []byte
}

// summaryOf reads file's summary with the mcap library's own reader.
func summaryOf(t *testing.T, file []byte) *mcap.Info {
	t.Helper()
	mr, err := mcap.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	info, err := mr.Info()
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func payload(i int, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*31 + j*7)
	}
	if n >= 4 {
		binary.LittleEndian.PutUint32(b, uint32(i))
	}
	return b
}

func recordingCases() []recordingCase {
	three := []testChannel{
		{"/state/nav", "ghost/msg/VehicleState", []qos.Profile{qos.DefaultInput()}},
		{"/decisions", "ghost/msg/DecisionRationale", []qos.Profile{qos.DefaultDecisions()}},
		{"/other", "test/msg/Other", nil},
	}
	interleaved := func(n, size int) []testWrite {
		var w []testWrite
		for i := range n {
			w = append(w, testWrite{channel: i % 3, logTime: uint64(1000 + 10*i), data: payload(i, size+i%17)})
		}
		return w
	}
	return []recordingCase{
		{name: "empty", opts: RecorderOptions{}},
		{name: "channels without messages", channels: three},
		{name: "zstd one chunk", channels: three, writes: interleaved(50, 150)},
		{name: "zstd many chunks", opts: RecorderOptions{ChunkSize: 2000}, channels: three, writes: interleaved(300, 150)},
		{name: "lz4 many chunks", opts: RecorderOptions{Compression: CompressionLZ4, ChunkSize: 2000}, channels: three, writes: interleaved(300, 150)},
		{name: "none many chunks", opts: RecorderOptions{Compression: CompressionNone, ChunkSize: 2000}, channels: three, writes: interleaved(300, 150)},
		{name: "empty payloads", channels: three[:1], writes: []testWrite{{0, 5, nil}, {0, 6, []byte{}}}},
		{name: "large message", opts: RecorderOptions{ChunkSize: 1000}, channels: three[:1],
			writes: []testWrite{{0, 1, payload(1, 10)}, {0, 2, payload(2, 100_000)}, {0, 3, payload(3, 10)}}},
		{name: "extreme times", channels: three[:2], writes: []testWrite{
			{0, 0, payload(0, 3)}, {1, 1<<63 - 1, payload(1, 3)}, {0, 1 << 63, payload(2, 3)}, {1, 1<<64 - 1, payload(3, 3)},
		}},
	}
}

// write records c into an in-memory file and returns it with the messages
// a reader must return, in file order.
func (c recordingCase) write(t testing.TB) ([]byte, []wantMsg) {
	t.Helper()
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, c.opts)
	if err != nil {
		t.Fatalf("NewRecorder: %v", err)
	}
	ids := make([]ChannelID, len(c.channels))
	for i, ch := range c.channels {
		if ids[i], err = rec.AddChannel(ch.topic, ch.schema, testSchemaText, ch.qos...); err != nil {
			t.Fatalf("AddChannel(%s): %v", ch.topic, err)
		}
	}
	seq := map[int]uint32{}
	var want []wantMsg
	for _, w := range c.writes {
		if err := rec.Write(ids[w.channel], w.logTime, w.logTime+1, w.data); err != nil {
			t.Fatalf("Write: %v", err)
		}
		seq[w.channel]++
		ch := c.channels[w.channel]
		want = append(want, wantMsg{ch.topic, ch.schema, w.logTime, w.logTime + 1, seq[w.channel], w.data})
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes(), want
}

func readAll(t testing.TB, r *Reader) ([]wantMsg, error) {
	t.Helper()
	var got []wantMsg
	for m, err := range r.Messages() {
		if err != nil {
			return got, err
		}
		got = append(got, wantMsg{m.Topic, m.SchemaName, m.LogTime, m.PublishTime, m.Sequence, bytes.Clone(m.Data)})
	}
	return got, nil
}

func diffMsgs(got, want []wantMsg) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d messages, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.topic != w.topic || g.schema != w.schema || g.logTime != w.logTime ||
			g.publishTime != w.publishTime || g.seq != w.seq || !bytes.Equal(g.data, w.data) {
			return fmt.Sprintf("message %d:\n got %s %s log=%d pub=%d seq=%d %d bytes\nwant %s %s log=%d pub=%d seq=%d %d bytes",
				i, g.topic, g.schema, g.logTime, g.publishTime, g.seq, len(g.data),
				w.topic, w.schema, w.logTime, w.publishTime, w.seq, len(w.data))
		}
	}
	return ""
}

func sortByLogTime(m []wantMsg) []wantMsg {
	m = slices.Clone(m)
	slices.SortStableFunc(m, func(a, b wantMsg) int {
		switch {
		case a.logTime < b.logTime:
			return -1
		case a.logTime > b.logTime:
			return 1
		}
		return 0
	})
	return m
}

func TestRecordingRoundTrip(t *testing.T) {
	for _, c := range recordingCases() {
		t.Run(c.name, func(t *testing.T) {
			file, want := c.write(t)
			for _, mode := range []struct {
				name    string
				src     func() io.Reader
				opts    ReaderOptions
				indexed bool
			}{
				{"indexed", func() io.Reader { return bytes.NewReader(file) }, ReaderOptions{}, true},
				{"forced stream", func() io.Reader { return bytes.NewReader(file) }, ReaderOptions{Stream: true}, false},
				{"unseekable", func() io.Reader { return bytes.NewBuffer(file) }, ReaderOptions{}, false},
			} {
				t.Run(mode.name, func(t *testing.T) {
					r, err := NewReader(mode.src(), mode.opts)
					if err != nil {
						t.Fatalf("NewReader: %v", err)
					}
					defer r.Close()
					if r.Indexed() != mode.indexed {
						t.Fatalf("Indexed() = %v, want %v", r.Indexed(), mode.indexed)
					}
					if r.Profile() != "ros2" || !strings.HasPrefix(r.Library(), "ghost; mcap go ") {
						t.Errorf("header = %q, %q", r.Profile(), r.Library())
					}
					got, err := readAll(t, r)
					if err != nil {
						t.Fatalf("read: %v", err)
					}
					w := want
					if mode.indexed {
						w = sortByLogTime(want)
					}
					if d := diffMsgs(got, w); d != "" {
						t.Fatal(d)
					}
					if p := r.Problems(); len(p) != 0 {
						t.Fatalf("problems: %+v", p)
					}
					checkChannels(t, r.Channels(), c.channels, mode.indexed || len(c.writes) > 0 || len(c.channels) > 0)
				})
			}
		})
	}
}

func checkChannels(t *testing.T, got []Channel, want []testChannel, complete bool) {
	t.Helper()
	if !complete {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("got %d channels, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Topic != w.topic || g.SchemaName != w.schema || g.SchemaEncoding != "ros2msg" ||
			g.MessageEncoding != "cdr" || g.SchemaText != testSchemaText {
			t.Errorf("channel %d = %+v, want %s %s", i, g, w.topic, w.schema)
		}
		if g.QoSErr != nil || len(g.QoS) != len(w.qos) {
			t.Errorf("channel %s QoS = %+v (%v), want %+v", w.topic, g.QoS, g.QoSErr, w.qos)
		}
		for j := range w.qos {
			if g.QoS[j] != w.qos[j] {
				t.Errorf("channel %s QoS[%d] = %+v, want %+v", w.topic, j, g.QoS[j], w.qos[j])
			}
		}
	}
}

// TestRecorderFileLayout checks the written file with the mcap library's own
// reader: profile, summary content, one schema per distinct schema, QoS
// metadata, chunk compression, sequences.
func TestRecorderFileLayout(t *testing.T) {
	for _, comp := range []struct {
		opt  Compression
		want mcap.CompressionFormat
	}{{"", mcap.CompressionZSTD}, {CompressionLZ4, mcap.CompressionLZ4}, {CompressionNone, mcap.CompressionNone}} {
		t.Run(string(comp.want), func(t *testing.T) {
			var buf bytes.Buffer
			rec, err := NewRecorder(&buf, RecorderOptions{Compression: comp.opt, ChunkSize: 500})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText, qos.DefaultInput())
			b, _ := rec.AddChannel("/b", "test/msg/T", testSchemaText) // shares the schema
			c, err := rec.AddChannel("/c", "test/msg/U", "uint8 x\n", qos.DefaultInput(), qos.DefaultDecisions())
			if err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				for _, ch := range []ChannelID{a, b, c} {
					if err := rec.Write(ch, uint64(i), uint64(i), payload(i, 40)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			mr, err := mcap.NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			info, err := mr.Info()
			if err != nil {
				t.Fatal(err)
			}
			if info.Header.Profile != "ros2" {
				t.Errorf("profile %q", info.Header.Profile)
			}
			if len(info.Schemas) != 2 || info.Statistics.SchemaCount != 2 {
				t.Errorf("%d schemas (statistics %d), want 2", len(info.Schemas), info.Statistics.SchemaCount)
			}
			for _, s := range info.Schemas {
				if s.Encoding != "ros2msg" {
					t.Errorf("schema %s encoding %q", s.Name, s.Encoding)
				}
			}
			if info.Statistics.MessageCount != 120 || info.Statistics.ChannelCount != 3 {
				t.Errorf("statistics %+v", info.Statistics)
			}
			if len(info.ChunkIndexes) < 2 {
				t.Errorf("%d chunks, want several", len(info.ChunkIndexes))
			}
			for _, ci := range info.ChunkIndexes {
				if ci.Compression != comp.want || len(ci.MessageIndexOffsets) == 0 {
					t.Errorf("chunk index %+v", ci)
				}
			}
			wantQoS := map[string]string{
				"/a": qos.OfferedProfilesYAML(qos.DefaultInput()),
				"/b": "[]",
				"/c": qos.OfferedProfilesYAML(qos.DefaultInput(), qos.DefaultDecisions()),
			}
			for _, ch := range info.Channels {
				if ch.MessageEncoding != "cdr" || ch.Metadata["offered_qos_profiles"] != wantQoS[ch.Topic] {
					t.Errorf("channel %s: encoding %q, metadata %q", ch.Topic, ch.MessageEncoding, ch.Metadata)
				}
			}
			if info.Footer.SummaryOffsetStart == 0 || info.Footer.SummaryStart == 0 {
				t.Errorf("footer %+v lacks summary offsets", info.Footer)
			}
			it, err := mr.Messages(mcap.UsingIndex(true), mcap.InOrder(mcap.LogTimeOrder))
			if err != nil {
				t.Fatal(err)
			}
			next := map[uint16]uint32{}
			for {
				_, ch, m, err := it.NextInto(nil)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				next[ch.ID]++
				if m.Sequence != next[ch.ID] {
					t.Fatalf("%s: sequence %d, want %d", ch.Topic, m.Sequence, next[ch.ID])
				}
			}
			// The mcap lexer validates every chunk CRC.
			lex, err := mcap.NewLexer(bytes.NewReader(buf.Bytes()), &mcap.LexerOptions{ValidateChunkCRCs: true})
			if err != nil {
				t.Fatal(err)
			}
			defer lex.Close()
			for {
				_, _, err := lex.Next(nil)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("lexer: %v", err)
				}
			}
			// Data section: each schema and channel once, outside the
			// chunks and before the first chunk; chunks hold messages only.
			top, err := mcap.NewLexer(bytes.NewReader(buf.Bytes()), &mcap.LexerOptions{EmitChunks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer top.Close()
			var layout []string
			dec := chunkDecoder{maxSize: 1 << 20}
			for {
				tok, rec, err := top.Next(nil)
				if err != nil {
					t.Fatalf("lexer: %v", err)
				}
				if tok == mcap.TokenDataEnd {
					break
				}
				switch tok {
				case mcap.TokenSchema:
					layout = append(layout, "schema")
				case mcap.TokenChannel:
					layout = append(layout, "channel")
				case mcap.TokenChunk:
					if n := len(layout); n == 0 || layout[n-1] != "chunk" {
						layout = append(layout, "chunk")
					}
					records, err := dec.decode(rec, nil)
					if err != nil {
						t.Fatal(err)
					}
					for off := 0; off < len(records); off += 9 + int(binary.LittleEndian.Uint64(records[off+1:])) {
						if op := mcap.OpCode(records[off]); op != mcap.OpMessage {
							t.Fatalf("chunk holds a %s record", op)
						}
					}
				}
			}
			if got := strings.Join(layout, " "); got != "schema channel channel schema channel chunk" {
				t.Errorf("data section: %s", got)
			}
		})
	}
}

func TestRecorderChunkSpan(t *testing.T) {
	cases := []struct {
		name       string
		span       time.Duration
		step       uint64 // log-time step between messages
		n          int
		wantChunks int
	}{
		// 10 Hz for 10 s with the default 1 s span: a chunk closes on the
		// first message at least 1 s after the chunk's first, so every 11
		// messages.
		{"default span 10 Hz", 0, 100_000_000, 100, 10},
		{"span disabled", -1, 100_000_000, 100, 1},
		{"5 s span", 5 * time.Second, 1_000_000_000, 12, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			rec, err := NewRecorder(&buf, RecorderOptions{ChunkSpan: c.span})
			if err != nil {
				t.Fatal(err)
			}
			ch, _ := rec.AddChannel("/d", "test/msg/T", testSchemaText)
			for i := range c.n {
				if err := rec.Write(ch, uint64(i)*c.step, 0, payload(i, 150)); err != nil {
					t.Fatal(err)
				}
			}
			before := rec.Stats().Chunks
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			if got := rec.Stats().Chunks; int(got) != c.wantChunks {
				t.Errorf("%d chunks after Close (%d before), want %d", got, before, c.wantChunks)
			}
		})
	}
}

// TestRecorderCrashLosesOnlyOpenChunk cuts the output where a crash would
// leave it once the closed chunks are written, and reads it back.
func TestRecorderCrashLosesOnlyOpenChunk(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, RecorderOptions{ChunkSize: 1500})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := rec.AddChannel("/d", "test/msg/T", testSchemaText)
	for i := range 40 {
		if err := rec.Write(ch, uint64(i), 0, payload(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	rec.mu.Lock()
	open := len(rec.open.recs) / (msgRecordHeader + 100) // every message has 100 bytes
	closedMsgs, dispatched := 40-open, rec.seq
	rec.mu.Unlock()
	if dispatched < 2 || open == 0 {
		t.Fatalf("%d chunks closed, %d messages open: the case needs both", dispatched, open)
	}
	rec.progMu.Lock()
	for rec.written < dispatched {
		rec.progress.Wait()
	}
	rec.progMu.Unlock()
	crashed := bytes.Clone(buf.Bytes())
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := NewReader(bytes.NewReader(crashed), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Indexed() {
		t.Fatal("crashed file read through an index it cannot have")
	}
	got, err := readAll(t, r)
	var te *TruncatedError
	if !errors.As(err, &te) || !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v, want *TruncatedError", err)
	}
	if te.Offset != int64(len(crashed)) || te.Record != "data end or footer" {
		t.Errorf("stopped at %d (%s), want %d (data end or footer)", te.Offset, te.Record, len(crashed))
	}
	if want := fmt.Sprintf("the writer stopped without closing the file at byte %d", len(crashed)); !te.Unclosed ||
		!strings.Contains(te.Error(), want) {
		t.Errorf("crashed writer read as %q (unclosed %v), want %q", te, te.Unclosed, want)
	}
	if len(got) != closedMsgs {
		t.Errorf("recovered %d messages, want the %d of the closed chunks", len(got), closedMsgs)
	}
}

// TestReaderTruncatedPrefixes cuts a recording at every byte: the reader
// returns a prefix of the messages and then says where it stopped.
func TestReaderTruncatedPrefixes(t *testing.T) {
	c := recordingCase{
		opts:     RecorderOptions{ChunkSize: 600, Compression: CompressionZstd},
		channels: []testChannel{{"/a", "test/msg/T", nil}, {"/b", "test/msg/T", nil}},
	}
	for i := range 30 {
		c.writes = append(c.writes, testWrite{i % 2, uint64(i), payload(i, 60)})
	}
	file, want := c.write(t)
	var lastCount int
	for n := 0; n < len(file); n++ {
		r, err := NewReader(bytes.NewReader(file[:n]), ReaderOptions{})
		if n < len(mcap.Magic) {
			want := "bytes long, shorter than the magic"
			if n == 0 {
				want = "not an MCAP file: empty"
			}
			if !errors.Is(err, ErrNotMCAP) || !strings.Contains(err.Error(), want) {
				t.Fatalf("cut at %d: err = %v, want ErrNotMCAP saying %q", n, err, want)
			}
			continue
		}
		if err != nil {
			var te *TruncatedError
			if !errors.As(err, &te) || te.Record != "header" && te.Record != "record header" {
				t.Fatalf("cut at %d: NewReader: %v", n, err)
			}
			continue
		}
		got, err := readAll(t, r)
		r.Close()
		var te *TruncatedError
		if !errors.As(err, &te) {
			t.Fatalf("cut at %d of %d: err = %v, want *TruncatedError", n, len(file), err)
		}
		if te.Offset > int64(n) {
			t.Fatalf("cut at %d: error names offset %d beyond the data", n, te.Offset)
		}
		if d := diffMsgs(got, want[:len(got)]); d != "" {
			t.Fatalf("cut at %d: not a prefix: %s", n, d)
		}
		if len(got) < lastCount {
			t.Fatalf("cut at %d: %d messages, fewer than the %d of a shorter cut", n, len(got), lastCount)
		}
		lastCount = len(got)
	}
	if lastCount != len(want) {
		t.Errorf("longest cut recovered %d of %d messages", lastCount, len(want))
	}
}

// TestReaderUnclosedCause cuts a closed recording where a writer that
// stopped leaves it: the error says the file was not closed and where the
// last complete chunk ends, which is every chunk before the cut.
func TestReaderUnclosedCause(t *testing.T) {
	c := recordingCase{
		opts:     RecorderOptions{ChunkSize: 600, Compression: CompressionNone},
		channels: []testChannel{{"/a", "test/msg/T", nil}},
	}
	for i := range 30 {
		c.writes = append(c.writes, testWrite{0, uint64(i), payload(i, 60)})
	}
	file, _ := c.write(t)
	info := summaryOf(t, file)
	if len(info.ChunkIndexes) < 3 {
		t.Fatalf("%d chunks, the case needs 3", len(info.ChunkIndexes))
	}
	second, third := info.ChunkIndexes[1], info.ChunkIndexes[2]
	secondEnd := int64(second.ChunkStartOffset + second.ChunkLength)
	summary := int64(info.Footer.SummaryStart)
	last := info.ChunkIndexes[len(info.ChunkIndexes)-1]
	lastEnd := int64(last.ChunkStartOffset + last.ChunkLength)
	cases := []struct {
		name      string
		cut       int64
		record    string
		complete  int64
		dataEnded bool
		says      string
	}{
		{"inside the third chunk", int64(third.ChunkStartOffset) + 20, "chunk", secondEnd, false,
			fmt.Sprintf("last complete chunk ends at byte %d", secondEnd)},
		{"inside the first chunk", int64(info.ChunkIndexes[0].ChunkStartOffset) + 5, "record header",
			0, false, "before any complete chunk"},
		{"in the summary", summary + 3, "record header", lastEnd, true, "every chunk is complete"},
		{"before the closing magic", int64(len(file)) - 4, "closing magic", lastEnd, true, "every chunk is complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(file[:c.cut]), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = readAll(t, r)
			var te *TruncatedError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want *TruncatedError", err)
			}
			if !te.Unclosed || te.Record != c.record || te.DataEnded != c.dataEnded {
				t.Errorf("got unclosed %v record %q data ended %v, want true %q %v", te.Unclosed, te.Record, te.DataEnded, c.record, c.dataEnded)
			}
			if te.Complete != c.complete {
				t.Errorf("last complete chunk ends at %d, want %d", te.Complete, c.complete)
			}
			msg := te.Error()
			for _, want := range []string{"the writer stopped without closing the file at byte", c.says, "mcap recover"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
		})
	}
}

func TestReaderDamage(t *testing.T) {
	c := recordingCase{
		opts:     RecorderOptions{ChunkSize: 600},
		channels: []testChannel{{"/a", "test/msg/T", nil}},
	}
	for i := range 30 {
		c.writes = append(c.writes, testWrite{0, uint64(i), payload(i, 60)})
	}
	file, want := c.write(t)
	info := summaryOf(t, file)
	second := info.ChunkIndexes[1]
	// Messages before the damaged chunk, in either mode.
	before := 0
	for _, w := range want {
		if w.logTime < second.MessageStartTime {
			before++
		}
	}
	cases := []struct {
		name   string
		damage func([]byte)
		stream bool
	}{
		{"chunk CRC", func(b []byte) {
			// the uncompressed CRC field: opcode, length, start, end, size
			b[second.ChunkStartOffset+9+24] ^= 0xFF
		}, false},
		{"chunk CRC stream", func(b []byte) { b[second.ChunkStartOffset+9+24] ^= 0xFF }, true},
		{"compressed bytes", func(b []byte) {
			b[second.ChunkStartOffset+second.ChunkLength-6] ^= 0x55
		}, true},
		{"compression field length", func(b []byte) {
			binary.LittleEndian.PutUint32(b[second.ChunkStartOffset+9+28:], 1000)
		}, true},
		{"records length", func(b []byte) {
			binary.LittleEndian.PutUint64(b[second.ChunkStartOffset+9+32+4:], 1<<40)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(file)
			c.damage(b)
			r, err := NewReader(bytes.NewReader(b), ReaderOptions{Stream: c.stream})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAll(t, r)
			var te *TruncatedError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want *TruncatedError", err)
			}
			if te.Offset != int64(second.ChunkStartOffset) || te.Record != "chunk" {
				t.Errorf("stopped at %d (%s), want %d (chunk)", te.Offset, te.Record, second.ChunkStartOffset)
			}
			if te.Unclosed || !strings.Contains(te.Error(), "damaged") {
				t.Errorf("damage in the middle read as %q (unclosed %v), want it named damage", te, te.Unclosed)
			}
			if d := diffMsgs(got, want[:before]); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestReaderNotMCAP(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"text", []byte("hello, this is not a recording at all")},
		{"bag v2", []byte("#ROSBAG V2.0\n")},
		{"sqlite", []byte("SQLite format 3\x00")},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenRecording(path, ReaderOptions{})
			if !errors.Is(err, ErrNotMCAP) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want ErrNotMCAP naming %s", err, path)
			}
		})
	}
	_, err := OpenRecording(filepath.Join(dir, "missing.mcap"), ReaderOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.mcap") {
		t.Fatalf("missing file: %v", err)
	}
	_, err = OpenRecording(dir, ReaderOptions{})
	if err == nil || err.Error() != "open recording "+dir+": is a directory" || errors.Is(err, ErrNotMCAP) {
		t.Fatalf("directory: %v", err)
	}
}

// TestReaderChannelRedeclared redeclares channel 1 as another topic in a
// later chunk: the channel is reported, and no message after the
// redeclaration is returned under either topic, whichever topics are read.
func TestReaderChannelRedeclared(t *testing.T) {
	file, _ := chunkedFile(t,
		plainChunk(append(testDecls(t, "/a"), testMessages(t, 0, 3)...), 0),
		plainChunk(append(testDecls(t, "/b"), testMessages(t, 3, 4)...), 3))
	for _, c := range []struct {
		topics []string
		want   int // messages returned, all on /a
		was    string
	}{
		{nil, 3, `redeclared as "/b" ("test/msg/T"), was "/a"`},
		{[]string{"/a"}, 3, `redeclared as "/b" ("test/msg/T"), was "/a"`},
		{[]string{"/b"}, 0, `redeclared as "/b" ("test/msg/T"), was "/a"`},
	} {
		for _, stream := range []bool{false, true} {
			r, err := NewReader(bytes.NewReader(file), ReaderOptions{Topics: c.topics, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, r)
			if err != nil {
				t.Fatalf("topics %v stream %v: %v", c.topics, stream, err)
			}
			for _, m := range got {
				if m.topic != "/a" || m.logTime >= 3 {
					t.Errorf("topics %v stream %v: returned %s at %d", c.topics, stream, m.topic, m.logTime)
				}
			}
			p := r.Problems()
			if len(got) != c.want || len(p) != 1 || !errors.Is(p[0].Err, ErrBadChannel) ||
				!strings.Contains(p[0].Err.Error(), c.was) || p[0].Skipped != 4 {
				t.Errorf("topics %v stream %v: %d messages, problems %+v; want %d and one naming %s, 4 skipped",
					c.topics, stream, len(got), p, c.want, c.was)
			}
		}
	}
}

// TestReaderChannelProblems records channels that break the ROS 2 profile
// or the caller's expectations and checks each is reported, not read.
// rawRecording starts a ros2 MCAP file written with the library's own
// writer, its schema 1 ghost/msg/VehicleState, and returns the writer and
// a func failing t on an error.
func rawRecording(t *testing.T, buf *bytes.Buffer, opts mcap.WriterOptions) (*mcap.Writer, func(error)) {
	t.Helper()
	w, err := mcap.NewWriter(buf, &opts)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteHeader(&mcap.Header{Profile: "ros2"}))
	must(w.WriteSchema(&mcap.Schema{ID: 1, Name: "ghost/msg/VehicleState", Encoding: "ros2msg", Data: []byte("int64 a\n")}))
	return w, must
}

func TestReaderChannelProblems(t *testing.T) {
	var buf bytes.Buffer
	w, must := rawRecording(t, &buf, mcap.WriterOptions{Chunked: true, Compression: mcap.CompressionZSTD, IncludeCRC: true})
	must(w.WriteSchema(&mcap.Schema{ID: 2, Name: "foo.Bar", Encoding: "protobuf", Data: []byte{1}}))
	must(w.WriteSchema(&mcap.Schema{ID: 3, Name: "ghost/Decision", Encoding: "ros2msg", Data: []byte("int64 b\n")}))
	chans := []*mcap.Channel{
		{ID: 1, SchemaID: 1, Topic: "/state/nav", MessageEncoding: "cdr"},           // fine
		{ID: 2, SchemaID: 2, Topic: "/proto", MessageEncoding: "protobuf"},          // schema encoding
		{ID: 3, SchemaID: 1, Topic: "/json", MessageEncoding: "json"},               // message encoding
		{ID: 4, SchemaID: 1, Topic: "/decisions", MessageEncoding: "cdr"},           // unexpected schema
		{ID: 5, SchemaID: 0, Topic: "/schemaless", MessageEncoding: "cdr"},          // no schema
		{ID: 6, SchemaID: 3, Topic: "/decision_short_form", MessageEncoding: "cdr"}, // "ghost/Decision" == "ghost/msg/Decision"
	}
	for _, c := range chans {
		c.Metadata = map[string]string{}
		must(w.WriteChannel(c))
	}
	for i := range 3 {
		for _, c := range chans {
			must(w.WriteMessage(&mcap.Message{ChannelID: c.ID, LogTime: uint64(i), Data: []byte{byte(c.ID)}}))
		}
	}
	must(w.Close())

	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			var reported []ChannelProblem
			r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{
				Stream: stream,
				Schemas: map[string]string{
					"/state/nav":           "ghost/VehicleState",
					"/decisions":           "ghost/msg/DecisionRationale",
					"/decision_short_form": "ghost/msg/Decision",
				},
				OnProblem: func(p ChannelProblem) { reported = append(reported, p) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			topics := map[string]int{}
			for _, m := range got {
				topics[m.topic]++
			}
			if topics["/state/nav"] != 3 || topics["/decision_short_form"] != 3 || len(topics) != 2 {
				t.Errorf("returned %v, want 3 each of /state/nav and /decision_short_form", topics)
			}
			want := map[string]error{
				"/proto":      ErrUnsupportedEncoding,
				"/json":       ErrUnsupportedEncoding,
				"/decisions":  ErrUnexpectedSchema,
				"/schemaless": ErrBadChannel,
			}
			problems := r.Problems()
			if len(problems) != len(want) || len(reported) != len(want) {
				t.Fatalf("problems %+v (reported %d), want %d", problems, len(reported), len(want))
			}
			for _, p := range problems {
				if !errors.Is(p.Err, want[p.Channel.Topic]) {
					t.Errorf("%s: %v, want %v", p.Channel.Topic, p.Err, want[p.Channel.Topic])
				}
				if p.Skipped != 3 {
					t.Errorf("%s: skipped %d, want 3", p.Channel.Topic, p.Skipped)
				}
			}
		})
	}
}

func TestReaderCheckSchemaAndTopics(t *testing.T) {
	c := recordingCase{channels: []testChannel{{"/a", "test/msg/T", nil}, {"/b", "test/msg/U", nil}}}
	for i := range 10 {
		c.writes = append(c.writes, testWrite{i % 2, uint64(i), payload(i, 10)})
	}
	file, _ := c.write(t)
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{
		Topics: []string{"/b"},
		CheckSchema: func(name, text string) error {
			if text != testSchemaText {
				return errors.New("text differs")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil || len(got) != 5 || got[0].topic != "/b" {
		t.Fatalf("read %d messages (%v), want the 5 on /b", len(got), err)
	}
	if ch := r.Channels(); len(ch) != 1 || ch[0].Topic != "/b" {
		t.Errorf("channels %+v, want /b only", ch)
	}

	r, err = NewReader(bytes.NewReader(file), ReaderOptions{
		CheckSchema: func(name, text string) error { return fmt.Errorf("%s is not known", name) },
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err = readAll(t, r)
	if err != nil || len(got) != 0 {
		t.Fatalf("read %d messages (%v), want none", len(got), err)
	}
	if p := r.Problems(); len(p) != 2 || !errors.Is(p[0].Err, ErrUnexpectedSchema) ||
		!strings.Contains(p[0].Err.Error(), "test/msg/T is not known") {
		t.Errorf("problems %+v", p)
	}
}

// TestReaderOverlappingChunks writes chunks whose log-time ranges overlap
// and checks the indexed read merges them into log-time order.
func TestReaderOverlappingChunks(t *testing.T) {
	c := recordingCase{
		opts:     RecorderOptions{ChunkSize: 300, ChunkSpan: -1},
		channels: []testChannel{{"/a", "test/msg/T", nil}},
	}
	// Two interleaved clocks: even messages count up from 0, odd from 5.
	for i := range 60 {
		c.writes = append(c.writes, testWrite{0, uint64(i/2*3 + i%2*5), payload(i, 30)})
	}
	file, want := c.write(t)
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffMsgs(got, sortByLogTime(want)); d != "" {
		t.Fatal(d)
	}

	r, err = NewReader(bytes.NewReader(file), ReaderOptions{MaxBuffered: 200})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = readAll(t, r); !errors.Is(err, ErrReaderLimit) {
		t.Fatalf("err = %v, want ErrReaderLimit", err)
	}
}

func TestReaderLimits(t *testing.T) {
	c := recordingCase{channels: []testChannel{{"/a", "test/msg/T", nil}},
		writes: []testWrite{{0, 1, payload(1, 5000)}}}
	file, _ := c.write(t)
	for _, stream := range []bool{false, true} {
		r, err := NewReader(bytes.NewReader(file), ReaderOptions{MaxChunkSize: 4096, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		_, err = readAll(t, r)
		var te *TruncatedError
		if !errors.Is(err, ErrReaderLimit) || !errors.As(err, &te) {
			t.Errorf("stream=%v: err = %v, want ErrReaderLimit in a *TruncatedError", stream, err)
		}
	}
}

func TestReaderInconsistentSummary(t *testing.T) {
	c := recordingCase{channels: []testChannel{{"/a", "test/msg/T", nil}}}
	for i := range 5 {
		c.writes = append(c.writes, testWrite{0, uint64(i), payload(i, 10)})
	}
	file, _ := c.write(t)
	mr, _ := mcap.NewReader(bytes.NewReader(file))
	info, err := mr.Info()
	if err != nil {
		t.Fatal(err)
	}
	// Find the statistics record in the summary and raise channel 1's count.
	stats := bytes.Index(file[info.Footer.SummaryStart:], []byte{byte(mcap.OpStatistics)})
	if stats < 0 {
		t.Fatal("no statistics record")
	}
	at := int(info.Footer.SummaryStart) + stats
	body := file[at+9:]
	countAt := 8 + 2 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 2
	binary.LittleEndian.PutUint64(body[countAt:], 6)
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if !errors.Is(err, ErrInconsistentSummary) || len(got) != 5 {
		t.Fatalf("read %d, err = %v; want 5 and ErrInconsistentSummary", len(got), err)
	}
}

func TestCreateRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flight.mcap")
	rec, err := CreateRecording(path, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rec.AddChannel("/decisions", "ghost/msg/DecisionRationale", testSchemaText, qos.DefaultDecisions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := rec.Write(ch, uint64(i), uint64(i), payload(i, 20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := rec.Write(ch, 1, 1, nil); !errors.Is(err, ErrRecorderClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	if _, err := rec.AddChannel("/x", "a/msg/B", ""); !errors.Is(err, ErrRecorderClosed) {
		t.Fatalf("AddChannel after Close: %v", err)
	}

	r, err := OpenRecording(path, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil || len(got) != 10 || !r.Indexed() {
		t.Fatalf("read %d messages (indexed %v): %v", len(got), r.Indexed(), err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	// A recording is never overwritten.
	_, err = CreateRecording(path, RecorderOptions{})
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("existing path: %v", err)
	}
	_, err = CreateRecording(filepath.Join(dir, "no", "such", "dir.mcap"), RecorderOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "dir.mcap") {
		t.Fatalf("missing directory: %v", err)
	}
}

func TestRecorderEmptyFileIsComplete(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.mcap")
	rec, err := CreateRecording(path, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mr, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	info, err := mr.Info()
	if err != nil {
		t.Fatalf("empty recording has no readable summary: %v", err)
	}
	if info.Statistics == nil || info.Statistics.MessageCount != 0 || info.Footer.SummaryStart == 0 {
		t.Fatalf("empty recording summary: %+v %+v", info.Statistics, info.Footer)
	}
	r, err := OpenRecording(path, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); !errors.Is(err, io.EOF) || !r.Indexed() {
		t.Fatalf("Next on empty recording: %v (indexed %v)", err, r.Indexed())
	}
}

func TestRecorderCompression(t *testing.T) {
	for _, tc := range []struct{ opt, want Compression }{
		{"", CompressionZstd}, {CompressionZstd, CompressionZstd}, {CompressionLZ4, CompressionLZ4}, {CompressionNone, CompressionNone},
	} {
		rec, err := NewRecorder(io.Discard, RecorderOptions{Compression: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Compression(); got != tc.want {
			t.Errorf("compression option %q: Compression() = %q, want %q", tc.opt, got, tc.want)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecorderErrors(t *testing.T) {
	if _, err := NewRecorder(io.Discard, RecorderOptions{Compression: "brotli"}); err == nil || !strings.Contains(err.Error(), `"brotli"`) {
		t.Errorf("bad compression: %v", err)
	}
	if _, err := NewRecorder(io.Discard, RecorderOptions{ChunkSize: -1}); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("negative chunk size: %v", err)
	}
	rec, err := NewRecorder(io.Discard, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rec.AddChannel("/a", "test/msg/T", testSchemaText, qos.DefaultInput())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		call func() error
		want error
		text string
	}{
		{"unknown channel", func() error { return rec.Write(ch+1, 0, 0, nil) }, ErrUnknownChannel, "2"},
		{"zero channel", func() error { return rec.Write(0, 0, 0, nil) }, ErrUnknownChannel, "0"},
		{"conflicting schema", func() error { _, err := rec.AddChannel("/a", "test/msg/U", testSchemaText); return err }, ErrChannelConflict, "/a"},
		{"conflicting qos", func() error { _, err := rec.AddChannel("/a", "test/msg/T", testSchemaText); return err }, ErrChannelConflict, "/a"},
		{"invalid qos", func() error {
			_, err := rec.AddChannel("/b", "test/msg/T", testSchemaText, qos.Profile{History: qos.HistoryKeepLast})
			return err
		}, qos.ErrInvalid, "/b"},
		{"empty topic", func() error { _, err := rec.AddChannel("", "test/msg/T", ""); return err }, nil, "empty topic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.text)
			}
		})
	}
	again, err := rec.AddChannel("/a", "test/msg/T", testSchemaText, qos.DefaultInput())
	if err != nil || again != ch {
		t.Fatalf("re-adding the same channel: %d, %v; want %d", again, err, ch)
	}
}

type failingWriter struct {
	n    int // bytes accepted before failing
	fail error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, w.fail
	}
	w.n -= len(p)
	return len(p), nil
}

func TestRecorderOutputErrorIsSticky(t *testing.T) {
	disk := errors.New("no space left on device")
	fw := &failingWriter{n: 4000, fail: disk}
	rec, err := NewRecorder(fw, RecorderOptions{ChunkSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText)
	// Chunks are written in the background: the error comes back on a
	// later call, at the latest from Flush.
	var first error
	for i := 0; i < 200 && first == nil; i++ {
		first = rec.Write(ch, uint64(i), 0, payload(i, 100))
	}
	if first == nil {
		first = rec.Flush()
	}
	if !errors.Is(first, disk) {
		t.Fatalf("first error %v, want the output's", first)
	}
	if err := rec.Flush(); !errors.Is(err, disk) {
		t.Errorf("Flush: %v", err)
	}
	if err := rec.Write(ch, 1, 1, nil); !errors.Is(err, disk) {
		t.Errorf("later Write: %v", err)
	}
	if err := rec.Close(); !errors.Is(err, disk) {
		t.Errorf("Close: %v", err)
	}
	if err := rec.Close(); !errors.Is(err, disk) {
		t.Errorf("second Close: %v", err)
	}
}

func TestSameMessageType(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"ghost/msg/Decision", "ghost/Decision", true},
		{"ghost/Decision", "ghost/Decision", true},
		{"ghost/msg/Decision", "ghost/msg/DecisionRationale", false},
		{"ghost/msg/Decision", "other/msg/Decision", false},
		{"ghost/srv/Decision", "ghost/Decision", false},
		{"Decision", "ghost/Decision", false},
		{"ghost/msg/msg/X", "ghost/msg/X", false},
	}
	for _, c := range cases {
		t.Run(c.a+"~"+c.b, func(t *testing.T) {
			if got := SameMessageType(c.a, c.b); got != c.want {
				t.Fatalf("SameMessageType(%q, %q) = %v", c.a, c.b, got)
			}
		})
	}
}

func TestRecorderZeroAllocsPerMessage(t *testing.T) {
	rec, err := NewRecorder(io.Discard, RecorderOptions{ChunkSpan: -1, ChunkSize: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText)
	data := payload(1, 150)
	for i := range 100_000 { // grow the chunk's buffers and indexes
		_ = rec.Write(ch, uint64(i), 0, data)
	}
	var i uint64 = 100_000
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		if err := rec.Write(ch, i, i, data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Write, want 0", allocs)
	}
}

// slowWriter delays some writes, to shuffle the scheduling of the
// compressors against the output.
type slowWriter struct {
	buf bytes.Buffer
	n   int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n%3 == 0 {
		time.Sleep(time.Millisecond)
	}
	return w.buf.Write(p)
}

// TestRecorderDeterministic records the same calls under different
// scheduling and expects the same bytes.
func TestRecorderDeterministic(t *testing.T) {
	record := func(w io.Writer, yield bool) {
		rec, err := NewRecorder(w, RecorderOptions{ChunkSize: 700})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText)
		for i := range 400 {
			if i == 150 { // a channel added mid-recording
				if _, err := rec.AddChannel("/b", "test/msg/U", testSchemaText, qos.DefaultInput()); err != nil {
					t.Fatal(err)
				}
			}
			ch := a
			if i > 150 && i%2 == 0 {
				ch = 2
			}
			if err := rec.Write(ch, uint64(i), uint64(i), payload(i, 50+i%30)); err != nil {
				t.Fatal(err)
			}
			if yield && i%7 == 0 {
				time.Sleep(50 * time.Microsecond)
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var fast bytes.Buffer
	record(&fast, false)
	slow := &slowWriter{}
	record(slow, true)
	if !bytes.Equal(fast.Bytes(), slow.buf.Bytes()) {
		t.Fatalf("same calls, different files: %d and %d bytes", fast.Len(), slow.buf.Len())
	}
	r, err := NewReader(bytes.NewReader(fast.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil || len(got) != 400 {
		t.Fatalf("read %d messages: %v", len(got), err)
	}
}

// TestRecorderConcurrentWriters writes from several goroutines and checks
// that every message arrives with consecutive sequence numbers per channel.
func TestRecorderConcurrentWriters(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, RecorderOptions{ChunkSize: 4000})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 500
	ids := make([]ChannelID, writers)
	for i := range ids {
		ids[i], _ = rec.AddChannel(fmt.Sprintf("/w%d", i), "test/msg/T", testSchemaText)
	}
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			for i := range each {
				if err := rec.Write(ids[w], uint64(i), 0, payload(i, 40)); err != nil {
					errs <- err
					return
				}
				if i == each/2 && w == 0 {
					if err := rec.Flush(); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]uint32{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		next[m.Topic]++
		if m.Sequence != next[m.Topic] {
			t.Fatalf("%s: sequence %d, want %d", m.Topic, m.Sequence, next[m.Topic])
		}
	}
	for i := range writers {
		if n := next[fmt.Sprintf("/w%d", i)]; n != each {
			t.Errorf("/w%d: %d messages, want %d", i, n, each)
		}
	}
}

// TestRecorderFlush makes everything written so far readable, without
// closing the recording.
func TestRecorderFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.mcap")
	rec, err := CreateRecording(path, RecorderOptions{ChunkSpan: -1})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText)
	for round := 1; round <= 3; round++ {
		for i := range 10 {
			if err := rec.Write(ch, uint64(round*100+i), 0, payload(i, 30)); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		r, err := OpenRecording(path, ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		r.Close()
		if !errors.Is(err, ErrTruncated) || len(got) != round*10 {
			t.Fatalf("round %d: read %d messages (%v), want %d then ErrTruncated", round, len(got), err, round*10)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(); !errors.Is(err, ErrRecorderClosed) {
		t.Fatalf("Flush after Close: %v", err)
	}
}

// TestReaderDeclarationBudget feeds many small channel records, none too
// large on its own, and expects the reader to stop holding them at its
// limit.
func TestReaderDeclarationBudget(t *testing.T) {
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&mcap.Header{Profile: "ros2"}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSchema(&mcap.Schema{ID: 1, Name: "test/msg/T", Encoding: "ros2msg", Data: []byte("uint8 x\n")}); err != nil {
		t.Fatal(err)
	}
	for id := range uint16(200) {
		err := w.WriteChannel(&mcap.Channel{ID: id, SchemaID: 1, Topic: fmt.Sprintf("/t%03d", id), MessageEncoding: "cdr",
			Metadata: map[string]string{"pad": strings.Repeat("x", 100)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{MaxChunkSize: 4096, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		_, err = readAll(t, r)
		var te *TruncatedError
		if !errors.Is(err, ErrReaderLimit) || !errors.As(err, &te) || te.Record != "channel" {
			t.Errorf("stream=%v: err = %v, want ErrReaderLimit at a channel record", stream, err)
		}
		if r.Indexed() {
			t.Errorf("stream=%v: indexed although the summary exceeds the limit", stream)
		}
	}
}

func TestReaderMessageCount(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := rec.AddMessageChannel("/a", "PerceptionMode")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rec.AddMessageChannel("/b", "PerceptionMode")
	if err != nil {
		t.Fatal(err)
	}
	m := ros2msg.PerceptionMode{StampSimNs: 1}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 7; i++ {
		ch := a
		if i%3 == 0 {
			ch = b
		}
		if err := rec.Write(ch, i, i, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		topics []string
		stream bool
		want   uint64
	}{
		{nil, false, 7},
		{[]string{"/a"}, false, 4},
		{[]string{"/b"}, false, 3},
		{nil, true, 0},
	} {
		r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Topics: tc.topics, Stream: tc.stream})
		if err != nil {
			t.Fatal(err)
		}
		before := r.MessageCount()
		var n uint64
		for _, err := range r.Messages() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if got := r.MessageCount(); got != tc.want || before != tc.want || (!tc.stream && got != n) {
			t.Errorf("topics %v stream %v: MessageCount %d, want %d (read %d)", tc.topics, tc.stream, got, tc.want, n)
		}
	}
}

// With WaitChunks, every chunk a Write closes is in the output when Write
// returns: a crash right after loses at most the open chunk.
func TestRecorderWaitChunks(t *testing.T) {
	for _, wait := range []bool{true, false} {
		var out syncBuffer
		rec, err := NewRecorder(&out, RecorderOptions{ChunkSize: 1024, WaitChunks: wait})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := rec.AddMessageChannel("/d", "PerceptionMode")
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 300)
		for i := uint64(0); i < 40; i++ {
			if err := rec.Write(ch, i, i, data); err != nil {
				t.Fatal(err)
			}
			if st := rec.Stats(); wait && i >= 4 && st.Chunks == 0 {
				t.Fatalf("after %d writes no chunk is written", i+1)
			}
		}
		if wait {
			// Everything up to the open chunk is readable as a stream now.
			r, err := NewReader(bytes.NewReader(out.Bytes()), ReaderOptions{Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range r.Messages() {
				if err != nil {
					break
				}
				n++
			}
			if n < 40-4 {
				t.Fatalf("only %d of 40 messages readable before Close", n)
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the Recorder's writing goroutine
// and a test reading it at the same time.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

// TestReaderChannelsWhileReading: Channels and Problems may be called from
// another goroutine while messages are read (replay and verify read ahead
// on one goroutine and copy channels or report problems on another), also
// in a stream read, where channels are declared as they come. Run with
// -race.
func TestReaderChannelsWhileReading(t *testing.T) {
	var buf bytes.Buffer
	w, must := rawRecording(t, &buf, mcap.WriterOptions{Chunked: true, ChunkSize: 256, IncludeCRC: true})
	const channels, each = 40, 20
	for id := uint16(1); id <= channels; id++ {
		topic := fmt.Sprintf("/t%d", id)
		if id%4 == 0 {
			topic = "/decisions" // the wrong schema: a problem, its messages skipped
		}
		must(w.WriteChannel(&mcap.Channel{ID: id, SchemaID: 1, Topic: topic, MessageEncoding: "cdr", Metadata: map[string]string{}}))
		for i := range each {
			must(w.WriteMessage(&mcap.Message{ChannelID: id, LogTime: uint64(id)*each + uint64(i), Data: []byte{byte(id)}}))
		}
	}
	must(w.Close())

	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{
				Stream:  stream,
				Schemas: map[string]string{"/decisions": "ghost/msg/DecisionRationale"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			done := make(chan struct{})
			polled := make(chan int)
			go func() {
				n := 0
				for {
					select {
					case <-done:
						polled <- n
						return
					default:
					}
					n += len(r.Channels()) + len(r.Problems())
				}
			}()
			got, err := readAll(t, r)
			close(done)
			<-polled
			if err != nil {
				t.Fatal(err)
			}
			if want := (channels - channels/4) * each; len(got) != want {
				t.Errorf("read %d messages, want %d", len(got), want)
			}
			if n := len(r.Channels()); n != channels {
				t.Errorf("%d channels, want %d", n, channels)
			}
			problems := r.Problems()
			if len(problems) != channels/4 {
				t.Fatalf("%d problems, want %d", len(problems), channels/4)
			}
			for _, p := range problems {
				if p.Skipped != each || !errors.Is(p.Err, ErrUnexpectedSchema) {
					t.Errorf("channel %d: skipped %d (%v), want %d", p.Channel.ID, p.Skipped, p.Err, each)
				}
			}
		})
	}
}

// stallingWriter passes writes through until armed; then its next Write
// reports that it was entered and waits for release, as a disk does that
// takes seconds to sync.
type stallingWriter struct {
	syncBuffer
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (w *stallingWriter) Write(p []byte) (int, error) {
	if w.armed.CompareAndSwap(true, false) {
		close(w.entered)
		<-w.release
	}
	return w.syncBuffer.Write(p)
}

// Without WaitChunks, a Write that closes a chunk returns while the output
// is stuck on an earlier chunk, as long as the pipeline has room: a node
// recording its inputs and decisions must not decide late because the disk
// is slow. Once released, every message is in the recording.
func TestRecorderWriteDoesNotWaitForStalledOutput(t *testing.T) {
	out := &stallingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	rec, err := NewRecorder(out, RecorderOptions{ChunkSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rec.AddMessageChannel("/d", "PerceptionMode")
	if err != nil {
		t.Fatal(err)
	}
	out.armed.Store(true)
	data := make([]byte, 300)
	write := func(from, to uint64) {
		for i := from; i < to; i++ {
			if err := rec.Write(ch, i, i, data); err != nil {
				t.Error(err)
				return
			}
		}
	}
	// Four chunks: the first sticks in the output, the other three are
	// written behind it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		write(0, 4)
		<-out.entered
		write(4, 16)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		close(out.release)
		<-done
		t.Fatal("Write waited for the stalled output")
	}
	close(out.release)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(out.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 16 {
		t.Fatalf("%d of 16 messages recorded", n)
	}
}
