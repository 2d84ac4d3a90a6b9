package audit

import (
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

// Reading and decoding a recording is about half the work of a replay or a
// verification and does not depend on the session's state, so it runs one
// goroutine ahead: the prefetcher reads messages in batches, copies their
// bytes (a Source's Data is valid only until its next call), decodes them,
// and hands the batches over in order. Order is all the Loop depends on, so
// the output stays identical to a sequential run.

// A batch closes at prefetchBatch messages or once it holds
// prefetchBatchBytes of message data, whichever comes first, so the
// read-ahead is bounded in bytes whatever the messages' size: at most
// prefetchBatches+1 batches exist, each within prefetchBatchBytes plus one
// message (a recording of large messages, or of small compressed chunks
// that inflate to large ones, cannot make it hold more).
const (
	prefetchBatch      = 512     // messages per batch, at most
	prefetchBatchBytes = 2 << 20 // message bytes per batch, at most (plus one message)
	prefetchBatches    = 2       // batches in flight
)

// maxPrefetchBytes bounds the message bytes the prefetcher holds at once
// when no message is larger than maxMessage.
func maxPrefetchBytes(maxMessage int) int {
	return (prefetchBatches + 1) * (prefetchBatchBytes + maxMessage)
}

// fetched is one message with what decode made of it.
type fetched[T any] struct {
	msg bag.Message
	val T
}

type fetchBatch[T any] struct {
	items []fetched[T]
	spans [][2]int // Data of items[i] is slab[spans[i][0]:spans[i][1]]
	slab  []byte
	// scratch holds what decoding put aside for the batch (beliefs'
	// covariances), reused with the batch: the Loop copies what it keeps.
	scratch runner.Scratch
	err     error // the source's error after items (io.EOF at the end)
}

type prefetcher[T any] struct {
	out  chan *fetchBatch[T]
	free chan *fetchBatch[T]
	quit chan struct{}
	done chan struct{}
}

// startPrefetch reads src and decodes each message on a new goroutine.
// The caller takes batches with next, gives each back with release, and
// calls stop before it returns (which waits for the goroutine, so src is
// free again).
func startPrefetch[T any](src Source, decode func(*bag.Message) T) *prefetcher[T] {
	return startPrefetchInto(src, func(m *bag.Message, _ *runner.Scratch, out *T) { *out = decode(m) })
}

// startPrefetchInto is startPrefetch with decode writing into the batch's
// zeroed item (a value returned through a function value would be built on
// the heap, one allocation per message) and the batch's Scratch handed to
// it: what decode puts there is valid until the batch is released.
func startPrefetchInto[T any](src Source, decode func(*bag.Message, *runner.Scratch, *T)) *prefetcher[T] {
	p := &prefetcher[T]{
		out:  make(chan *fetchBatch[T], prefetchBatches),
		free: make(chan *fetchBatch[T], prefetchBatches+1),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range prefetchBatches + 1 {
		p.free <- &fetchBatch[T]{}
	}
	go p.run(src, decode)
	return p
}

func (p *prefetcher[T]) run(src Source, decode func(*bag.Message, *runner.Scratch, *T)) {
	defer close(p.done)
	defer close(p.out)
	for {
		var b *fetchBatch[T]
		select {
		case b = <-p.free:
		case <-p.quit:
			return
		}
		if cap(b.slab) > 2*prefetchBatchBytes {
			b.slab = nil // a batch of one huge message: do not keep its storage
		}
		b.items, b.spans, b.slab, b.err = b.items[:0], b.spans[:0], b.slab[:0], nil
		b.scratch.Reset()
		for len(b.items) < prefetchBatch && len(b.slab) < prefetchBatchBytes {
			m, err := src.Next()
			if err != nil {
				b.err = err
				break
			}
			start := len(b.slab)
			b.slab = append(b.slab, m.Data...)
			m.Data = nil
			b.items = append(b.items, fetched[T]{}) // zeroed: decode writes into it
			b.items[len(b.items)-1].msg = m
			b.spans = append(b.spans, [2]int{start, len(b.slab)})
		}
		// The slab may have moved while it grew: point into it only now.
		for i := range b.items {
			it := &b.items[i]
			it.msg.Data = b.slab[b.spans[i][0]:b.spans[i][1]:b.spans[i][1]]
			decode(&it.msg, &b.scratch, &it.val)
		}
		select {
		case p.out <- b:
		case <-p.quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// next returns the next batch; ok is false after the batch carrying the
// source's error.
func (p *prefetcher[T]) next() (b *fetchBatch[T], ok bool) {
	b, ok = <-p.out
	return b, ok
}

// release gives a batch back for reuse; its messages' Data become invalid.
func (p *prefetcher[T]) release(b *fetchBatch[T]) {
	select {
	case p.free <- b:
	default:
	}
}

// stop ends the goroutine, whether or not the source was read to its end,
// and waits for it.
func (p *prefetcher[T]) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	for range p.out {
	}
	<-p.done
}
