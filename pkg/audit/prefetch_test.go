package audit

import (
	"errors"
	"io"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// countingSource yields n messages whose Data is their index, reusing one
// buffer as a recording reader does, then err (or io.EOF).
type countingSource struct {
	n, next int
	err     error
	buf     []byte
	stopped *atomic.Bool
	late    atomic.Int32 // reads after stop returned
}

func (s *countingSource) Next() (bag.Message, error) {
	if s.stopped != nil && s.stopped.Load() {
		s.late.Add(1)
	}
	if s.next == s.n {
		if s.err != nil {
			return bag.Message{}, s.err
		}
		return bag.Message{}, io.EOF
	}
	s.buf = strconv.AppendInt(s.buf[:0], int64(s.next), 10)
	s.next++
	return bag.Message{Topic: "/t", Sequence: uint32(s.next), Data: s.buf}, nil
}

func TestPrefetchKeepsOrderAndData(t *testing.T) {
	damage := errors.New("damaged at byte 99")
	for _, tc := range []struct {
		n   int
		err error
	}{{0, nil}, {1, nil}, {prefetchBatch, nil}, {3*prefetchBatch + 7, nil}, {1000, damage}} {
		src := &countingSource{n: tc.n, err: tc.err}
		pf := startPrefetch(src, func(m *bag.Message) int {
			v, _ := strconv.Atoi(string(m.Data))
			return v
		})
		want := 0
		var end error
		for end == nil {
			b, ok := pf.next()
			if !ok {
				t.Fatal("batches ended without the source's error")
			}
			for i := range b.items {
				it := &b.items[i]
				if it.val != want || string(it.msg.Data) != strconv.Itoa(want) {
					t.Fatalf("n=%d: item %d holds %d / %q", tc.n, want, it.val, it.msg.Data)
				}
				want++
			}
			end = b.err
			pf.release(b)
		}
		pf.stop()
		wantErr := tc.err
		if wantErr == nil {
			wantErr = io.EOF
		}
		if want != tc.n || !errors.Is(end, wantErr) {
			t.Fatalf("n=%d: %d items, end %v", tc.n, want, end)
		}
	}
}

func TestPrefetchStopsEarly(t *testing.T) {
	var stopped atomic.Bool
	src := &countingSource{n: 100 * prefetchBatch, stopped: &stopped}
	pf := startPrefetch(src, func(*bag.Message) struct{} { return struct{}{} })
	b, ok := pf.next()
	if !ok || len(b.items) != prefetchBatch {
		t.Fatalf("first batch: %v %d", ok, len(b.items))
	}
	pf.stop()
	stopped.Store(true)
	pf.stop() // idempotent
	if n := src.late.Load(); n != 0 {
		t.Fatalf("the source was read %d times after stop returned", n)
	}
	if src.next >= src.n {
		t.Fatal("stop did not stop the reading")
	}
}
