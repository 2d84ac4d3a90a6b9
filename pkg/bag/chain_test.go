package bag

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLogTimes writes a recording of one message per log time (its data
// the log time in decimal), in the order given.
func writeLogTimes(t *testing.T, path string, times ...uint64) {
	t.Helper()
	rec, err := CreateRecording(path, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rec.AddMessageChannel("/state/nav", "ghost/msg/VehicleState")
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range times {
		if err := rec.Write(ch, lt, lt, []byte(fmt.Sprint(lt))); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// The files of a split recording read as one stream in log-time order:
// where two files meet, messages stamped on arrival interleave, and the
// chain merges them; damage in the next file does not cost the messages
// still to come from the current one.
func TestChain(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.mcap"), filepath.Join(dir, "b.mcap"), filepath.Join(dir, "c.mcap")
	writeLogTimes(t, a, 1, 2, 3, 5, 7)
	writeLogTimes(t, b, 4, 6, 8, 9)
	writeLogTimes(t, c, 10, 11)
	read := func(files ...string) (got []string, end error) {
		var readers []*Reader
		for _, f := range files {
			r, err := OpenRecording(f, ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			readers = append(readers, r)
		}
		chain := NewChain(readers, files)
		for {
			m, err := chain.Next()
			if err != nil {
				return got, err
			}
			if string(m.Data) != fmt.Sprint(m.LogTime) {
				t.Fatalf("message at %d holds %q", m.LogTime, m.Data)
			}
			got = append(got, string(m.Data))
		}
	}
	got, end := read(a, b, c)
	if want := "1 2 3 4 5 6 7 8 9 10 11"; strings.Join(got, " ") != want || !errors.Is(end, io.EOF) {
		t.Fatalf("got %v, %v; want %s, EOF", got, end, want)
	}

	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mcap")
	if err := os.WriteFile(cut, data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	got, end = read(a, cut, c)
	if want := "1 2 3 5 7"; strings.Join(got, " ") != want || end == nil || errors.Is(end, io.EOF) || !strings.Contains(end.Error(), "cut.mcap") {
		t.Fatalf("damaged second file: got %v, %v; want %s, then an error naming cut.mcap", got, end, want)
	}
}

func TestChainEmpty(t *testing.T) {
	if _, err := NewChain(nil, nil).Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("an empty chain: %v, want EOF", err)
	}
}

// A chain reports the channels and the channel problems of every file,
// each problem named by its file.
func TestChainChannelsAndProblems(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.mcap"), filepath.Join(dir, "b.mcap")
	writeLogTimes(t, a, 1, 2)
	writeLogTimes(t, b, 3, 4)
	ra, err := OpenRecording(a, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	// b's channel is not the type the caller wants: a problem of b alone.
	rb, err := OpenRecording(b, ReaderOptions{Schemas: map[string]string{"/state/nav": "ghost/msg/Other"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	c := NewChain([]*Reader{ra, rb}, []string{a, b})
	var got []uint64
	for m, err := range c.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.LogTime)
	}
	ps := c.Problems()
	if len(got) != 2 || len(ps) != 1 || !strings.HasPrefix(ps[0].Err.Error(), "b.mcap: ") || !errors.Is(ps[0].Err, ErrUnexpectedSchema) || ps[0].Skipped != 2 {
		t.Fatalf("read %v, problems %+v: want a's 2 messages and b's channel skipped, named b.mcap", got, ps)
	}
	if n := len(c.Channels()); n != 2 {
		t.Fatalf("%d channels, want one of each file", n)
	}
}
