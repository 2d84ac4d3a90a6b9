package audit

// fifo is a queue whose storage is reused once its consumed head is at
// least half of it: a queue bounded to n items settles at 2n of storage
// instead of growing by doubling while its head moves.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }
func (q *fifo[T]) push(x T) {
	if len(q.items) == cap(q.items) && q.head > 0 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}
func (q *fifo[T]) front() *T { return &q.items[q.head] }
func (q *fifo[T]) pop() T {
	x := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	if q.head++; q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return x
}
