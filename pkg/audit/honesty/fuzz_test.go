package honesty

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// FuzzAudit feeds a short flight with one message of arbitrary bytes on
// one of its topics at an arbitrary time: the audit must neither panic
// nor give numbers that do not serialize (NaN in the JSON).
func FuzzAudit(f *testing.F) {
	topics := []string{"/state/nav", "/self_assessment", "/decisions", truth.TopicPosition, truth.TopicVelocity,
		truth.TopicAttitude, truth.TopicEstimatorReset, truth.TopicGlobalPosition, truth.TopicEstimatorOrigin}
	base := newRecordingWith(f, true, true, truth.FrameSim)
	base.origin(truth.Origin{StampNs: 30 * ms, Lat: 45.5, Lon: -73.7, Alt: 30})
	for stamp := int64(0); stamp <= 200*ms; stamp += 10 * ms {
		base.truth(truth.Sample{Stream: truth.StreamGlobal, StampNs: stamp, Value: [3]float64{45.5, -73.7, 31}})
		base.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp, Value: [3]float64{1, 2, 3}})
		base.truth(truth.Sample{Stream: truth.StreamVelocity, StampNs: stamp})
		base.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: yaw(1)})
	}
	for stamp := int64(0); stamp <= 200*ms; stamp += 20 * ms {
		base.belief(stamp, [3]float64{1, 2, 3.5}, [3]float64{}, yaw(1.01), uniform(0.2, 0.1, 0.01), decisions.KindProceed)
	}
	for i, m := range base.msgs {
		if i%9 == 0 {
			f.Add(uint8(i%len(topics)), int64(m.LogTime)+3, m.Data)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, logNs int64, data []byte) {
		r := &recording{t: t, msgs: base.msgs[:len(base.msgs):len(base.msgs)], chans: base.chans}
		r.add(topics[int(which)%len(topics)], logNs, data)
		res, err := Audit(r.source(), r.chans, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the result does not serialize: %v", err)
		}
		for _, a := range res.Axes {
			for _, p := range []*Number{a.RMSNormalizedError, a.RMSError, a.MaxAbsError} {
				if p != nil && math.IsNaN(float64(*p)) {
					t.Fatalf("NaN in %+v", a)
				}
			}
		}
	})
}
