package rules

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// bench20 is a policy of 20 rules, each of a few leaves, with delays and
// latches: the size the performance requirement names.
func bench20(b *testing.B) *Policy {
	var r strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&r, "  - name: r%d\n    when: {all: [{armed: true}, {any: [%s, %s]}, {not: {flight_mode: kill}}]}\n    action: %s\n    reason: rule_%d\n    for: %dms\n    clear: {after: 1s}\n",
			i, leafPool[i%len(leafPool)], leafPool[(i+5)%len(leafPool)], kindPool[i%len(kindPool)], i, 100*(i%5))
	}
	p, err := Parse("bench.yaml", []byte(policyWith(r.String())))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkDecide20Rules(b *testing.B) {
	p := bench20(b)
	ctxs := make([]decisions.Context, 64)
	for i := range ctxs {
		ctxs[i] = ctx(0, armed(true), assessed(decisions.Level(i%3), 0.3*float64(i%4)), battery(float64(i%10)/10, 15),
			perception(decisions.PerceptionMode(i%8)), flight(decisions.FlightMode(i%6)))
		if i%7 == 0 {
			ctxs[i].SelfAssessment = nil
		}
		if i%5 == 0 {
			ctxs[i].Flight.BatteryPct = math.NaN()
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := ctxs[i%len(ctxs)]
		c.BeliefStampSimNs = int64(i) * 10_000_000
		if _, err := p.Decide(c); err != nil {
			b.Fatal(err)
		}
	}
}

// The performance requirement as a test: no allocation per Decide in
// steady state.
func TestDecideDoesNotAllocate(t *testing.T) {
	for _, name := range []string{"px4_failsafe_like.yaml", "px4_failsafe_escalating.yaml"} {
		p := shippedPolicy(t, name)
		c := ctx(0, armed(true), assessed(uncertain, 1), battery(0.1, math.NaN()), perception(decisions.PerceptionVIOLost),
			acted(decisions.KindEngageLand, decisions.ActionDenied, true), acted(decisions.KindEngageKill, decisions.ActionNone, false))
		stamp := int64(0)
		allocs := testing.AllocsPerRun(1000, func() {
			stamp += 1_000_000
			c.BeliefStampSimNs = stamp
			if _, err := p.Decide(c); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("%s: %v allocations per Decide", name, allocs)
		}
	}
}
