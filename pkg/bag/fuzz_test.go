package bag

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// fuzzAllocLimit bounds what one input may allocate: far above what the
// reader's limits allow (a few chunks of fuzzMaxChunk), far below what an
// unbounded allocation from a forged length would take.
const (
	fuzzMaxChunk   = 1 << 20
	fuzzAllocLimit = 64 << 20
)

func FuzzMCAPReader(f *testing.F) {
	for _, c := range recordingCases() {
		if len(c.writes) > 60 {
			c.writes = c.writes[:60]
		}
		for _, w := range c.writes {
			if len(w.data) > 2000 {
				w.data = w.data[:2000]
			}
		}
		file, _ := c.write(f)
		if len(file) > 20000 {
			continue
		}
		f.Add(file)
		f.Add(file[:len(file)*2/3])
	}
	f.Add([]byte("\x89MCAP0\r\n"))
	f.Add([]byte("not mcap"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, stream := range []bool{false, true} {
			r, err := NewReader(bytes.NewReader(data), ReaderOptions{
				Stream:       stream,
				MaxChunkSize: fuzzMaxChunk,
				MaxBuffered:  4 * fuzzMaxChunk,
				Schemas:      map[string]string{"/a": "test/msg/T"},
			})
			if err != nil {
				continue
			}
			// A record is at least 9 bytes, so no input holds more
			// messages than this; more would mean the reader loops.
			for n := 0; ; n++ {
				if n > len(data) {
					t.Fatalf("more messages than bytes (%d)", len(data))
				}
				m, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					var te *TruncatedError
					if errors.As(err, &te) && (te.Offset < 0 || te.Offset > int64(len(data))) {
						t.Fatalf("error offset %d outside the %d-byte input: %v", te.Offset, len(data), err)
					}
					break
				}
				if len(m.Data) > len(data)*4+fuzzMaxChunk {
					t.Fatalf("message of %d bytes from %d input bytes", len(m.Data), len(data))
				}
			}
			_ = r.Problems()
			_ = r.Close()
		}
		// The first message of a topic, through the index where there is
		// one: at most one message, never a panic.
		if r, err := NewReader(bytes.NewReader(data), ReaderOptions{Topics: []string{"/a"}, MaxChunkSize: fuzzMaxChunk, MaxBuffered: 4 * fuzzMaxChunk}); err == nil {
			if m, ok, err := r.first(); ok && (err != nil || m.Topic != "/a") {
				t.Fatalf("first: %s, %v", m.Topic, err)
			}
			_ = r.Close()
		}
		runtime.ReadMemStats(&after)
		if d := after.TotalAlloc - before.TotalAlloc; d > fuzzAllocLimit {
			t.Fatalf("allocated %d bytes for a %d-byte input", d, len(data))
		}
	})
}
