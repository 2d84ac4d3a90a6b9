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
	chans := ghostChannels(f, true)
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
		if s := Stream(stream % uint8(NumStreams+1)); s < NumStreams {
			topic = rec.Topics[s]
		}
		var out Decoded
		ok, err := dec.Decode(topic, data, &out)
		if !ok {
			t.Fatalf("%s not taken for truth", topic)
		}
		if err != nil {
			if out.N != 0 || out.HasReset {
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
	f.Add(uint8(2), px4Payload(f, d, px4.MsgVehicleLocalPosition, map[string]any{"timestamp": 9, "xy_reset_counter": 3}))
	chans := px4Recording(f, d, "")
	rec, err := Find(chans, "")
	if err != nil {
		f.Fatal(err)
	}
	topics := []string{rec.Topics[StreamPosition], rec.Topics[StreamAttitude], rec.ResetTopic}
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
