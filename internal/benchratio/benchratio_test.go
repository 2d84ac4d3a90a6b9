package benchratio

import (
	"math"
	"testing"
)

// TestReport checks that both operations run Round calls a round, as many
// rounds each, and that every figure is reported (the figures themselves
// are times, which a test on a shared machine does not assert).
func TestReport(t *testing.T) {
	var nums, dens, rounds int
	res := testing.Benchmark(func(b *testing.B) {
		Report(b, func() { nums++ }, func() { dens++ })
		rounds += b.N // final once b.Loop is done
	})
	if nums != rounds*Round || dens != rounds*Round {
		t.Errorf("%d and %d calls in %d rounds, want %d each", nums, dens, rounds, rounds*Round)
	}
	for _, k := range []string{"ratio", "ratio-fastest", "fastest-ns/call", "fastest-den-ns/call"} {
		if v, ok := res.Extra[k]; !ok || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s = %v (reported %v)", k, v, ok)
		}
	}
}
