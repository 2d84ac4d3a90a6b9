package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// recorderZstdChunk returns the records field of the first chunk of a zstd
// recording with n messages, as the Recorder compresses it.
func recorderZstdChunk(t testing.TB, n, size int) []byte {
	t.Helper()
	c := recordingCase{channels: []testChannel{{"/a", "test/msg/T", nil}}}
	for i := range n {
		c.writes = append(c.writes, testWrite{0, uint64(i), payload(i, size)})
	}
	file, _ := c.write(t)
	mr, err := mcap.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	info, err := mr.Info()
	if err != nil {
		t.Fatal(err)
	}
	body := file[info.ChunkIndexes[0].ChunkStartOffset+9:]
	clen := binary.LittleEndian.Uint32(body[28:])
	return bytes.Clone(body[32+clen+8 : info.ChunkIndexes[0].ChunkLength-9])
}

// zstdHeader builds a frame header: descriptor, then window descriptor or
// content size as the descriptor says.
func zstdHeader(fhd byte, rest ...byte) []byte {
	return append([]byte{0x28, 0xb5, 0x2f, 0xfd, fhd}, rest...)
}

func TestCheckZstdFrames(t *testing.T) {
	small := recorderZstdChunk(t, 20, 100)
	big := recorderZstdChunk(t, 5000, 300)                      // multi-block, window declared
	rawBlock := []byte{0x01 | 0<<1 | 3<<3, 0, 0, 'a', 'b', 'c'} // last, raw, 3 bytes
	cases := []struct {
		name    string
		data    []byte
		content uint64
		window  uint64
		want    string // error substring; empty = accepted
	}{
		{"recorder small chunk", small, 1 << 20, 8 << 20, ""},
		{"recorder large chunk", big, 64 << 20, 8 << 20, ""},
		{"two frames", append(bytes.Clone(small), small...), 1 << 20, 8 << 20, ""},
		{"skippable frame", append([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9}, small...), 1 << 20, 8 << 20, ""},
		{"hand-made raw block", append(zstdHeader(0x20, 3), rawBlock...), 16, 16, ""},
		{"empty", nil, 1 << 20, 8 << 20, "no frame"},
		{"trailing byte", append(bytes.Clone(small), 0), 1 << 20, 8 << 20, "bytes left"},
		{"trailing garbage", append(bytes.Clone(small), 1, 2, 3, 4, 5), 1 << 20, 8 << 20, "magic"},
		{"cut short", small[:len(small)-1], 1 << 20, 8 << 20, "cut short"},
		{"bad magic", []byte{1, 2, 3, 4, 5, 6}, 1 << 20, 8 << 20, "magic"},
		{"reserved bit", append(zstdHeader(0x28, 3), rawBlock...), 16, 16, "reserved header bit"},
		{"reserved block type", append(zstdHeader(0x20, 3), 0x07, 0, 0), 16, 16, "reserved block type"},
		// window descriptor 0xF8: exponent 31, 2 TiB
		{"huge window", append(zstdHeader(0x00, 0xF8), rawBlock...), 1 << 20, 8 << 20, "window 2199023255552"},
		// single segment, 8-byte content size of 1 GiB
		{"huge content size", append(zstdHeader(0xE0, 0, 0, 0, 0x40, 0, 0, 0, 0), rawBlock...), 1 << 20, 8 << 20, "content size 1073741824"},
		{"window above chunk limit but allowed", big, 1 << 20, 8 << 20, ""},
		{"skippable overrun", []byte{0x50, 0x2a, 0x4d, 0x18, 200, 0, 0, 0, 9}, 1 << 20, 8 << 20, "overruns"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkZstdFrames(c.data, c.content, c.window)
			if c.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if err := checkZstdFrames(append(zstdHeader(0x00, 0xF8), rawBlock...), 1<<20, 8<<20); !errors.Is(err, ErrReaderLimit) {
		t.Errorf("huge window: %v does not wrap ErrReaderLimit", err)
	}
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
		mr, err := mcap.NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		info, err := mr.Info()
		if err != nil {
			t.Fatal(err)
		}
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
	defer dec.close()
	var got, buf []byte
	for _, body := range chunks {
		records, err := dec.decode(body, buf[:0])
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

func FuzzMCAPZstdFrames(f *testing.F) {
	f.Add(recorderZstdChunk(f, 20, 100))
	f.Add(append(zstdHeader(0x20, 3), 0x19, 0, 0, 'a', 'b', 'c'))
	f.Add([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := checkZstdFrames(data, 1<<20, 8<<20); err != nil {
			return
		}
		// Accepted input is whole frames: dropping the last byte must not
		// be accepted too.
		if len(data) > 0 && checkZstdFrames(data[:len(data)-1], 1<<20, 8<<20) == nil {
			t.Fatalf("accepts both %d bytes and their %d-byte prefix", len(data), len(data)-1)
		}
	})
}
