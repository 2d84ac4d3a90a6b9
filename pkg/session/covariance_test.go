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

// DecodeInto gives, by value, the events Decode gives, for every default
// input, and nothing for another topic or a corrupt message.
func TestDecodeIntoMatchesDecode(t *testing.T) {
	b := decisions.Belief{StampSimNs: 5, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: make([]float64, decisions.CovarianceLen),
		Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	b.Covariance[3] = 2
	a, err := decisions.Assess(5, b.Covariance, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	vs := ros2msg.BeliefToWire(&b)
	sa := ros2msg.SelfAssessmentToWire(&a)
	pm := ros2msg.PerceptionToWire(decisions.PerceptionReport{StampSimNs: 5, Mode: 1})
	topics := DefaultTopics()
	var s Scratch
	var d Decoded
	dec := NewDecoder(DefaultInputs())
	for _, tc := range []struct {
		key string
		msg interface{ MarshalCDR() ([]byte, error) }
	}{{KeyState, &vs}, {KeySelfAssessment, &sa}, {KeyPerceptionMode, &pm}} {
		data, err := tc.msg.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		want, err := dec.Decode(topics[tc.key], 9, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.DecodeInto(topics[tc.key], 9, data, &s, &d); err != nil {
			t.Fatal(err)
		}
		got := d.Event()
		if ga, ok := got.(engine.AssessmentEvent); ok {
			// Both hashed (each its own hash): compare content and hash.
			wa := want.(engine.AssessmentEvent)
			if !ga.Assessment.Equal(&wa.Assessment) || !ga.Hash.For(&ga.Assessment) || !wa.Hash.For(&wa.Assessment) ||
				ga.Hash.Hex() != wa.Hash.Hex() || ga.ArrivalNs != wa.ArrivalNs {
				t.Errorf("%s: DecodeInto gives %+v, Decode %+v", tc.key, got, want)
			}
		} else if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s: DecodeInto gives %+v, Decode %+v", tc.key, got, want)
		}
		h, isAssessment := d.AssessmentHash()
		if isAssessment != (tc.key == KeySelfAssessment) {
			t.Errorf("%s: AssessmentHash() says %v", tc.key, isAssessment)
		}
		if ga, ok := got.(engine.AssessmentEvent); ok && (h.Hex() != ga.Assessment.SHA256() || h != ga.Hash) {
			t.Errorf("%s: AssessmentHash() is not the hash the decoder made", tc.key)
		}
		if err := dec.DecodeInto(topics[tc.key], 9, data[:len(data)-3], &s, &d); !errors.Is(err, ErrCorrupt) || d.Event() != nil {
			t.Errorf("%s: truncated: error %v, event %v", tc.key, err, d.Event())
		}
	}
	if err := dec.DecodeInto("/elsewhere", 9, []byte{0, 1, 0, 0}, &s, &d); err != nil || d.Event() != nil {
		t.Errorf("another topic: error %v, event %v", err, d.Event())
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
