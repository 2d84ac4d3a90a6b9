package node

import (
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TestNodeDecidesOnTheCalibratedInput: with topics.self_assessment_calibrated
// set, the node decides with the calibrated context (a hold while the raw
// level is known), the rationale hashes the raw assessment, and the raw
// assessment is still recorded next to the calibrated record.
func TestNodeDecidesOnTheCalibratedInput(t *testing.T) {
	cfg := testConfig()
	cfg.Topics[session.KeySelfAssessmentCalibrated] = session.CalibratedTopic
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	h := startNode(t, cfg)

	b := testBelief(1_000_000)
	raw := testAssessment(t, b.StampSimNs, 0.1)
	if raw.OverallLevel != decisions.LevelKnown {
		t.Fatalf("raw level %v: the test needs a known raw assessment", raw.OverallLevel)
	}
	cal := decisions.Calibration{AdjustedOverallLevel: decisions.LevelUncertain, AdjustmentPolicyID: "test_calibration_v1",
		AdjustmentReason: "beyond_3_std", History: decisions.CalibrationHistory{OutcomesConsidered: 4, CountBeyond3Std: 2,
			MostRecentObservedStampSimNs: 900_000, SchemaVersion: decisions.SchemaVersion}}
	w := ros2msg.CalibratedToWire(&raw, &cal)
	calCDR, err := w.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, raw), base)
	h.deliver(session.CalibratedTopic, calCDR, base.Add(ms(1)))
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base.Add(ms(2)))
	if _, err := h.ft.WaitPublished(h.ctx, cfg.Topics[session.KeyDecisions], 1); err != nil {
		t.Fatal(err)
	}
	got := h.decisionsOut()
	if len(got) != 1 || got[0].Decision.Kind != decisions.KindHold || got[0].SelfAssessmentSHA256 != raw.SHA256() {
		t.Fatalf("decisions %+v: want one hold on the calibrated level, hashing the raw assessment", got)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := map[string]int{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		n[m.Topic]++
	}
	if n[cfg.Topics[session.KeySelfAssessment]] != 1 || n[session.CalibratedTopic] != 1 || n["/decisions"] != 1 {
		t.Fatalf("recorded %v: want the raw and the calibrated assessment and the decision", n)
	}
}
