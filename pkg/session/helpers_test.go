package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

const ms = int64(time.Millisecond)

const (
	known     = decisions.LevelKnown
	uncertain = decisions.LevelUncertain
	unknown   = decisions.LevelUnknown
)

var testThresholds = decisions.Thresholds{
	PositionKnownStdM: 0.1, PositionUnknownStdM: 1,
	VelocityKnownStdMps: 0.1, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.01, OrientationUnknownStdRad: 0.1,
	SchemaVersion: 1,
}

// belief returns a valid belief with the given stamp.
func belief(stamp int64) decisions.Belief {
	return decisions.Belief{
		StampSimNs:   stamp,
		OrientationQ: [4]float64{1, 0, 0, 0},
		Flight:       decisions.FlightStatus{Armed: true, Mode: decisions.FlightModeOffboard, BatteryV: 15.2, BatteryPct: 0.8},
		Mission:      decisions.MissionStatus{Mode: decisions.MissionModeNavigate, Progress: 0.25, StartedSimNs: 0},
	}
}

// assessment returns the classifier's assessment of a belief whose position
// std makes the overall level lvl.
func assessment(t testing.TB, stamp int64, lvl decisions.Level) decisions.SelfAssessment {
	t.Helper()
	cov := make([]float64, decisions.CovarianceLen)
	std := map[decisions.Level]float64{decisions.LevelKnown: 0.05, decisions.LevelUncertain: 0.5, decisions.LevelUnknown: 2}[lvl]
	cov[0] = std * std
	a, err := decisions.Assess(stamp, cov, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if a.OverallLevel != lvl {
		t.Fatalf("test assessment at %d: overall %s, want %s", stamp, a.OverallLevel, lvl)
	}
	return a
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
