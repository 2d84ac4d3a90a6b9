package engine_test

import (
	"fmt"
	"log"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

var thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: decisions.SchemaVersion,
}

func belief(stamp int64) decisions.Belief {
	return decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0},
		Flight:  decisions.FlightStatus{Armed: true, Mode: decisions.FlightModeOffboard, BatteryV: 15, BatteryPct: 0.8},
		Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
}

// A belief waits for its self-assessment; the second belief's never comes
// and it is decided without one once the timeout has passed in arrival
// time (a tick says time passed with no input).
func ExampleLoop_Step() {
	loop, err := engine.NewLoop(engine.LoopOptions{}) // the reference policy, 100 ms timeout
	if err != nil {
		log.Fatal(err)
	}
	cov := make([]float64, decisions.CovarianceLen)
	for i := range 9 {
		cov[i*decisions.CovarianceDim+i] = 0.01 // std 0.1 on position, velocity, orientation
	}
	a, err := decisions.Assess(1_000, cov, thresholds)
	if err != nil {
		log.Fatal(err)
	}
	var out engine.Output
	for _, ev := range []engine.Event{
		engine.BeliefEvent{ArrivalNs: 0, Belief: belief(1_000)},
		engine.AssessmentEvent{ArrivalNs: 5_000_000, Assessment: a},
		engine.BeliefEvent{ArrivalNs: 20_000_000, Belief: belief(2_000)},
		engine.TickEvent{ArrivalNs: 150_000_000},
	} {
		if err := loop.Step(ev, &out); err != nil {
			log.Fatal(err)
		}
		for _, c := range out.Commands {
			fmt.Printf("%s, without assessment: %s\n", c.Decision, c.WithoutAssessment)
		}
	}
	// Output:
	// hold@1000 (overall_uncertain), without assessment: none
	// abstain_uncertain@2000 (no_assessment), without assessment: timeout
}
