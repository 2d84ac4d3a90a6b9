// Package benchratio measures one operation against another in a
// benchmark, alternately, so that load from other processes on a shared
// machine weighs on both alike. It is for benchmarks only and must not be
// imported by non-test code.
package benchratio

import (
	"math"
	"testing"
	"time"
)

// Round is how many calls of one operation a round times.
const Round = 2000

// Report runs num and den alternately, a round of Round calls each, b.N
// rounds, and reports num's time over den's in total ("ratio") and between
// their fastest rounds ("ratio-fastest": interruptions can only have made a
// round slower), with the fastest round's time per call of each
// ("fastest-ns/call", "fastest-den-ns/call").
func Report(b *testing.B, num, den func()) {
	b.Helper()
	timed := func(f func()) time.Duration {
		t0 := time.Now()
		for range Round {
			f()
		}
		return time.Since(t0)
	}
	var sumN, sumD time.Duration
	minN, minD := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		n, d := timed(num), timed(den)
		sumN, sumD = sumN+n, sumD+d
		minN, minD = min(minN, n), min(minD, d)
	}
	b.ReportMetric(float64(sumN)/float64(sumD), "ratio")
	b.ReportMetric(float64(minN)/float64(minD), "ratio-fastest")
	b.ReportMetric(float64(minN.Nanoseconds())/Round, "fastest-ns/call")
	b.ReportMetric(float64(minD.Nanoseconds())/Round, "fastest-den-ns/call")
}
