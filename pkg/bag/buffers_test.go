package bag

import (
	"bytes"
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// recordParts writes parts recordings one after the other, each opened
// before the previous one is closed (as a split recording switches
// files), all with opts, and returns their bytes.
func recordParts(t testing.TB, opts RecorderOptions, parts int) [][]byte {
	t.Helper()
	outs := make([]*bytes.Buffer, parts)
	var prev *Recorder
	for k := range parts {
		outs[k] = new(bytes.Buffer)
		rec, err := NewRecorder(outs[k], opts)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := rec.AddChannel("/a", "test/msg/T", testSchemaText, qos.DefaultInput())
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			if err := prev.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 300 {
			if err := rec.Write(ch, uint64(i), uint64(i), payload(k*1000+i, 40+i%50)); err != nil {
				t.Fatal(err)
			}
		}
		prev = rec
	}
	if err := prev.Close(); err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, parts)
	for k, b := range outs {
		out[k] = b.Bytes()
	}
	return out
}

// TestBuffersShared: recordings sharing Buffers are byte for byte those
// with their own, and later files reuse the compressors and chunk buffers
// of the earlier ones: the set stays the size of what is used at once.
func TestBuffersShared(t *testing.T) {
	for _, comp := range []Compression{CompressionZstd, CompressionLZ4, CompressionNone} {
		t.Run(string(comp), func(t *testing.T) {
			own := recordParts(t, RecorderOptions{Compression: comp, ChunkSize: 900}, 4)
			bufs := NewBuffers()
			shared := recordParts(t, RecorderOptions{Compression: comp, ChunkSize: 900, Buffers: bufs}, 4)
			for k := range own {
				if !bytes.Equal(own[k], shared[k]) {
					t.Fatalf("part %d: %d bytes with own buffers, %d with shared ones", k, len(own[k]), len(shared[k]))
				}
			}
			// The set holds what the Recorders used at once: a file's lanes,
			// and the lanes of the file being closed beside the next one's.
			// A compressor or buffer not given back would grow it with
			// every chunk (about 20 a file here).
			check := func(when string) {
				t.Helper()
				comps, batches := len(bufs.compressors), len(bufs.batches)
				if comps == 0 || comps > 2*chunkLanes || batches == 0 || batches > maxFreeBatches {
					t.Fatalf("%s: %d compressors (want 1..%d), %d free chunk buffers (want 1..%d)",
						when, comps, 2*chunkLanes, batches, maxFreeBatches)
				}
			}
			check("after 4 files")
			recordParts(t, RecorderOptions{Compression: comp, ChunkSize: 900, Buffers: bufs}, 8)
			check("after 12 files")
		})
	}
}

// BenchmarkRecordingParts is one file of a split recording: opened,
// written with 2,000 decisions and closed, with the Buffers every file
// shares or with its own.
func BenchmarkRecordingParts(b *testing.B) {
	msgs := benchRationales(b, 2000)
	for _, shared := range []bool{true, false} {
		b.Run(map[bool]string{true: "shared", false: "own"}[shared], func(b *testing.B) {
			opts := RecorderOptions{}
			if shared {
				opts.Buffers = NewBuffers()
			}
			b.ReportAllocs()
			for b.Loop() {
				writeDecisions(b, io.Discard, opts, msgs, len(msgs))
			}
		})
	}
}
