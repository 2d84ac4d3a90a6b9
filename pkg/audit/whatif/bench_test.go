package whatif

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// benchFleet is a fleet of simulated px4_failsafe_like flights (60 s at
// 50 Hz, 3001 decisions each), made once.
var benchFleet struct {
	once sync.Once
	data [][]byte
}

const benchFlights = 8

func benchFlightsData(b *testing.B) [][]byte {
	b.Helper()
	benchFleet.once.Do(func() {
		like := shippedPolicy(b, "px4_failsafe_like.yaml")
		one := simFlight(b, 60*time.Second, 50, like)
		for range benchFlights {
			benchFleet.data = append(benchFleet.data, one)
		}
	})
	return benchFleet.data
}

type discard struct{}

func (discard) Flight(*FlightResult) error { return nil }
func (discard) Summary(*Summary) error     { return nil }

// BenchmarkWhatif compares the fleet under the tightened candidate, with
// the recorded decisions and with px4_failsafe_like as the baseline, on
// GOMAXPROCS workers; BenchmarkVerifyFleet verifies the same fleet the
// same way (verify's many-file mode) for the comparison.
func BenchmarkWhatif(b *testing.B) {
	data := benchFlightsData(b)
	cand := shippedPolicy(b, "px4_failsafe_tight_position.yaml")
	like := shippedPolicy(b, "px4_failsafe_like.yaml")
	for _, bc := range []struct {
		name     string
		baseline decisions.Policy
	}{{"recorded", nil}, {"policy", like}} {
		b.Run(bc.name, func(b *testing.B) {
			var flights []Flight
			for _, d := range data {
				flights = append(flights, memFlight("flight", d))
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				sum, err := Run(flights, Options{Candidate: cand, Baseline: bc.baseline}, discard{})
				if err != nil || sum.Decisions != 3001*benchFlights {
					b.Fatalf("%v %+v", err, sum)
				}
			}
			b.ReportMetric(float64(b.N*len(flights))/time.Since(start).Seconds(), "flights/s")
		})
	}
}

func BenchmarkVerifyFleet(b *testing.B) {
	data := benchFlightsData(b)
	like := shippedPolicy(b, "px4_failsafe_like.yaml")
	ref, _ := decisions.LookupPolicy(decisions.ReferencePolicyID)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		next := make(chan []byte)
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(data)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for d := range next {
					r, err := bag.NewReader(bytes.NewReader(d), bag.ReaderOptions{})
					if err != nil {
						b.Error(err)
						continue
					}
					rep, err := audit.Verify(r, audit.VerifyOptions{Policies: []decisions.Policy{ref, like}, DecodeWorkers: -1, Total: r.MessageCount()})
					if err != nil || !rep.Passed() {
						b.Errorf("%v %v", err, rep.Reasons)
					}
					r.Close()
				}
			}()
		}
		for _, d := range data {
			next <- d
		}
		close(next)
		wg.Wait()
	}
	b.ReportMetric(float64(b.N*len(data))/time.Since(start).Seconds(), "flights/s")
}
