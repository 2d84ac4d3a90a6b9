package bag

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// The Recorder keeps written chunks' index entries itself, not in the mcap
// writer, until the summary; the summary's entries still point at every
// chunk and at each channel's message index of it.
func TestRecorderChunkIndexesPointAtTheirRecords(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, RecorderOptions{ChunkSize: 400, WaitChunks: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := rec.AddChannel("/a", "test/msg/T", testSchemaText)
	b, _ := rec.AddChannel("/b", "test/msg/T", testSchemaText)
	for i := range 60 {
		ch := a
		if i%3 == 0 {
			ch = b
		}
		if err := rec.Write(ch, uint64(i), uint64(i), payload(i, 40)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(rec.w.ChunkIndexes); n != 0 || len(rec.index.entries) < 5 {
		t.Fatalf("while recording: %d entries in the writer, %d kept compactly", n, len(rec.index.entries))
	}
	kept := len(rec.index.entries)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	info := summaryOf(t, file)
	if len(info.ChunkIndexes) < kept {
		t.Fatalf("summary holds %d chunk indexes, %d were kept before the last chunk", len(info.ChunkIndexes), kept)
	}
	opAt := func(off uint64) mcap.OpCode { return mcap.OpCode(file[off]) }
	for i, ci := range info.ChunkIndexes {
		if opAt(ci.ChunkStartOffset) != mcap.OpChunk || ci.ChunkLength != 9+binary.LittleEndian.Uint64(file[ci.ChunkStartOffset+1:]) {
			t.Fatalf("entry %d: %+v does not point at its chunk", i, ci)
		}
		if len(ci.MessageIndexOffsets) == 0 {
			t.Fatalf("entry %d has no message index", i)
		}
		for id, off := range ci.MessageIndexOffsets {
			if opAt(off) != mcap.OpMessageIndex || binary.LittleEndian.Uint16(file[off+9:]) != id {
				t.Fatalf("entry %d: message index of channel %d at %d is not one", i, id, off)
			}
		}
	}
}

func TestChunkIndexesRoundTrip(t *testing.T) {
	in := []*mcap.ChunkIndex{
		{MessageStartTime: 1, MessageEndTime: 2, ChunkStartOffset: 3, ChunkLength: 4,
			MessageIndexOffsets: map[uint16]uint64{1: 10, 7: 70, 3: 30}, MessageIndexLength: 5,
			Compression: mcap.CompressionZSTD, CompressedSize: 6, UncompressedSize: 7},
		{MessageStartTime: 8, MessageEndTime: 9, ChunkStartOffset: 10, ChunkLength: 11,
			MessageIndexOffsets: map[uint16]uint64{}, Compression: mcap.CompressionNone},
		{MessageStartTime: 12, MessageIndexOffsets: map[uint16]uint64{65535: 1 << 63}, Compression: mcap.CompressionLZ4},
	}
	var x chunkIndexes
	for _, ci := range in {
		x.add(ci)
	}
	out := x.writerIndexes()
	if len(out) != len(in) {
		t.Fatalf("%d entries back, want %d", len(out), len(in))
	}
	for i := range in {
		if !reflect.DeepEqual(out[i], in[i]) {
			t.Fatalf("entry %d: %+v, want %+v", i, out[i], in[i])
		}
	}
}
