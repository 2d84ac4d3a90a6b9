package audit

import (
	"slices"
	"testing"
)

// BenchmarkReplayEndToEndSealed is BenchmarkReplayEndToEnd writing through
// a sealing recorder, as replay --signing-key does: every message written
// is hashed once more, and a seal is signed every second of log time.
func BenchmarkReplayEndToEndSealed(b *testing.B) {
	path, size := benchInput(b)
	key := sealKey(b, "node")
	b.ReportAllocs()
	b.SetBytes(size)
	var beliefs uint64
	for b.Loop() {
		beliefs += replayToDiscard(b, path, key, ReplayOptions{})
	}
	b.ReportMetric(float64(beliefs)/b.Elapsed().Seconds(), "beliefs/s")
}

// BenchmarkSealingCost replays the bench recording alternately plain and
// sealed, in rounds, and reports the median ratio of their process CPU
// times (sealed/plain): measured side by side in one process, the load of
// a shared machine weighs on both alike. The budget is 1.10. It also
// reports the median CPU per belief of each, so that what sealing adds can
// be set against what hashing every sealed byte once must cost.
func BenchmarkSealingCost(b *testing.B) {
	path, _ := benchInput(b)
	key := sealKey(b, "node")
	var beliefs uint64
	replay := func(sealed bool) {
		k := key
		if !sealed {
			k = nil
		}
		beliefs = replayToDiscard(b, path, k, ReplayOptions{readAhead: -1})
	}
	var ratios []float64
	var plains, sealeds []measured
	for b.Loop() {
		plain := measure(b, func() { replay(false) })
		sealed := measure(b, func() { replay(true) })
		ratios = append(ratios, float64(sealed.cpu)/float64(plain.cpu))
		plains, sealeds = append(plains, plain), append(sealeds, sealed)
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "sealed/plain-cpu")
	perBelief := func(m measured) float64 { return float64(m.cpu.Nanoseconds()) / 1e3 / float64(max(beliefs, 1)) }
	b.ReportMetric(perBelief(medianOf(plains)), "plain-cpu-us/belief")
	b.ReportMetric(perBelief(medianOf(sealeds)), "sealed-cpu-us/belief")
}
