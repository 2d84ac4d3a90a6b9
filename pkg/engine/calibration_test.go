package engine

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func calibration(lvl decisions.Level) *decisions.Calibration {
	return &decisions.Calibration{
		AdjustedOverallLevel: lvl, AdjustmentPolicyID: "mahalanobis_downgrade_v1", AdjustmentReason: "downgrade_from_calibration",
		History: decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: decisions.SchemaVersion},
	}
}

// TestCalibrationReachesTheContext: an assessment delivered with its
// calibration envelope (ADR-0027) puts both in the context; the reference
// policy then reads the adjusted level while the rationale's hash still
// binds the raw assessment. Repeats compare the envelope too.
func TestCalibrationReachesTheContext(t *testing.T) {
	l := mustLoop(t, LoopOptions{})
	var out Output
	raw := assessment(t, 10, decisions.LevelKnown)
	steps := []struct {
		ev   Event
		want func(t *testing.T, out *Output)
	}{
		{AssessmentEvent{ArrivalNs: 1, Assessment: raw, Calibration: calibration(decisions.LevelUncertain)}, nil},
		{AssessmentEvent{ArrivalNs: 2, Assessment: raw, Calibration: calibration(decisions.LevelUncertain)}, func(t *testing.T, out *Output) {
			if len(out.Duplicates) != 1 {
				t.Fatalf("an identical repeat is a duplicate: %+v", out)
			}
		}},
		{AssessmentEvent{ArrivalNs: 3, Assessment: raw, Calibration: calibration(decisions.LevelUnknown)}, func(t *testing.T, out *Output) {
			if len(out.Rejections) != 1 || out.Rejections[0].Reason != RejectConflictingAssessment {
				t.Fatalf("another envelope for the stamp conflicts: %+v", out.Rejections)
			}
		}},
		{AssessmentEvent{ArrivalNs: 3, Assessment: raw}, func(t *testing.T, out *Output) {
			if len(out.Rejections) != 1 || out.Rejections[0].Reason != RejectConflictingAssessment {
				t.Fatalf("the raw assessment alone conflicts with the calibrated one: %+v", out.Rejections)
			}
		}},
		{bEv(4, 10), func(t *testing.T, out *Output) {
			if len(out.Commands) != 1 {
				t.Fatalf("commands %+v", out.Commands)
			}
			c := out.Commands[0]
			if c.Context.Calibration == nil || c.Context.Calibration.AdjustedOverallLevel != decisions.LevelUncertain {
				t.Fatalf("context calibration %+v", c.Context.Calibration)
			}
			if c.Decision.Kind != decisions.KindHold || c.Rationale.SelfAssessmentSHA256 != raw.SHA256() {
				t.Fatalf("decision %s, hash %s: want hold on the adjusted level, hash of the raw assessment", c.Decision, c.Rationale.SelfAssessmentSHA256)
			}
		}},
		{AssessmentEvent{ArrivalNs: 5, Assessment: raw, Calibration: calibration(decisions.LevelUncertain)}, func(t *testing.T, out *Output) {
			if len(out.Duplicates) != 1 {
				t.Fatalf("an identical repeat after the decision is a duplicate: %+v", out)
			}
		}},
		{AssessmentEvent{ArrivalNs: 6, Assessment: assessment(t, 11, decisions.LevelKnown), Calibration: &decisions.Calibration{}}, func(t *testing.T, out *Output) {
			if len(out.Rejections) != 1 || out.Rejections[0].Reason != RejectInvalidAssessment {
				t.Fatalf("an invalid envelope is rejected: %+v", out.Rejections)
			}
		}},
	}
	for i, s := range steps {
		if err := l.Step(s.ev, &out); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if s.want != nil {
			s.want(t, &out)
		}
	}
}
