package sim

import (
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func testThresholds() decisions.Thresholds {
	return decisions.Thresholds{
		PositionKnownStdM: 0.5, PositionUnknownStdM: 2,
		VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
		OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2,
		SchemaVersion: 1,
	}
}

func drain(t *testing.T, opts Options) []Event {
	t.Helper()
	v, err := NewVehicle(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for {
		ev, ok, err := v.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func TestVehicleTellsTheWholeStory(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"default", Options{Thresholds: testThresholds()}},
		{"short and fast", Options{Thresholds: testThresholds(), Duration: 10 * time.Second, RateHz: 500}},
		{"slow", Options{Thresholds: testThresholds(), Duration: 60 * time.Second, RateHz: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := drain(t, tc.opts)
			var beliefs, assessments int
			levels := map[decisions.Level]int{}
			modes := map[decisions.PerceptionMode]int{}
			assessed := map[int64]bool{}
			last := int64(-1)
			beforeBelief := 0
			seenBelief := map[int64]bool{}
			noCovariance := 0
			for _, ev := range events {
				if ev.ArrivalNs < last {
					t.Fatalf("arrival %d after %d: not in arrival order", ev.ArrivalNs, last)
				}
				last = ev.ArrivalNs
				switch ev.Kind {
				case EventBelief:
					beliefs++
					seenBelief[ev.Belief.StampSimNs] = true
					if err := ev.Belief.Validate(); err != nil {
						t.Fatalf("invalid belief: %v", err)
					}
					if len(ev.Belief.Covariance) == 0 {
						noCovariance++
					}
				case EventAssessment:
					assessments++
					levels[ev.Assessment.OverallLevel]++
					assessed[ev.Assessment.BeliefStampSimNs] = true
					if !seenBelief[ev.Assessment.BeliefStampSimNs] {
						beforeBelief++
					}
					if err := ev.Assessment.Validate(); err != nil {
						t.Fatal(err)
					}
				case EventPerception:
					modes[ev.Perception.Mode]++
				}
			}
			v, _ := NewVehicle(tc.opts)
			if int64(beliefs) != v.Beliefs() {
				t.Fatalf("%d beliefs, want %d", beliefs, v.Beliefs())
			}
			if assessments >= beliefs || assessments < beliefs/2 {
				t.Fatalf("%d assessments for %d beliefs: want a silent stretch, not silence", assessments, beliefs)
			}
			for _, l := range []decisions.Level{decisions.LevelKnown, decisions.LevelUncertain, decisions.LevelUnknown} {
				if levels[l] == 0 {
					t.Errorf("no assessment is %v", l)
				}
			}
			for _, m := range []decisions.PerceptionMode{decisions.PerceptionNominal, decisions.PerceptionLowLight, decisions.PerceptionVIOLost, decisions.PerceptionMotionAggressive} {
				if modes[m] == 0 {
					t.Errorf("perception mode %v never reported", m)
				}
			}
			if beforeBelief == 0 {
				t.Error("no assessment arrives before its belief")
			}
			if noCovariance == 0 {
				t.Error("no belief without covariance (estimator reset)")
			}
		})
	}
}

func TestVehicleIsDeterministic(t *testing.T) {
	opts := Options{Thresholds: testThresholds(), Duration: 5 * time.Second}
	a, b := drain(t, opts), drain(t, opts)
	if len(a) != len(b) {
		t.Fatalf("%d vs %d events", len(a), len(b))
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].ArrivalNs != b[i].ArrivalNs {
			t.Fatalf("event %d differs", i)
		}
		if a[i].Assessment != nil && a[i].Assessment.SHA256() != b[i].Assessment.SHA256() {
			t.Fatalf("assessment %d differs", i)
		}
	}
}

func TestVehicleRejectsBadOptions(t *testing.T) {
	bad := testThresholds()
	bad.PositionKnownStdM = 9
	for _, o := range []Options{
		{Thresholds: testThresholds(), RateHz: -1},
		{Thresholds: testThresholds(), RateHz: 1e6},
		{Thresholds: testThresholds(), Duration: -time.Second},
		{Thresholds: bad},
		{},
	} {
		if _, err := NewVehicle(o); err == nil {
			t.Errorf("NewVehicle(%+v) accepted", o)
		}
	}
}

func TestVehicleMessagesCountsEveryPublication(t *testing.T) {
	opts := Options{Thresholds: testThresholds(), Duration: 7 * time.Second, RateHz: 100}
	v, err := NewVehicle(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Messages(), uint64(len(drain(t, opts))); got != want {
		t.Fatalf("Messages() = %d, the flight publishes %d", got, want)
	}
}
