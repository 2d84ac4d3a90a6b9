package engine

import "sort"

// keyed is an entry of an ordered queue: its key is a stamp.
type keyed interface{ key() int64 }

// ordered is a sequence of entries sorted by strictly increasing key, with
// cheap removal at the front and cheap insertion at the back: inputs mostly
// arrive in stamp order and leave oldest first. Its backing array stays
// within a small multiple of the largest length it ever held, so a bounded
// queue uses bounded memory.
type ordered[T keyed] struct {
	buf []T // entries are buf[lo:]
	lo  int
}

func (q *ordered[T]) items() []T { return q.buf[q.lo:] }

func (q *ordered[T]) len() int { return len(q.buf) - q.lo }

// search returns the index of the first entry with key >= k, and whether
// that entry's key is k.
func (q *ordered[T]) search(k int64) (int, bool) {
	it := q.items()
	if len(it) == 0 || it[len(it)-1].key() < k {
		return len(it), false // the common case: a newer stamp
	}
	i := sort.Search(len(it), func(i int) bool { return it[i].key() >= k })
	return i, i < len(it) && it[i].key() == k
}

// get returns a pointer to the entry with key k, or nil.
func (q *ordered[T]) get(k int64) *T {
	if i, ok := q.search(k); ok {
		return &q.items()[i]
	}
	return nil
}

// insert puts v at its sorted position; the caller guarantees its key is not
// present.
func (q *ordered[T]) insert(v T) {
	i, _ := q.search(v.key())
	if len(q.buf) == cap(q.buf) && q.lo > 0 && q.lo >= q.len() {
		// At least half the array is dead front: compact instead of growing.
		n := copy(q.buf, q.buf[q.lo:])
		clear(q.buf[n:])
		q.buf = q.buf[:n]
		q.lo = 0
	}
	var zero T
	q.buf = append(q.buf, zero)
	it := q.buf[q.lo:]
	copy(it[i+1:], it[i:])
	it[i] = v
}

// dropFront removes the n oldest entries, releasing what they reference.
func (q *ordered[T]) dropFront(n int) {
	clear(q.buf[q.lo : q.lo+n])
	q.lo += n
	if q.lo == len(q.buf) {
		q.buf = q.buf[:0]
		q.lo = 0
	}
}

// dropBack removes the n newest entries, releasing what they reference.
func (q *ordered[T]) dropBack(n int) {
	end := len(q.buf) - n
	clear(q.buf[end:])
	q.buf = q.buf[:end]
	if q.lo == len(q.buf) {
		q.buf = q.buf[:0]
		q.lo = 0
	}
}

// front returns the oldest entry; the queue must not be empty.
func (q *ordered[T]) front() *T { return &q.buf[q.lo] }
