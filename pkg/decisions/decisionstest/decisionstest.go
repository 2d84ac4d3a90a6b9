// Package decisionstest provides contract values the tests of the decision
// path build on: fixed thresholds, a valid belief, and the classifier's
// assessment at a chosen level. It is for tests only; no production
// package imports it (test/layout checks that).
package decisionstest

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Thresholds are fixed assessment thresholds: KNOWN at or below 0.1 m,
// 0.1 m/s and 0.01 rad, UNKNOWN at or above ten times those.
var Thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.1, PositionUnknownStdM: 1,
	VelocityKnownStdMps: 0.1, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.01, OrientationUnknownStdRad: 0.1,
	SchemaVersion: 1,
}

// Belief returns a valid belief with the given stamp: armed, offboard, a
// quarter into a navigation mission.
func Belief(stamp int64) decisions.Belief {
	return decisions.Belief{
		StampSimNs:   stamp,
		OrientationQ: [4]float64{1, 0, 0, 0},
		Flight:       decisions.FlightStatus{Armed: true, Mode: decisions.FlightModeOffboard, BatteryV: 15.2, BatteryPct: 0.8},
		Mission:      decisions.MissionStatus{Mode: decisions.MissionModeNavigate, Progress: 0.25, StartedSimNs: 0},
	}
}

// Assessment returns the classifier's assessment, under Thresholds, of a
// belief whose position std makes the overall level lvl.
func Assessment(t testing.TB, stamp int64, lvl decisions.Level) decisions.SelfAssessment {
	t.Helper()
	cov := make([]float64, decisions.CovarianceLen)
	std := map[decisions.Level]float64{decisions.LevelKnown: 0.05, decisions.LevelUncertain: 0.5, decisions.LevelUnknown: 2}[lvl]
	cov[0] = std * std
	a, err := decisions.Assess(stamp, cov, Thresholds)
	if err != nil {
		t.Fatal(err)
	}
	if a.OverallLevel != lvl {
		t.Fatalf("test assessment at %d: overall %s, want %s", stamp, a.OverallLevel, lvl)
	}
	return a
}
