package audit

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// perceptionPolicy decides by the perception mode in the context, so a
// second join engine that picked another report for a stamp would
// disagree with the Loop.
type perceptionPolicy struct{}

func (perceptionPolicy) ID() string { return "perception_test_v1" }

func (perceptionPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	d := decisions.Decision{Kind: decisions.KindProceed, Reason: "no_perception", DecisionStampSimNs: c.BeliefStampSimNs,
		SchemaVersion: decisions.SchemaVersion}
	if c.Perception != nil {
		d.Kind, d.Reason = decisions.KindHold, "perception_"+c.Perception.Mode.String()
	}
	return d, nil
}

func message(t *testing.T, topic string, logTime int64, m interface {
	MarshalCDR() ([]byte, error)
	SchemaName() string
}) bag.Message {
	t.Helper()
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return bag.Message{Topic: topic, SchemaName: m.SchemaName(), LogTime: uint64(logTime), PublishTime: uint64(logTime), Data: data}
}

// TestVerifyAgreesWithTheLoopOnRepeatedPerceptionStamps records a flight
// whose perception detector repeats a stamp with another mode. The Loop
// keeps the first report for a stamp; verify, which re-runs that very Loop,
// agrees with every decision (a second join engine that let the later
// report win would call them diverged).
func TestVerifyAgreesWithTheLoopOnRepeatedPerceptionStamps(t *testing.T) {
	var in []bag.Message
	ms := int64(1_000_000)
	belief := func(stamp int64) *ros2msg.VehicleState {
		b := decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0},
			Flight:  decisions.FlightStatus{BatteryV: 16, BatteryPct: 0.9},
			Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
		w := ros2msg.BeliefToWire(&b)
		return &w
	}
	perception := func(stamp int64, mode decisions.PerceptionMode) *ros2msg.PerceptionMode {
		w := ros2msg.PerceptionToWire(decisions.PerceptionReport{StampSimNs: stamp, Mode: mode})
		return &w
	}
	in = append(in,
		message(t, "/perception/mode", 1*ms, perception(10*ms, decisions.PerceptionMode(1))),
		message(t, "/perception/mode", 2*ms, perception(10*ms, decisions.PerceptionMode(2))), // same stamp, other mode
	)
	for i := int64(0); i < 20; i++ {
		in = append(in, message(t, "/state/nav", (5+i*20)*ms, belief((20+i*20)*ms)))
	}
	policy := perceptionPolicy{}
	out, _, err := replayBytes(t, &sliceSource{msgs: in}, ReplayOptions{Session: session.SessionOptions{Loop: engine.LoopOptions{Policy: policy}}})
	if err != nil {
		t.Fatal(err)
	}
	recorded := recordedDecisions(t, out)
	if len(recorded) != 20 || recorded[0].Decision.Reason != "perception_"+decisions.PerceptionMode(1).String() {
		t.Fatalf("replay decided %d, first %+v: the Loop should keep the first report", len(recorded), recorded[0])
	}
	report, err := Verify(openBytes(t, out), VerifyOptions{Policies: []decisions.Policy{policy}})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed() || report.RerunCount(RerunMatched) != 20 {
		t.Fatalf("verdict %s %v: %v %+v", report.Verdict, report.Reasons, report.ByRerun, report.Problems)
	}
	if report.Rejected["conflicting_perception"] != 1 {
		t.Fatalf("the repeated stamp was not reported as a conflict: %v", report.Rejected)
	}
}
