package node

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// The node decodes each belief's covariance into storage it reuses for the
// next message; the Loop must keep its own copy, or a repeat of a pending
// belief with another covariance would be compared with itself and pass as
// an identical repeat.
func TestRunRepeatedBeliefWithAnotherCovarianceIsAConflict(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)
	withCov := func(stamp int64, v float64) []byte {
		b := testBelief(stamp)
		b.Covariance = make([]float64, decisions.CovarianceLen)
		for i := 0; i < 15; i++ {
			b.Covariance[i*15+i] = v
		}
		return beliefCDR(t, b)
	}
	state := cfg.Topics[session.KeyState]
	h.deliver(state, withCov(5_000_000, 0.01), base.Add(ms(1)))
	h.deliver(state, withCov(5_000_000, 0.01), base.Add(ms(2))) // identical: a duplicate
	h.deliver(state, withCov(5_000_000, 0.02), base.Add(ms(3))) // another covariance: a conflict
	h.deliver(state, withCov(5_000_000, 0.01), base.Add(ms(4))) // the first still stands
	d := h.sync(base.Add(ms(5)))
	if got := count(t, d, "rejected."+engine.RejectConflictingBelief.String()); got != 1 {
		t.Errorf("%d conflicting beliefs, want 1", got)
	}
	if got := count(t, d, "duplicates"); got != 2 {
		t.Errorf("%d duplicates, want 2", got)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}
