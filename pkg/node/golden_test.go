package node

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/rosbridge"
)

// goldenDir finds shared/golden beside the repository root (the directory
// holding go.mod), or skips the test.
func goldenDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			g := filepath.Join(dir, "..", "shared", "golden")
			if _, err := os.Stat(g); err != nil {
				t.Skipf("golden vectors not found at %s: %v", g, err)
			}
			return g
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found; golden vectors unavailable")
		}
		dir = parent
	}
}

type expectedDecision struct {
	Stamp                string  `json:"stamp"`
	Kind                 uint8   `json:"kind"`
	Reason               string  `json:"reason"`
	PolicyID             string  `json:"policy_id"`
	SelfAssessmentSHA256 *string `json:"self_assessment_sha256"`
}

// The reference's decisions for a recorded flight come out of the live
// node when the recording's messages are delivered at their log times:
// transport, decoding, conversion, joins, policy, encoding, end to end.
func TestGoldenFlightThroughTheNode(t *testing.T) {
	dir := goldenDir(t)
	r, err := rosbridge.OpenRecording(filepath.Join(dir, "bags", "sample_flight.mcap"), rosbridge.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	cfg := testConfig()
	cfg.AssessmentTimeout = 100 * time.Millisecond
	h := startNode(t, cfg)
	topics := map[string]string{
		"/state/nav":       cfg.Topics.State,
		"/self_assessment": cfg.Topics.SelfAssessment,
		"/perception/mode": cfg.Topics.PerceptionMode,
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

	f, err := os.Open(filepath.Join(dir, "bags", "sample_flight.expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []expectedDecision
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e expectedDecision
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	byStamp := make(map[string]decisions.Rationale, len(got))
	for _, g := range got {
		byStamp[strconv.FormatInt(g.BeliefStampSimNs, 10)] = g
	}
	for _, w := range want {
		g, ok := byStamp[w.Stamp]
		if !ok {
			t.Errorf("no decision for belief stamp %s (reference: %d %s)", w.Stamp, w.Kind, w.Reason)
			continue
		}
		sha := ""
		if w.SelfAssessmentSHA256 != nil {
			sha = *w.SelfAssessmentSHA256
		}
		if uint8(g.Decision.Kind) != w.Kind || g.Decision.Reason != w.Reason || g.PolicyID != w.PolicyID || g.SelfAssessmentSHA256 != sha {
			t.Errorf("stamp %s: decided %+v, reference %+v (sha %q)", w.Stamp, g, w, sha)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d decisions, reference %d", len(got), len(want))
	}
}
