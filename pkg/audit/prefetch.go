package audit

import (
	"sync"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// Reading and decoding a recording is about half the work of a replay or a
// verification and does not depend on the session's state, so it runs
// ahead of the Loop: the prefetcher reads messages in batches, copies their
// bytes (a Source's Data is valid only until its next call), decodes them
// (on the reading goroutine, or on workers of their own), and hands the
// batches over in read order. Order is all the Loop depends on, so the
// output stays identical to a sequential run.

// A batch closes at prefetchBatch messages or once it holds
// prefetchBatchBytes of message data, whichever comes first, so the
// read-ahead is bounded in bytes whatever the messages' size: at most
// prefetchBatches+workers+1 batches exist, each within prefetchBatchBytes
// plus one message (a recording of large messages, or of small compressed
// chunks that inflate to large ones, cannot make it hold more).
const (
	prefetchBatch      = 512     // messages per batch, at most
	prefetchBatchBytes = 2 << 20 // message bytes per batch, at most (plus one message)
	prefetchBatches    = 2       // batches in flight besides those being decoded
)

// fetched is one message with what decode made of it.
type fetched[T any] struct {
	msg bag.Message
	val T
}

type fetchBatch[T any] struct {
	items []fetched[T]
	spans [][2]int // Data of items[i] is slab[spans[i][0]:spans[i][1]]
	slab  []byte
	err   error // the source's error after items (io.EOF at the end)
	// decoded receives once when a worker has decoded the batch; nil when
	// the reading goroutine decodes.
	decoded chan struct{}
}

type prefetcher[T any] struct {
	out  chan *fetchBatch[T] // in read order
	work chan *fetchBatch[T] // to the workers, if any
	free chan *fetchBatch[T]
	quit chan struct{}
	done sync.WaitGroup
}

// startPrefetchInto reads src and decodes each message on a new goroutine
// (or on workers, see below). The caller takes batches with next, gives
// each back with release, and calls stop before it returns (which waits for
// the goroutines, so src is free again).
//
// decode writes into the batch's item (a value returned through a function
// value would be built on the heap, one allocation per message). The item still holds what an earlier
// message left there (clearing items of several hundred bytes cost more
// than decoding some of them), so decode must set every field the batch's
// reader reads for that message. What decode keeps for longer than the
// batch (beliefs' covariances) is its own to provide. With
// workers > 0, batches are decoded on that many goroutines while the
// reading one reads on; each goroutine that decodes calls newDecode once
// for its own decode (decoders keep caches and are not shared).
func startPrefetchInto[T any](src Source, workers int, newDecode func() func(*bag.Message, *T)) *prefetcher[T] {
	n := prefetchBatches + workers + 1
	p := &prefetcher[T]{
		out:  make(chan *fetchBatch[T], n),
		free: make(chan *fetchBatch[T], n),
		quit: make(chan struct{}),
	}
	for range n {
		b := &fetchBatch[T]{}
		if workers > 0 {
			b.decoded = make(chan struct{}, 1)
		}
		p.free <- b
	}
	var decode func(*bag.Message, *T)
	if workers > 0 {
		p.work = make(chan *fetchBatch[T], n)
		p.done.Add(workers)
		for range workers {
			go p.decodeBatches(newDecode())
		}
	} else {
		decode = newDecode()
	}
	p.done.Add(1)
	go p.run(src, decode)
	return p
}

// run reads batches; decode is nil when workers decode them.
func (p *prefetcher[T]) run(src Source, decode func(*bag.Message, *T)) {
	defer p.done.Done()
	defer close(p.out)
	if p.work != nil {
		defer close(p.work)
	}
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
		for len(b.items) < prefetchBatch && len(b.slab) < prefetchBatchBytes {
			m, err := src.Next()
			if err != nil {
				b.err = err
				break
			}
			start := len(b.slab)
			b.slab = append(b.slab, m.Data...)
			m.Data = nil
			if n := len(b.items); n < cap(b.items) {
				b.items = b.items[:n+1] // decode overwrites what it sets
			} else {
				b.items = append(b.items, fetched[T]{})
			}
			b.items[len(b.items)-1].msg = m
			b.spans = append(b.spans, [2]int{start, len(b.slab)})
		}
		// The slab may have moved while it grew: point into it only now.
		for i := range b.items {
			it := &b.items[i]
			it.msg.Data = b.slab[b.spans[i][0]:b.spans[i][1]:b.spans[i][1]]
		}
		if decode != nil {
			b.decodeWith(decode)
		} else {
			// Both channels hold every batch there is: neither blocks.
			p.work <- b
		}
		p.out <- b
		if b.err != nil {
			return
		}
	}
}

// decodeBatches is a worker: it decodes the batches it is given, in any
// order, and signals each.
func (p *prefetcher[T]) decodeBatches(decode func(*bag.Message, *T)) {
	defer p.done.Done()
	for b := range p.work {
		b.decodeWith(decode)
		b.decoded <- struct{}{}
	}
}

func (b *fetchBatch[T]) decodeWith(decode func(*bag.Message, *T)) {
	for i := range b.items {
		decode(&b.items[i].msg, &b.items[i].val)
	}
}

// next returns the next batch, decoded; ok is false after the batch
// carrying the source's error.
func (p *prefetcher[T]) next() (b *fetchBatch[T], ok bool) {
	if b, ok = <-p.out; ok && b.decoded != nil {
		<-b.decoded
	}
	return b, ok
}

// release gives a batch back for reuse; its messages' Data become invalid.
func (p *prefetcher[T]) release(b *fetchBatch[T]) {
	select {
	case p.free <- b:
	default:
	}
}

// stop ends the goroutines, whether or not the source was read to its end,
// and waits for them.
func (p *prefetcher[T]) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	for range p.out {
	}
	p.done.Wait()
}
