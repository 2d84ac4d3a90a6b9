package session_test

import (
	"fmt"
	"log"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func belief(stamp int64) decisions.Belief {
	return decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0},
		Flight:  decisions.FlightStatus{Armed: true, Mode: decisions.FlightModeOffboard, BatteryV: 15, BatteryPct: 0.8},
		Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
}

// A Session decodes serialized messages (CDR) of its inputs, steps the
// Loop and publishes what it decides to its sinks.
func ExampleSession_Feed() {
	s, err := session.NewSession(session.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	var published []decisions.Rationale
	sink := session.FuncSink(func(cmd engine.Command) error {
		published = append(published, cmd.Rationale)
		return nil
	})
	if err := s.Runner().Register("memory", sink); err != nil {
		log.Fatal(err)
	}
	b := belief(7_000)
	vs := ros2msg.BeliefToWire(&b)
	data, err := vs.MarshalCDR()
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Feed("/state/nav", 1, data); err != nil {
		log.Fatal(err)
	}
	if err := s.End(2); err != nil { // the stream is over: decide what waits
		log.Fatal(err)
	}
	for _, r := range published {
		fmt.Println(r.Decision, r.PolicyID)
	}
	// Output:
	// abstain_uncertain@7000 (no_assessment) uncertainty_aware_reference_v1
}
