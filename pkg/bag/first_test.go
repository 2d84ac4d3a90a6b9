package bag

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// firstCase is a recording and the first message FirstMessage must find
// on /a in it.
type firstCase struct {
	name string
	c    recordingCase
	// cutAt, if set, says where the file is cut: the unclosed file of a
	// writer that stopped.
	cutAt func(file []byte) int
	// opts are the read's options (Topics is set by FirstMessage).
	opts ReaderOptions
	// want is the log time of the first message on /a; none: no message.
	want    uint64
	none    bool
	wantErr error
	// mostMessages bounds the messages the read accounts, when > 0: an
	// indexed read loads only the chunks it needs.
	mostMessages uint64
}

func firstCases() []firstCase {
	chans := []testChannel{{"/a", "test/msg/T", nil}, {"/b", "test/msg/T", nil}}
	// /b every tick from 0, /a from 200 on, every tenth: /a's first
	// message lies in a chunk far from the first.
	late := func() []testWrite {
		var w []testWrite
		for i := range 300 {
			w = append(w, testWrite{1, uint64(i), payload(i, 60)})
			if i >= 200 && i%10 == 0 {
				w = append(w, testWrite{0, uint64(i), payload(1000+i, 60)})
			}
		}
		return w
	}
	onlyB := func() []testWrite {
		var w []testWrite
		for i := range 100 {
			w = append(w, testWrite{1, uint64(i), payload(i, 60)})
		}
		return w
	}
	// Two chunks overlapping in log time (the writer's clock jumped
	// back): the second starts later than the first but holds the
	// earliest /a.
	overlapping := []testWrite{
		{1, 0, payload(1, 400)}, {0, 50, payload(2, 400)},
		{1, 10, payload(3, 400)}, {0, 20, payload(4, 400)},
	}
	small := RecorderOptions{ChunkSize: 500, ChunkSpan: -1}
	beforeSummary := func(file []byte) int {
		return int(summaryStartOf(file))
	}
	return []firstCase{
		{name: "indexed, late in the file", c: recordingCase{opts: small, channels: chans, writes: late()},
			want: 200, mostMessages: 20},
		{name: "indexed, channel without messages", c: recordingCase{opts: small, channels: chans, writes: onlyB()},
			none: true, mostMessages: 0},
		{name: "indexed, no such channel", c: recordingCase{opts: small, channels: chans[1:], writes: func() []testWrite {
			w := onlyB()
			for i := range w {
				w[i].channel = 0
			}
			return w
		}()}, none: true, mostMessages: 0},
		{name: "indexed, overlapping chunks", c: recordingCase{opts: RecorderOptions{ChunkSize: 700, ChunkSpan: -1}, channels: chans, writes: overlapping},
			want: 20},
		{name: "indexed, channel of another schema", c: recordingCase{opts: small, channels: chans, writes: late()},
			opts: ReaderOptions{Schemas: map[string]string{"/a": "test/msg/Other"}}, none: true},
		{name: "stream read", c: recordingCase{opts: small, channels: chans, writes: late()},
			opts: ReaderOptions{Stream: true}, want: 200},
		{name: "unclosed, found before the end", c: recordingCase{opts: small, channels: chans, writes: late()},
			cutAt: beforeSummary, want: 200},
		{name: "unclosed, none", c: recordingCase{opts: small, channels: chans, writes: onlyB()},
			cutAt: beforeSummary, wantErr: ErrTruncated},
		{name: "unclosed before the first", c: recordingCase{opts: small, channels: chans, writes: late()},
			cutAt: func(file []byte) int { return len(file) / 3 }, wantErr: ErrTruncated},
	}
}

// summaryStartOf is where a closed file's summary starts: what a writer
// stopped after its data section leaves.
func summaryStartOf(file []byte) uint64 {
	info, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil || info.ra == nil {
		return 0
	}
	var end uint64
	for _, c := range info.chunkIdx {
		end = max(end, c.offset+c.length)
	}
	return end
}

func TestFirstMessage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range firstCases() {
		t.Run(tc.name, func(t *testing.T) {
			file, want := tc.c.write(t)
			if tc.cutAt != nil {
				n := tc.cutAt(file)
				if n <= 0 || n >= len(file) {
					t.Fatalf("cut at %d of %d bytes", n, len(file))
				}
				file = file[:n]
			}
			path := filepath.Join(dir, tc.name+".mcap")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			m, ok, err := FirstMessage(path, "/a", tc.opts)
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) || ok {
					t.Fatalf("ok %v, err %v; want %v", ok, err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			case tc.none:
				if ok {
					t.Fatalf("found %s at %d, want none", m.Topic, m.LogTime)
				}
				return
			case !ok:
				t.Fatal("found none")
			}
			var first *wantMsg
			for i, w := range want {
				if w.topic == "/a" && (first == nil || w.logTime < first.logTime) {
					first = &want[i]
				}
			}
			if m.Topic != "/a" || m.LogTime != tc.want || first == nil || m.LogTime != first.logTime ||
				!bytes.Equal(m.Data, first.data) || m.Sequence != first.seq {
				t.Fatalf("got %s at %d seq %d, want /a at %d (%+v)", m.Topic, m.LogTime, m.Sequence, tc.want, first)
			}
		})
	}
}

// An indexed file is read only as far as its index needs: the statistics
// answer for a topic without messages, the message indexes pick the
// chunks, and the read stops at the first message.
func TestFirstMessageReadsLittle(t *testing.T) {
	for _, tc := range firstCases() {
		if tc.cutAt != nil || tc.opts.Stream || tc.mostMessages == 0 && !tc.none {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			file, want := tc.c.write(t)
			opts := tc.opts
			opts.Topics = []string{"/a"}
			r, err := NewReader(bytes.NewReader(file), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Indexed() {
				t.Fatal("not read through the index")
			}
			if _, _, err := r.first(); err != nil {
				t.Fatal(err)
			}
			var accounted uint64
			for _, n := range r.seen {
				accounted += n
			}
			if accounted > tc.mostMessages || tc.mostMessages >= uint64(len(want)) {
				t.Fatalf("accounted %d of %d messages, want at most %d", accounted, len(want), tc.mostMessages)
			}
		})
	}
}
