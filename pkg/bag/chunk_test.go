package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// encodeRecords serializes records as a chunk holds them, through the
// mcap library's own writer.
func encodeRecords(t testing.TB, write func(w *mcap.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{SkipMagic: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testDecls are the schema and channel records of a minimal valid ros2
// channel 1 on topic.
func testDecls(t testing.TB, topic string) []byte {
	return encodeRecords(t, func(w *mcap.Writer) error {
		if err := w.WriteSchema(&mcap.Schema{ID: 1, Name: "test/msg/T", Encoding: "ros2msg", Data: []byte("uint8 x\n")}); err != nil {
			return err
		}
		return w.WriteChannel(&mcap.Channel{ID: 1, SchemaID: 1, Topic: topic, MessageEncoding: "cdr", Metadata: map[string]string{}})
	})
}

// testMessages are n message records on channel 1, from log time from.
func testMessages(t testing.TB, from, n int) []byte {
	return encodeRecords(t, func(w *mcap.Writer) error {
		w.AddChannel(&mcap.Channel{ID: 1})
		for i := from; i < from+n; i++ {
			if err := w.WriteMessage(&mcap.Message{ChannelID: 1, Sequence: uint32(i), LogTime: uint64(i), Data: []byte{byte(i)}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// testChunk is a chunk record as a file holds it, with whatever size,
// compression and payload it claims.
type testChunk struct {
	compression string
	size        uint64 // declared uncompressed size
	crc         uint32
	payload     []byte
	start       uint64 // message start time, for the index
}

// plainChunk is an uncompressed chunk holding records.
func plainChunk(records []byte, start uint64) testChunk {
	return testChunk{size: uint64(len(records)), crc: crc32.ChecksumIEEE(records), payload: records, start: start}
}

// chunkedFile writes a ros2 file of the given chunks with a summary (so it
// reads indexed) through the mcap library's writer, and returns it with
// the chunks' offsets.
func chunkedFile(t testing.TB, chunks ...testChunk) ([]byte, []int64) {
	t.Helper()
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{IncludeCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&mcap.Header{Profile: "ros2"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		err := w.WriteChunkWithIndexes(&mcap.Chunk{MessageStartTime: c.start, MessageEndTime: c.start,
			UncompressedSize: c.size, UncompressedCRC: c.crc, Compression: c.compression, Records: c.payload}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	var at []int64
	for _, ci := range w.ChunkIndexes {
		at = append(at, int64(ci.ChunkStartOffset))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), at
}

// readBounded reads file in both modes and returns each mode's error and
// the most bytes either read allocated.
func readBounded(t *testing.T, file []byte) (errs [2]error, alloc uint64) {
	t.Helper()
	for i, stream := range []bool{false, true} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := NewReader(bytes.NewReader(file), ReaderOptions{Stream: stream})
		if err != nil {
			t.Fatalf("stream=%v: NewReader: %v", stream, err)
		}
		if r.Indexed() == stream {
			t.Fatalf("stream=%v: indexed %v", stream, r.Indexed())
		}
		_, errs[i] = readAll(t, r)
		r.Close()
		runtime.ReadMemStats(&after)
		alloc = max(alloc, after.TotalAlloc-before.TotalAlloc)
	}
	return errs, alloc
}

// zstdRLEFrame is a zstd frame of n RLE blocks of 128 KiB each: 4 bytes of
// input per 128 KiB of output. fcs, when not zero, is declared as the
// frame content size (single segment); otherwise none is declared.
func zstdRLEFrame(n int, fcs uint64) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if fcs != 0 {
		f = append(f, 0xE0) // 8-byte content size, single segment
		f = binary.LittleEndian.AppendUint64(f, fcs)
	} else {
		f = append(f, 0x00, 0x38) // no content size; 128 KiB window
	}
	for i := range n {
		bh := uint32(1<<1 | 128<<10<<3) // RLE, 128 KiB
		if i == n-1 {
			bh |= 1 // last
		}
		f = append(f, byte(bh), byte(bh>>8), byte(bh>>16), 0)
	}
	return f
}

// lz4Bomb is an lz4 frame that decompresses to n blocks of 4 MiB of zeros
// while holding one compressed block repeated n times.
func lz4Bomb(t *testing.T, n int) []byte {
	t.Helper()
	var one bytes.Buffer
	w := lz4.NewWriter(&one)
	if err := w.Apply(lz4.ChecksumOption(false)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := one.Bytes()
	const header, endMark = 7, 4 // magic, FLG, BD, HC; a zero block size
	block := b[header : len(b)-endMark]
	out := bytes.Clone(b[:header])
	for range n {
		out = append(out, block...)
	}
	return append(out, b[len(b)-endMark:]...)
}

// TestChunkBombs gives the reader chunks whose payloads expand beyond what
// they declare, or that declare more than the reader accepts. Each must be
// rejected as damage at that chunk, in both modes, without allocating
// anywhere near the expansion.
func TestChunkBombs(t *testing.T) {
	const allocCap = 64 << 20
	decls := plainChunk(testDecls(t, "/a"), 0)
	msgs := testMessages(t, 0, 3)
	cases := []struct {
		name  string
		chunk testChunk
		want  string
	}{
		// 1 TiB declared by the frame; the chunk claims the real size.
		{"zstd frame declares 1 TiB", testChunk{compression: "zstd", size: uint64(len(msgs)), payload: zstdRLEFrame(1, 1<<40)}, "exceeds"},
		// 1 GiB of output from 32 KiB of input, no size declared.
		{"zstd without content size", testChunk{compression: "zstd", size: uint64(len(msgs)), payload: zstdRLEFrame(8192, 0)}, "exceeds its declared"},
		{"zstd frame larger than the chunk", testChunk{compression: "zstd", size: 1000, payload: zstdRLEFrame(2, 256<<10)}, "exceeds"},
		// 1 GiB of zeros in 16 KiB.
		{"lz4 beyond declared size", testChunk{compression: "lz4", size: 1000, payload: lz4Bomb(t, 256)}, "exceeds its declared 1000"},
		{"declares 1 TiB", testChunk{compression: "zstd", size: 1 << 40, payload: zstdRLEFrame(1, 0)}, "limit"},
		{"declares 1 TiB lz4", testChunk{compression: "lz4", size: 1 << 40, payload: []byte{1, 2, 3}}, "limit"},
		{"declares just over the limit", testChunk{compression: "lz4", size: DefaultMaxChunkSize + 1, payload: []byte{1}}, "limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.chunk.start = 1
			file, offsets := chunkedFile(t, decls, c.chunk)
			at := offsets[1]
			errs, alloc := readBounded(t, file)
			for i, err := range errs {
				var te *TruncatedError
				if !errors.As(err, &te) || te.Record != "chunk" || te.Offset != at || !strings.Contains(err.Error(), c.want) {
					t.Errorf("stream=%v: err = %v, want damage at chunk byte %d mentioning %q", i == 1, err, at, c.want)
				}
			}
			if alloc > allocCap {
				t.Errorf("allocated %d bytes, cap %d", alloc, allocCap)
			}
		})
	}
}

// TestChunkFramingPreCheck is the regression test for a chunk whose
// compression-length field overruns its record: the mcap library's lexer
// slices out of range on it, the Reader must report damage at the chunk.
func TestChunkFramingPreCheck(t *testing.T) {
	good := plainChunk(append(testDecls(t, "/a"), testMessages(t, 0, 3)...), 0)
	file, offsets := chunkedFile(t, good)
	at := offsets[0]
	binary.LittleEndian.PutUint32(file[at+9+28:], 100000)
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = readAll(t, r)
	var te *TruncatedError
	if !errors.As(err, &te) || te.Offset != at || !strings.Contains(err.Error(), "compression field of 100000 bytes") {
		t.Fatalf("err = %v, want damage at chunk byte %d", err, at)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Logf("the mcap lexer still panics on this input (%v): keep the pre-check", p)
			}
		}()
		lex, err := mcap.NewLexer(bytes.NewReader(file), &mcap.LexerOptions{})
		if err != nil {
			return
		}
		defer lex.Close()
		for {
			if _, _, err := lex.Next(nil); err != nil {
				return
			}
		}
	}()
}

// TestChunkDecoderReuse decodes chunks of every compression in turn with one
// decoder, as a stream read does, and checks each against its records.
func TestChunkDecoderReuse(t *testing.T) {
	var chunks [][]byte
	var want [][]byte
	for _, comp := range []Compression{CompressionZstd, CompressionLZ4, CompressionNone, CompressionZstd} {
		c := recordingCase{opts: RecorderOptions{Compression: comp, ChunkSize: 3000},
			channels: []testChannel{{"/a", "test/msg/T", nil}}}
		for i := range 100 {
			c.writes = append(c.writes, testWrite{0, uint64(i), payload(i, 80)})
		}
		file, _ := c.write(t)
		info := summaryOf(t, file)
		lex, err := mcap.NewLexer(bytes.NewReader(file), &mcap.LexerOptions{ValidateChunkCRCs: true})
		if err != nil {
			t.Fatal(err)
		}
		var all []byte
		for {
			tok, rec, err := lex.Next(nil)
			if err != nil {
				break
			}
			if tok == mcap.TokenMessage {
				all = append(all, rec...)
			}
		}
		lex.Close()
		for _, ci := range info.ChunkIndexes {
			chunks = append(chunks, file[ci.ChunkStartOffset+9:ci.ChunkStartOffset+ci.ChunkLength])
		}
		want = append(want, all)
	}
	dec := chunkDecoder{maxSize: 1 << 20}
	var got, buf []byte
	for _, body := range chunks {
		records, err := dec.decode(body, buf)
		if err != nil {
			t.Fatal(err)
		}
		buf = records
		for off := 0; off < len(records); {
			op := mcap.OpCode(records[off])
			n := int(binary.LittleEndian.Uint64(records[off+1:]))
			if op == mcap.OpMessage {
				got = append(got, records[off+9:off+9+n]...)
			}
			off += 9 + n
		}
	}
	if !bytes.Equal(got, bytes.Join(want, nil)) {
		t.Fatalf("decoded %d message bytes, want %d", len(got), len(bytes.Join(want, nil)))
	}
}

// FuzzChunkDecode feeds chunk record bodies to the decoder: it must never
// panic, and what it accepts must be exactly the declared size.
func FuzzChunkDecode(f *testing.F) {
	msgs := testMessages(f, 0, 3)
	for _, c := range []testChunk{
		plainChunk(msgs, 0),
		{compression: "zstd", size: uint64(len(msgs)), payload: zstdRLEFrame(1, 1<<40)},
		{compression: "zstd", size: 1000, payload: zstdRLEFrame(3, 0)},
		{compression: "lz4", size: 10, payload: []byte{4, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73, 0, 0, 0, 0}},
	} {
		file, at := chunkedFile(f, c)
		f.Add(file[at[0]+9 : int(at[0])+9+28+4+len(c.compression)+8+len(c.payload)])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		dec := chunkDecoder{maxSize: 1 << 20}
		out, err := dec.decode(body, nil)
		if err != nil {
			return
		}
		if size := binary.LittleEndian.Uint64(body[16:]); uint64(len(out)) != size {
			t.Fatalf("accepted %d bytes for a chunk declaring %d", len(out), size)
		}
	})
}

func TestClip(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	for _, c := range []struct{ in, want string }{
		{"/a", `"/a"`},
		{"a\nb", `"a\nb"`},
		{long, `"` + long[:maxQuoted] + `"... (10000 bytes)`},
	} {
		if got := clip(c.in); got != c.want {
			t.Errorf("clip(%.20q) = %.80q, want %.80q", c.in, got, c.want)
		}
	}
}

// A zstd chunk's bytes are checked once: by the chunk's CRC when it has
// one, else by the frame's own checksum, which then must not be skipped.
func TestZstdChunkIntegrity(t *testing.T) {
	msgs := testMessages(t, 0, 3)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(msgs, nil)
	badSum := slices.Clone(frame)
	badSum[len(badSum)-1] ^= 1 // the frame checksum's last byte
	good := crc32.ChecksumIEEE(msgs)
	for _, tc := range []struct {
		name    string
		crc     uint32
		payload []byte
		want    string // "" when accepted
	}{
		{"crc, frame checksum intact", good, frame, ""},
		{"crc, frame checksum damaged", good, badSum, ""},
		{"wrong crc", good ^ 1, frame, "CRC mismatch"},
		{"no crc, frame checksum intact", 0, frame, ""},
		{"no crc, frame checksum damaged", 0, badSum, "zstd chunk: CRC check failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, at := chunkedFile(t, testChunk{compression: "zstd", size: uint64(len(msgs)), crc: tc.crc, payload: tc.payload})
			body := file[at[0]+9 : int(at[0])+9+28+4+len("zstd")+8+len(tc.payload)]
			dec := chunkDecoder{maxSize: 1 << 20}
			out, err := dec.decode(body, nil)
			switch {
			case tc.want == "" && (err != nil || !bytes.Equal(out, msgs)):
				t.Fatalf("got %d bytes, %v; want the records", len(out), err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
