package honesty

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// TestNumberJSON: a finite Number is written as encoding/json writes a
// float64; one that is not finite as a string, and both read back.
func TestNumberJSON(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		want string
	}{
		{0, "0"}, {1.5, "1.5"}, {-2e-7, "-2e-7"}, {1e21, "1e+21"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`}, {math.NaN(), `"NaN"`},
	} {
		data, err := json.Marshal(Number(tc.n))
		if err != nil || string(data) != tc.want {
			t.Errorf("%v: %s, %v; want %s", tc.n, data, err, tc.want)
			continue
		}
		if plain, err := json.Marshal(tc.n); err == nil && string(plain) != string(data) {
			t.Errorf("%v: %s, encoding/json writes %s", tc.n, data, plain)
		}
		var back Number
		if err := json.Unmarshal(data, &back); err != nil || !(float64(back) == tc.n || math.IsNaN(tc.n) && math.IsNaN(float64(back))) {
			t.Errorf("%s read back as %v, %v", data, back, err)
		}
	}
}

// TestHugeValuesStillSerialize: estimates and truths that are finite but
// huge (1e308, of opposite signs) make errors that overflow; the Result is
// still written as JSON, with the overflowed figures as strings.
func TestHugeValuesStillSerialize(t *testing.T) {
	r := newRecording(t, true, truth.FrameSim)
	for stamp := int64(0); stamp <= 1000*ms; stamp += 10 * ms {
		r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp, Value: [3]float64{-1e308, 1e308, 0}})
		r.truth(truth.Sample{Stream: truth.StreamVelocity, StampNs: stamp, Value: [3]float64{-1e308, 1e308, 0}})
		r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: yaw(0)})
	}
	for stamp := int64(0); stamp <= 1000*ms; stamp += 20 * ms {
		r.belief(stamp, [3]float64{1e308, -1e308, 0}, [3]float64{1e308, -1e308, 1e308}, yaw(0), uniform(0.2, 0.1, 0.01), decisions.KindProceed)
	}
	res := r.audit(Options{})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("the result does not serialize: %v", err)
	}
	if !strings.Contains(string(data), `"+Inf"`) {
		t.Errorf("no overflowed figure written as \"+Inf\":\n%.2000s", data)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("the JSON does not read back: %v", err)
	}
}

// TestNEESReading: a mean within the bounds expected of it reads as
// consistent; above them, as errors larger than claimed; below, as errors
// smaller than claimed, which is caution, not a failure.
func TestNEESReading(t *testing.T) {
	for _, tc := range []struct {
		mean *Number
		want string
	}{
		{nil, "-"}, {num(3), "consistent"}, {num(2.95), "consistent"}, {num(5.3), "errors larger than claimed"}, {num(1.1), "errors smaller than claimed"},
	} {
		n := &NEES{Mean: tc.mean, MeanLower: num(2.94), MeanUpper: num(3.06)}
		if got := n.Reading(); got != tc.want {
			t.Errorf("mean %v: %q, want %q", tc.mean, got, tc.want)
		}
	}
}

// TestVerdictWords: a flight whose every KNOWN claim held is honest; one
// KNOWN claim beyond the threshold makes it overconfident, naming the axis.
func TestVerdictWords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     float64 // true error of position_x, m
		verdict string
	}{{"within", 0.1, VerdictHonest}, {"beyond", 0.9, VerdictOverconfident}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecording(t, true, truth.FrameSim)
			for stamp := int64(0); stamp <= 200*ms; stamp += 10 * ms {
				r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp, Value: [3]float64{0, 0, 10}})
				r.truth(truth.Sample{Stream: truth.StreamVelocity, StampNs: stamp})
				r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: yaw(0)})
			}
			for stamp := int64(0); stamp <= 200*ms; stamp += 20 * ms {
				x := 0.0
				if stamp > 0 { // the first belief anchors the offsets
					x = tc.err
				}
				r.belief(stamp, [3]float64{x, 0, 10}, [3]float64{}, yaw(0), uniform(0.2, 0.1, 0.01), decisions.KindProceed)
			}
			res := r.audit(Options{})
			if res.Verdict != tc.verdict || (tc.verdict == VerdictOverconfident) != strings.Contains(res.Reason, "position_x") {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict, res.Reason, tc.verdict)
			}
			var table strings.Builder
			if err := WriteTable(&table, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(table.String(), "verdict: "+tc.verdict+":") {
				t.Errorf("table:\n%s", table.String())
			}
		})
	}
}
