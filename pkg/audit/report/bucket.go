package report

// buckets aggregates by stamp into at most max buckets without knowing the
// span in advance: bucket i covers [i*width, (i+1)*width), indexes are
// absolute, and when the covered range would exceed max buckets the width
// doubles and neighbours merge pairwise. Widths are powers of two times
// minWidth, so a merge never splits a bucket.
type buckets struct {
	max   int
	width int64
	lo    int64 // absolute index of b[0]
	b     []Bucket
}

// minWidth is the starting width, about a millisecond: finer than any
// belief rate, so a short recording keeps one bucket per belief.
const minWidth = 1 << 20

func newBuckets(max int) *buckets {
	return &buckets{max: max, width: minWidth}
}

// floorDiv divides rounding towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// at returns the bucket holding stamp, growing or coarsening as needed.
func (s *buckets) at(stamp int64) *Bucket {
	i := floorDiv(stamp, s.width)
	if len(s.b) == 0 {
		s.lo = i
		s.b = append(s.b, newBucket())
		return &s.b[0]
	}
	lo, hi := min(s.lo, i), max(s.lo+int64(len(s.b))-1, i)
	for hi-lo+1 > int64(s.max) {
		s.coarsen()
		i = floorDiv(stamp, s.width)
		lo, hi = min(s.lo, i), max(s.lo+int64(len(s.b))-1, i)
	}
	if i < s.lo {
		grown := make([]Bucket, int(s.lo-i)+len(s.b))
		for k := range int(s.lo - i) {
			grown[k] = newBucket()
		}
		copy(grown[int(s.lo-i):], s.b)
		s.b, s.lo = grown, i
	}
	for i >= s.lo+int64(len(s.b)) {
		s.b = append(s.b, newBucket())
	}
	return &s.b[i-s.lo]
}

// coarsen doubles the width, merging buckets pairwise.
func (s *buckets) coarsen() {
	s.width *= 2
	nlo := floorDiv(s.lo, 2)
	nhi := floorDiv(s.lo+int64(len(s.b))-1, 2)
	out := make([]Bucket, nhi-nlo+1)
	for k := range out {
		out[k] = newBucket()
	}
	for k := range s.b {
		j := floorDiv(s.lo+int64(k), 2) - nlo
		out[j].merge(&s.b[k])
	}
	s.b, s.lo = out, nlo
}
