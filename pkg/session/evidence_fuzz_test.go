package session

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// FuzzEvidence feeds arbitrary bytes on the evidence input of a session
// with an outstanding action: whatever decodes is checked for provenance,
// nothing panics, and a rejected or undecodable batch accepts nothing.
func FuzzEvidence(f *testing.F) {
	good := EvidenceMessage(engine.EvidenceEvent{Items: []engine.Evidence{ack(1, 176, decisions.AckAccepted), state(1, 4, true)}})
	seed, _ := good.AppendCDR(nil)
	f.Add(seed)
	f.Add(seed[:len(seed)-5])
	f.Add([]byte{0, 1, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, hold, decisions.KindHold)
		h.belief(100)
		before := h.s.Runner().Counters().Actions
		err := h.s.Feed("/decisions/evidence", 150*ms, data)
		after := h.s.Runner().Counters().Actions
		if err != nil && after.EvidenceAccepted != before.EvidenceAccepted {
			t.Fatalf("undecodable evidence accepted: %v", err)
		}
		if after.EvidenceRejected > before.EvidenceRejected && after.EvidenceAccepted != before.EvidenceAccepted {
			t.Fatal("a rejected batch was also accepted")
		}
	})
}
