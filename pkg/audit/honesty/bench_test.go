package honesty

import (
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// benchmarkAudit audits a 4 s flight of 201 beliefs at 50 Hz, truth at
// 100 Hz, and reports the time per belief.
func benchmarkAudit(b *testing.B, offsetOnly bool) {
	ref := [3]float64{45.467116, -73.757837, 32.34}
	g := geoFlight{ref: ref, origins: []truth.Origin{{Lat: ref[0] + 3e-5, Lon: ref[1] - 2e-5, Alt: ref[2] + 1.5}},
		err: func(x float64) ([3]float64, float64) { return [3]float64{0.1 * math.Sin(x), 0, 0}, 0.2 }}
	r := g.record(b)
	beliefs := 0
	for _, m := range r.msgs {
		if m.Topic == "/state/nav" {
			beliefs++
		}
	}
	opts := Options{OffsetOnly: offsetOnly, OffsetWindow: 2e9}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Audit(r.source(), r.chans, opts)
		if err != nil || !res.Given() {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(beliefs), "ns/belief")
}

func BenchmarkAuditGlobalFrame(b *testing.B) { benchmarkAudit(b, false) }
func BenchmarkAuditOffset(b *testing.B)      { benchmarkAudit(b, true) }
