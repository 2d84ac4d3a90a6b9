package audit

import (
	"container/heap"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// Replay and verify read a recording in log-time order, since log times are
// the Loop's arrival times. An indexed recording is read that way; an
// unindexed one (a recorder that was killed before writing its summary)
// is read in file order, which a recorder with several writers leaves
// slightly out of log-time order. Reorder puts it back in order within a
// bounded window.

// DefaultReorderWindow is the log-time window Reorder sorts within: far
// more than the few milliseconds by which a recorder's writers disagree,
// and little memory at the rates of a vehicle's topics.
const DefaultReorderWindow = 2 * time.Second

// Bounds on what Reorder holds, whatever the window: beyond them the
// oldest message is served early.
const (
	maxReorderMessages = 1 << 16
	maxReorderBytes    = 64 << 20
)

// Reorderer is a Source serving another Source's messages in log-time
// order, as long as no message comes more than the window after a message
// with a later log time (in read order); equal log times keep their read
// order. A message beyond the window is served as soon as it is read, out
// of order, and counted (OutOfWindow): the Loop then treats it as it would
// live (a late input is rejected and counted). The source's error (io.EOF,
// or the damage of a truncated recording) is returned after every message
// read before it.
type Reorderer struct {
	src    Source
	window uint64
	h      reorderHeap
	bytes  int
	seq    uint64
	newest uint64 // newest log time read
	served uint64 // newest log time served
	any    bool   // a message was served
	err    error  // the source's error, once read
	beyond uint64
	last   []byte   // the Data of the message served last, reused next call
	free   [][]byte // spare message buffers
}

// Reorder returns a Reorderer over src with the given window (<= 0 means
// DefaultReorderWindow).
func Reorder(src Source, window time.Duration) *Reorderer {
	if window <= 0 {
		window = DefaultReorderWindow
	}
	return &Reorderer{src: src, window: uint64(window)}
}

// OutOfWindow returns how many messages came more than the window late and
// were served out of log-time order.
func (r *Reorderer) OutOfWindow() uint64 { return r.beyond }

// Problems returns the channel problems of the underlying source, when it
// reports them (a *bag.Reader does).
func (r *Reorderer) Problems() []bag.ChannelProblem {
	if ps, ok := r.src.(ProblemSource); ok {
		return ps.Problems()
	}
	return nil
}

// Channels returns the channels of the underlying source, when it knows
// them (a *bag.Reader does), so that a replay of a sorted source still
// copies other types with the schemas they were recorded with.
func (r *Reorderer) Channels() []bag.Channel {
	if ss, ok := r.src.(SchemaSource); ok {
		return ss.Channels()
	}
	return nil
}

// Next returns the next message in log-time order. Its Data is valid until
// the next call.
func (r *Reorderer) Next() (bag.Message, error) {
	if r.last != nil {
		r.free = append(r.free, r.last[:0])
		r.last = nil
	}
	for r.err == nil && !r.ready() {
		m, err := r.src.Next()
		if err != nil {
			r.err = err
			break
		}
		if r.any && m.LogTime < r.served {
			r.beyond++
		}
		var buf []byte
		if n := len(r.free); n > 0 {
			buf, r.free = r.free[n-1], r.free[:n-1]
		}
		m.Data = append(buf, m.Data...)
		r.bytes += len(m.Data)
		r.newest = max(r.newest, m.LogTime)
		heap.Push(&r.h, reorderItem{m: m, seq: r.seq})
		r.seq++
	}
	if len(r.h) == 0 {
		return bag.Message{}, r.err
	}
	it := heap.Pop(&r.h).(reorderItem)
	r.bytes -= len(it.m.Data)
	r.served, r.any = max(r.served, it.m.LogTime), true
	r.last = it.m.Data
	return it.m, nil
}

// ready reports whether the oldest held message can be served: nothing
// read later can precede it by the window's rule, or a bound is reached.
func (r *Reorderer) ready() bool {
	if len(r.h) == 0 {
		return false
	}
	if len(r.h) >= maxReorderMessages || r.bytes >= maxReorderBytes {
		return true
	}
	return r.newest-r.h[0].m.LogTime > r.window
}

type reorderItem struct {
	m   bag.Message
	seq uint64
}

// reorderHeap is a min-heap by log time, then read order.
type reorderHeap []reorderItem

func (h reorderHeap) Len() int { return len(h) }
func (h reorderHeap) Less(i, j int) bool {
	if h[i].m.LogTime != h[j].m.LogTime {
		return h[i].m.LogTime < h[j].m.LogTime
	}
	return h[i].seq < h[j].seq
}
func (h reorderHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *reorderHeap) Push(x any)   { *h = append(*h, x.(reorderItem)) }
func (h *reorderHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = reorderItem{}
	*h = old[:len(old)-1]
	return it
}
