package node

import (
	"sync"
	"sync/atomic"
)

// queueStats counts what the input queue dropped, per topic, and the most
// it held. offer runs on the transport's goroutines, seen on the node's.
type queueStats struct {
	dropped atomic.Uint64
	mu      sync.Mutex
	byTopic map[string]uint64
	// highWater is the most messages the queue held when one was taken,
	// and logged the drops already logged (node goroutine only).
	highWater int
	logged    uint64
}

// offer queues in without waiting: when the queue is full the message is
// dropped and counted against its topic.
func (q *queueStats) offer(ch chan<- input, in input, topic string) {
	select {
	case ch <- in:
	default:
		q.dropped.Add(1)
		q.mu.Lock()
		if q.byTopic == nil {
			q.byTopic = make(map[string]uint64)
		}
		q.byTopic[topic]++
		q.mu.Unlock()
	}
}

func (q *queueStats) seen(held int) { q.highWater = max(q.highWater, held) }

// droppedOf returns the drops of one topic.
func (q *queueStats) droppedOf(topic string) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.byTopic[topic]
}

// checkQueue logs, at most once per diagnostics period, that inputs were
// dropped since the last time it did: the count alone would show only on
// /diagnostics.
func (n *node) checkQueue() {
	d := n.queue.dropped.Load()
	if d == n.queue.logged {
		return
	}
	n.warn("input_queue", "inputs dropped: the input queue was full, the node falls behind its inputs",
		"dropped", d-n.queue.logged, "dropped_total", d, "capacity", inputQueue)
	n.queue.logged = d
}
