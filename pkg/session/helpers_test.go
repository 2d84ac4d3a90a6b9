package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/decisions/decisionstest"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

const ms = int64(time.Millisecond)

const (
	known     = decisions.LevelKnown
	uncertain = decisions.LevelUncertain
	unknown   = decisions.LevelUnknown
)

var testThresholds = decisionstest.Thresholds

func belief(stamp int64) decisions.Belief { return decisionstest.Belief(stamp) }

func assessment(t testing.TB, stamp int64, lvl decisions.Level) decisions.SelfAssessment {
	t.Helper()
	return decisionstest.Assessment(t, stamp, lvl)
}

func calibration(lvl decisions.Level) *decisions.Calibration {
	return &decisions.Calibration{
		AdjustedOverallLevel: lvl, AdjustmentPolicyID: "mahalanobis_downgrade_v1", AdjustmentReason: "downgrade_from_calibration",
		History: decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: decisions.SchemaVersion},
	}
}

func bEv(at, stamp int64) engine.Event {
	return engine.BeliefEvent{ArrivalNs: at, Belief: belief(stamp)}
}

func aEv(t testing.TB, at, stamp int64, lvl decisions.Level) engine.Event {
	return engine.AssessmentEvent{ArrivalNs: at, Assessment: assessment(t, stamp, lvl)}
}

func pEv(at, stamp int64, m decisions.PerceptionMode) engine.Event {
	return engine.PerceptionEvent{ArrivalNs: at, Report: decisions.PerceptionReport{StampSimNs: stamp, Mode: m}}
}

func mustLoop(t testing.TB, opts engine.LoopOptions) *engine.Loop {
	t.Helper()
	l, err := engine.NewLoop(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// describe renders an output as short lines, in the order commands,
// rejections, duplicates, notes:
//
//	decide <stamp> <kind> with|without:<reason> [perception <mode>@<stamp>]
//	reject <reason> <stamp>
//	dup <input> <stamp>
//	note <stamp> <field>
func describe(out *engine.Output) []string {
	var s []string
	for _, c := range out.Commands {
		line := fmt.Sprintf("decide %d %s ", c.Decision.DecisionStampSimNs, c.Decision.Kind)
		if c.Context.SelfAssessment != nil {
			line += "with"
		} else {
			line += "without:" + c.WithoutAssessment.String()
		}
		if p := c.Context.Perception; p != nil {
			line += fmt.Sprintf(" perception %s@%d", p.Mode, p.StampSimNs)
		}
		s = append(s, line)
	}
	for _, r := range out.Rejections {
		s = append(s, fmt.Sprintf("reject %s %d", r.Reason, r.Stamp))
	}
	for _, d := range out.Duplicates {
		s = append(s, fmt.Sprintf("dup %s %d", d.Input, d.Stamp))
	}
	return s
}

// run steps every event and returns all described output lines, failing on
// any step error.
func run(t testing.TB, l *engine.Loop, evs []engine.Event) ([]string, []engine.Output) {
	t.Helper()
	var lines []string
	var outs []engine.Output
	for i, ev := range evs {
		var out engine.Output
		if err := l.Step(ev, &out); err != nil {
			t.Fatalf("event %d (%T): %v", i, ev, err)
		}
		lines = append(lines, describe(&out)...)
		outs = append(outs, out)
	}
	return lines, outs
}
