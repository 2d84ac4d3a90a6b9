package node

import (
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// The reference's decisions for a recorded flight come out of the live
// node when the recording's messages are delivered at their log times:
// transport, decoding, conversion, joins, policy, encoding, end to end.
func TestGoldenFlightThroughTheNode(t *testing.T) {
	path, want := golden.SampleFlight(t)
	r, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	cfg := testConfig()
	cfg.AssessmentTimeout = 100 * time.Millisecond
	h := startNode(t, cfg)
	topics := map[string]string{
		"/state/nav":       cfg.Topics[session.KeyState],
		"/self_assessment": cfg.Topics[session.KeySelfAssessment],
		"/perception/mode": cfg.Topics[session.KeyPerceptionMode],
	}
	var last time.Time
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		topic, ok := topics[m.Topic]
		if !ok {
			continue
		}
		last = time.Unix(0, int64(m.LogTime))
		h.deliver(topic, m.Data, last)
	}
	h.clock.set(last)
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := h.decisionsOut()

	byStamp := make(map[int64]decisions.Rationale, len(got))
	for _, g := range got {
		byStamp[g.BeliefStampSimNs] = g
	}
	for _, w := range want {
		g, ok := byStamp[w.Stamp]
		if !ok {
			t.Errorf("no decision for belief stamp %d (reference: %v %s)", w.Stamp, w.Kind, w.Reason)
			continue
		}
		if !w.Matches(g.BeliefStampSimNs, g.Decision.DecisionStampSimNs, uint8(g.Decision.Kind), g.Decision.Reason, g.PolicyID, g.SelfAssessmentSHA256) {
			t.Errorf("stamp %d: decided %+v, reference %+v", w.Stamp, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d decisions, reference %d", len(got), len(want))
	}
}
