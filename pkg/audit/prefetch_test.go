package audit

import (
	"errors"
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// maxPrefetchBytes bounds the message bytes the prefetcher holds at once
// when no message is larger than maxMessage.
func maxPrefetchBytes(maxMessage, workers int) int {
	return (prefetchBatches + workers + 1) * (prefetchBatchBytes + maxMessage)
}

// startPrefetch is startPrefetchInto with decode returning each message's
// value.
func startPrefetch[T any](src Source, workers int, decode func(*bag.Message) T) *prefetcher[T] {
	return startPrefetchInto(src, workers, func() func(*bag.Message, *T) {
		return func(m *bag.Message, out *T) { *out = decode(m) }
	})
}

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
		n, workers int
		err        error
	}{
		{0, 0, nil}, {1, 0, nil}, {prefetchBatch, 0, nil}, {3*prefetchBatch + 7, 0, nil}, {1000, 0, damage},
		{0, 1, nil}, {1, 2, nil}, {prefetchBatch, 1, nil}, {20*prefetchBatch + 7, 3, nil}, {1000, 2, damage},
	} {
		src := &countingSource{n: tc.n, err: tc.err}
		pf := startPrefetch(src, tc.workers, func(m *bag.Message) int {
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
					t.Fatalf("n=%d, %d workers: item %d holds %d / %q", tc.n, tc.workers, want, it.val, it.msg.Data)
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
			t.Fatalf("n=%d, %d workers: %d items, end %v", tc.n, tc.workers, want, end)
		}
	}
}

func TestPrefetchStopsEarly(t *testing.T) {
	for _, workers := range []int{0, 1, 3} {
		var stopped atomic.Bool
		src := &countingSource{n: 100 * prefetchBatch, stopped: &stopped}
		pf := startPrefetch(src, workers, func(*bag.Message) struct{} { return struct{}{} })
		b, ok := pf.next()
		if !ok || len(b.items) != prefetchBatch {
			t.Fatalf("%d workers: first batch: %v %d", workers, ok, len(b.items))
		}
		pf.stop()
		stopped.Store(true)
		pf.stop() // idempotent
		if n := src.late.Load(); n != 0 {
			t.Fatalf("%d workers: the source was read %d times after stop returned", workers, n)
		}
		if src.next >= src.n {
			t.Fatalf("%d workers: stop did not stop the reading", workers)
		}
	}
}

// bigSource yields 100 messages of size bytes each, reusing one buffer:
// with a read-ahead bounded by count alone, all of them are read ahead.
type bigSource struct {
	size int
	read atomic.Int64
	buf  []byte
}

func (s *bigSource) Next() (bag.Message, error) {
	if s.buf == nil {
		s.buf = make([]byte, s.size)
	}
	if s.read.Load() == 100 {
		return bag.Message{}, io.EOF
	}
	s.read.Add(1)
	return bag.Message{Topic: "/t", Data: s.buf}, nil
}

func TestPrefetchReadAheadIsBoundedInBytes(t *testing.T) {
	for _, tc := range []struct{ size, workers int }{{1 << 20, 0}, {300 << 10, 0}, {4 << 20, 0}, {1 << 20, 2}} {
		size := tc.size
		src := &bigSource{size: size}
		pf := startPrefetch(src, tc.workers, func(*bag.Message) struct{} { return struct{}{} })
		// Hold the first batch and never release it: the reader runs
		// ahead until every batch is full, and must then stop.
		if _, ok := pf.next(); !ok {
			t.Fatal("no batch")
		}
		// The reader has run as far as it may once every other batch waits
		// in the output: it then blocks for a free batch and reads no more.
		// (Unbounded, it would read the whole source.) A deadline, not a
		// quiet spell, ends the wait: copying a few MiB can take long on a
		// loaded machine.
		for deadline := time.Now().Add(30 * time.Second); len(pf.out) < cap(pf.out)-1 && src.read.Load() < 100; {
			if time.Now().After(deadline) {
				t.Fatalf("messages of %d bytes: %d of %d batches filled after 30 s", size, len(pf.out)+1, cap(pf.out))
			}
			time.Sleep(time.Millisecond)
		}
		last := src.read.Load()
		pf.stop()
		held := int(last) * size
		// The bound is by bytes: a fixed count of messages (the whole
		// batch count times 512) would hold hundreds of them.
		if max := maxPrefetchBytes(size, tc.workers); held > max {
			t.Errorf("messages of %d bytes: %d read ahead (%d bytes), bound %d", size, last, held, max)
		}
		if last < prefetchBatches {
			t.Errorf("messages of %d bytes: only %d read ahead", size, last)
		}
	}
}
