package session

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func TestScratchReusesItsStorage(t *testing.T) {
	var s Scratch
	batch := func() [][]float64 {
		s.Reset()
		got := make([][]float64, 0, 100)
		for range 100 {
			got = append(got, s.Floats(decisions.CovarianceLen))
		}
		return got
	}
	first := batch()
	for i, f := range first {
		if len(f) != decisions.CovarianceLen || cap(f) != decisions.CovarianceLen {
			t.Fatalf("slice %d: len %d cap %d", i, len(f), cap(f))
		}
		f[0] = float64(i)
	}
	for i, f := range first {
		if f[0] != float64(i) {
			t.Fatalf("slice %d overlaps another within a batch", i)
		}
	}
	batch()                                                       // takes one block of the first batch's size
	if n := testing.AllocsPerRun(10, func() { batch() }); n > 1 { // the slice of slices
		t.Fatalf("%v allocations per batch once grown, want the storage reused", n)
	}
}

// Each input's one decoder gives the event of the message encoded from it,
// by value, with a belief's covariance in the scratch or in storage of its
// own (a nil scratch), and nothing for another topic or a corrupt message.
func TestDecodeIntoEveryInput(t *testing.T) {
	b := decisions.Belief{StampSimNs: 5, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: make([]float64, decisions.CovarianceLen),
		Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	b.Covariance[3] = 2
	a, err := decisions.Assess(5, b.Covariance, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	cal := decisions.Calibration{AdjustedOverallLevel: decisions.LevelUncertain, AdjustmentPolicyID: "cal_v1", AdjustmentReason: "widened"}
	perception := decisions.PerceptionReport{StampSimNs: 5, Mode: 1}
	evidence := []engine.Evidence{ack(1, 176, decisions.AckAccepted)}
	vs := ros2msg.BeliefToWire(&b)
	sa := ros2msg.SelfAssessmentToWire(&a)
	ca := ros2msg.CalibratedToWire(&a, &cal)
	pm := ros2msg.PerceptionToWire(perception)
	ae := EvidenceMessage(engine.EvidenceEvent{Items: evidence})
	pe := ros2msg.ParameterEvent{Node: "/n", ChangedParameters: []ros2msg.Parameter{{Name: "x", Value: ros2msg.ParameterValue{Type: engine.ParameterBool, BoolValue: true}}}}
	te := ros2msg.LifecycleTransitionEvent{GoalState: ros2msg.LifecycleState{ID: 3}}
	const at = 9
	inputs := DefaultInputs()
	for i := range inputs {
		if inputs[i].Key == KeySelfAssessmentCalibrated {
			inputs[i].Topic = CalibratedTopic
		}
	}
	topics := DefaultTopics()
	topics[KeySelfAssessmentCalibrated] = CalibratedTopic
	sameAssessment := func(got engine.Event, want engine.AssessmentEvent) bool {
		g, ok := got.(engine.AssessmentEvent)
		return ok && g.ArrivalNs == at && g.Assessment.Equal(&want.Assessment) && g.Hash.For(&g.Assessment) &&
			g.Hash.Hex() == want.Assessment.SHA256() && (g.Calibration == nil) == (want.Calibration == nil) &&
			(g.Calibration == nil || fmt.Sprint(*g.Calibration) == fmt.Sprint(*want.Calibration))
	}
	for _, tc := range []struct {
		key  string
		msg  interface{ MarshalCDR() ([]byte, error) }
		same func(engine.Event) bool
	}{
		{KeyState, &vs, func(ev engine.Event) bool {
			g, ok := ev.(engine.BeliefEvent)
			return ok && g.ArrivalNs == at && g.Belief.Equal(&b)
		}},
		{KeySelfAssessment, &sa, func(ev engine.Event) bool { return sameAssessment(ev, engine.AssessmentEvent{Assessment: a}) }},
		{KeySelfAssessmentCalibrated, &ca, func(ev engine.Event) bool {
			return sameAssessment(ev, engine.AssessmentEvent{Assessment: a, Calibration: &cal})
		}},
		{KeyPerceptionMode, &pm, func(ev engine.Event) bool {
			return ev == engine.Event(engine.PerceptionEvent{ArrivalNs: at, Report: perception})
		}},
		{KeyActionEvidence, &ae, func(ev engine.Event) bool {
			g, ok := ev.(engine.EvidenceEvent)
			return ok && g.ArrivalNs == at && fmt.Sprint(g.Items) == fmt.Sprint(evidence)
		}},
		{KeyParameterEvents, &pe, func(ev engine.Event) bool {
			g, ok := ev.(engine.ParameterEvent)
			return ok && g.ArrivalNs == at && g.Node == "/n" && len(g.Changes) == 1 && g.Changes[0].Name == "x" && g.Changes[0].Bool
		}},
		{KeyTransitionEvent, &te, func(ev engine.Event) bool {
			return ev == engine.Event(engine.LifecycleEvent{ArrivalNs: at, Goal: 3})
		}},
	} {
		data, err := tc.msg.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		for _, scratch := range []*Scratch{new(Scratch), nil} {
			var d Decoded
			dec := NewDecoder(inputs)
			if err := dec.DecodeInto(topics[tc.key], at, data, scratch, &d); err != nil {
				t.Fatal(tc.key, err)
			}
			if !tc.same(d.Event()) {
				t.Errorf("%s (scratch %v): decoded %+v", tc.key, scratch != nil, d.Event())
			}
			h, isAssessment := d.AssessmentHash()
			wantAssessment := tc.key == KeySelfAssessment || tc.key == KeySelfAssessmentCalibrated
			if isAssessment != wantAssessment {
				t.Errorf("%s: AssessmentHash() says %v", tc.key, isAssessment)
			}
			if ga, ok := d.Assessment(); ok && (h.Hex() != ga.Assessment.SHA256() || h != ga.Hash) {
				t.Errorf("%s: AssessmentHash() is not the hash the decoder made", tc.key)
			}
			if stamp, ok := d.BeliefStamp(); ok != (tc.key == KeyState) || ok && stamp != b.StampSimNs {
				t.Errorf("%s: BeliefStamp() = %d, %v", tc.key, stamp, ok)
			}
			if err := dec.DecodeInto(topics[tc.key], at, data[:len(data)-3], scratch, &d); !errors.Is(err, ErrCorrupt) || d.Event() != nil {
				t.Errorf("%s: truncated: error %v, event %v", tc.key, err, d.Event())
			}
			if err := dec.DecodeInto("/elsewhere", at, []byte{0, 1, 0, 0}, scratch, &d); err != nil || d.Event() != nil {
				t.Errorf("another topic: error %v, event %v", err, d.Event())
			}
		}
	}
}

// A Scratch drawing from a pool gives each covariance storage of its own
// that Reset does not take back.
func TestScratchDrawsFromPool(t *testing.T) {
	var sc Scratch
	sc.DrawFrom(new(engine.CovariancePool))
	seen := map[*float64]bool{}
	for range 3 {
		for range covBlock + 1 {
			c := sc.Floats(decisions.CovarianceLen)
			if len(c) != decisions.CovarianceLen || cap(c) != decisions.CovarianceLen || seen[&c[0]] {
				t.Fatalf("len %d cap %d, seen before %v", len(c), cap(c), seen[&c[0]])
			}
			seen[&c[0]] = true
		}
		sc.Reset()
	}
	if c := sc.Floats(7); len(c) != 7 || seen[&c[0]] {
		t.Fatalf("another length: len %d, from the pool %v", len(c), seen[&c[0]])
	}
}
