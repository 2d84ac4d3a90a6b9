package truth

import (
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// checkDecoded fails on a decoded sample that Check would not pass: what
// decodes is usable truth.
func checkDecoded(t *testing.T, out *Decoded) {
	for _, s := range out.Samples[:out.N] {
		c, err := s.Check()
		if err != nil {
			t.Fatalf("decoded an unusable sample %+v: %v", s, err)
		}
		for i := range c.Q {
			if math.Abs(c.Q[i]-s.Q[i]) > 1e-12 {
				t.Fatalf("decoded attitude %v is not normalized (%v)", s.Q, c.Q)
			}
		}
	}
	if out.HasReset {
		for _, v := range out.Reset.Delta {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("decoded a non-finite reset %+v", out.Reset)
			}
		}
	}
	if out.HasOrigin {
		if err := out.Origin.check(); err != nil {
			t.Fatalf("decoded an unusable origin %+v: %v", out.Origin, err)
		}
	}
}

func FuzzDecodeGhost(f *testing.F) {
	enc, _ := NewEncoder(FrameSim)
	for _, tc := range ghostCases {
		_, data, err := enc.Encode(tc.in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(tc.in.Stream), append([]byte(nil), data...))
	}
	_, data, _ := enc.EncodeReset(Reset{StampNs: 3, Delta: [3]float64{1, 2, 3}})
	f.Add(uint8(NumStreams), append([]byte(nil), data...))
	_, data, _ = enc.EncodeOrigin(Origin{StampNs: 4, Lat: 45.5, Lon: -73.7, Alt: math.NaN()})
	f.Add(uint8(NumStreams+1), append([]byte(nil), data...))
	chans := append(ghostChannels(f, true), ghostGlobalChannels(f, 10)...)
	rec, err := Find(chans, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, stream uint8, data []byte) {
		dec, err := NewDecoder(rec, chans)
		if err != nil {
			t.Fatal(err)
		}
		topic := TopicEstimatorReset
		switch s := Stream(stream % uint8(NumStreams+2)); {
		case s < NumStreams:
			topic = rec.Topics[s]
		case s == NumStreams+1:
			topic = TopicEstimatorOrigin
		}
		var out Decoded
		ok, err := dec.Decode(topic, data, &out)
		if !ok {
			t.Fatalf("%s not taken for truth", topic)
		}
		if err != nil {
			if out.N != 0 || out.HasReset || out.HasOrigin {
				t.Fatalf("an error with output %+v: %v", out, err)
			}
			return
		}
		checkDecoded(t, &out)
	})
}

func FuzzDecodePX4(f *testing.F) {
	d := defs(f, px4.Release115)
	f.Add(uint8(0), px4Payload(f, d, px4.MsgVehicleLocalPosition, lpTruth(1000, 1, 2, 3, 4, 5, 6)))
	f.Add(uint8(1), px4Payload(f, d, px4.MsgVehicleAttitude, map[string]any{"timestamp": 9, "q[0]": 1.0}))
	f.Add(uint8(2), px4Payload(f, d, px4.MsgVehicleLocalPosition, map[string]any{"timestamp": 9, "xy_reset_counter": 3,
		"ref_lat": 45.5, "ref_lon": -73.7, "ref_alt": 30.0, "xy_global": true, "z_global": true}))
	f.Add(uint8(3), px4GlobalPayload(f, map[string]float64{"timestamp": 9, "lat": 45.5, "lon": -73.7, "alt": 30}))
	chans := append(px4Recording(f, d, ""), px4GlobalChannel(f, 9, PX4TopicGlobalTruth))
	rec, err := Find(chans, "")
	if err != nil {
		f.Fatal(err)
	}
	topics := []string{rec.Topics[StreamPosition], rec.Topics[StreamAttitude], rec.ResetTopic, rec.Topics[StreamGlobal]}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		dec, err := NewDecoder(rec, chans)
		if err != nil {
			t.Fatal(err)
		}
		var out Decoded
		topic := topics[int(which)%len(topics)]
		// Twice, so that the reset tracker has a previous sample.
		for range 2 {
			ok, err := dec.Decode(topic, data, &out)
			if !ok {
				t.Fatalf("%s not taken for truth", topic)
			}
			if err == nil {
				checkDecoded(t, &out)
			}
		}
	})
}
