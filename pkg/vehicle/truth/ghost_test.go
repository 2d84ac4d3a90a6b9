package truth

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// ghostCases are shared by the encode and decode tests: each sample, what
// Check makes of it, and its topic.
var ghostCases = []struct {
	name  string
	in    Sample
	want  Sample
	topic string
}{
	{"position", Sample{Stream: StreamPosition, StampNs: 1_500_000_000, Value: [3]float64{12.5, -30, 1.25}},
		Sample{Stream: StreamPosition, StampNs: 1_500_000_000, Value: [3]float64{12.5, -30, 1.25}}, TopicPosition},
	{"velocity at stamp 0", Sample{Stream: StreamVelocity, Value: [3]float64{-0.5, 2, 0}},
		Sample{Stream: StreamVelocity, Value: [3]float64{-0.5, 2, 0}}, TopicVelocity},
	{"attitude normalized, w >= 0", Sample{Stream: StreamAttitude, StampNs: 42, Q: [4]float64{-0.5, -0.5, -0.5, -0.505}},
		Sample{Stream: StreamAttitude, StampNs: 42, Q: func() [4]float64 {
			n := math.Sqrt(3*0.25 + 0.505*0.505)
			return [4]float64{0.5 / n, 0.5 / n, 0.5 / n, 0.505 / n}
		}()}, TopicAttitude},
	{"global position", Sample{Stream: StreamGlobal, StampNs: 7, Value: [3]float64{45.467116, -73.757837, 32.34}},
		Sample{Stream: StreamGlobal, StampNs: 7, Value: [3]float64{45.467116, -73.757837, 32.34}}, TopicGlobalPosition},
}

func TestGhostRoundTrip(t *testing.T) {
	enc, err := NewEncoder(FrameSim)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range ghostCases {
		t.Run(tc.name, func(t *testing.T) {
			topic, data, err := enc.Encode(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if topic != tc.topic {
				t.Errorf("topic %s, want %s", topic, tc.topic)
			}
			got, frame, err := DecodeGhost(tc.in.Stream, data)
			if err != nil {
				t.Fatal(err)
			}
			want := FrameSim
			if tc.in.Stream == StreamGlobal {
				want = FrameGeodetic
			}
			if frame != want {
				t.Errorf("frame %q, want %q", frame, want)
			}
			if got.Stream != tc.want.Stream || got.StampNs != tc.want.StampNs || got.Value != tc.want.Value {
				t.Errorf("decoded %+v, want %+v", got, tc.want)
			}
			for i := range got.Q {
				if !near(got.Q[i], tc.want.Q[i], 1e-15) {
					t.Errorf("q = %v, want %v", got.Q, tc.want.Q)
					break
				}
			}
		})
	}
}

// TestGhostBytes pins the wire form against bytes built by hand from the
// CDR rules (not from the codec): header, stamp, frame, padding to 8,
// then the three doubles.
func TestGhostBytes(t *testing.T) {
	enc, err := NewEncoder(FrameSim)
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := enc.Encode(Sample{Stream: StreamPosition, StampNs: 1_500_000_000, Value: [3]float64{1, -2, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	want := []byte{0, 1, 0, 0}
	want = le.AppendUint32(want, 1)
	want = le.AppendUint32(want, 500_000_000)
	want = le.AppendUint32(want, uint32(len(FrameSim)+1))
	want = append(append(want, FrameSim...), 0)
	for (len(want)-4)%8 != 0 {
		want = append(want, 0)
	}
	for _, v := range []float64{1, -2, 0.5} {
		want = le.AppendUint64(want, math.Float64bits(v))
	}
	if !reflect.DeepEqual(data, want) {
		t.Errorf("bytes\n% x\nwant\n% x", data, want)
	}
}

func TestGhostRejects(t *testing.T) {
	enc, err := NewEncoder(FramePX4)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Sample{
		{Stream: StreamPosition, StampNs: -1},
		{Stream: StreamPosition, Value: [3]float64{0, math.NaN(), 0}},
		{Stream: StreamVelocity, Value: [3]float64{math.Inf(1), 0, 0}},
		{Stream: StreamAttitude, Q: [4]float64{0, 0, 0, 0}},
		{Stream: StreamAttitude, Q: [4]float64{1.02, 0, 0, 0}},
		{Stream: StreamAttitude, Q: [4]float64{math.NaN(), 0, 0, 1}},
		{Stream: NumStreams},
		{Stream: StreamPosition, StampNs: maxStampNs + 1},
		{Stream: StreamGlobal, Value: [3]float64{90.5, 0, 0}},
		{Stream: StreamGlobal, Value: [3]float64{0, -180.5, 0}},
		{Stream: StreamGlobal, Value: [3]float64{0, 0, math.NaN()}},
		{Stream: StreamGlobal, Value: [3]float64{math.NaN(), math.NaN(), 0}},
	} {
		if _, _, err := enc.Encode(s); !errors.Is(err, ErrSample) {
			t.Errorf("Encode(%+v) = %v, want ErrSample", s, err)
		}
	}
	for _, f := range []string{"", FrameEstimator, FrameGeodetic} {
		if _, err := NewEncoder(f); err == nil {
			t.Errorf("NewEncoder(%q) accepted", f)
		}
	}
	// A header the decoder refuses: nanoseconds of a whole second.
	_, data, err := enc.Encode(Sample{Stream: StreamVelocity, StampNs: 7})
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[8:], 1e9)
	if _, _, err := DecodeGhost(StreamVelocity, bad); !errors.Is(err, ErrSample) {
		t.Errorf("nanosec 1e9 decoded: %v", err)
	}
	binary.LittleEndian.PutUint32(bad[4:], 0x80000000)
	binary.LittleEndian.PutUint32(bad[8:], 0)
	if _, _, err := DecodeGhost(StreamVelocity, bad); !errors.Is(err, ErrSample) {
		t.Errorf("negative sec decoded: %v", err)
	}
	if _, _, err := DecodeGhost(StreamVelocity, data[:len(data)-1]); err == nil {
		t.Error("a short message decoded")
	}
}

func TestGhostReset(t *testing.T) {
	enc, err := NewEncoder(FramePX4)
	if err != nil {
		t.Fatal(err)
	}
	r := Reset{StampNs: 9_000_000_123, Delta: [3]float64{0.25, -1.5, 0}}
	topic, data, err := enc.EncodeReset(r)
	if err != nil {
		t.Fatal(err)
	}
	if topic != TopicEstimatorReset {
		t.Errorf("topic %s", topic)
	}
	got, err := DecodeGhostReset(data)
	if err != nil || got != r {
		t.Errorf("decoded %+v, %v; want %+v", got, err, r)
	}
	// A truth sample is not a reset: its frame says so.
	_, data, err = enc.Encode(Sample{Stream: StreamVelocity, StampNs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeGhostReset(data); !errors.Is(err, ErrSample) {
		t.Errorf("a velocity decoded as a reset: %v", err)
	}
	if _, _, err := enc.EncodeReset(Reset{StampNs: 1, Delta: [3]float64{math.NaN(), 0, 0}}); !errors.Is(err, ErrSample) {
		t.Errorf("a NaN reset encoded: %v", err)
	}
}

// TestGhostOrigin: the estimator's origin goes out and comes back with its
// undeclared halves NaN; a message in another frame is not an origin.
func TestGhostOrigin(t *testing.T) {
	enc, err := NewEncoder(FramePX4)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, o := range []Origin{
		{StampNs: 824_000_000, Lat: 45.4671187, Lon: -73.7578382, Alt: 33.759},
		{StampNs: 1, Lat: nan, Lon: nan, Alt: 488},
		{StampNs: 2, Lat: 47.39, Lon: 8.54, Alt: nan},
	} {
		topic, data, err := enc.EncodeOrigin(o)
		if err != nil || topic != TopicEstimatorOrigin {
			t.Fatalf("EncodeOrigin(%+v) = %s, %v", o, topic, err)
		}
		got, err := DecodeGhostOrigin(data)
		if err != nil || got.StampNs != o.StampNs || !got.Same(o) {
			t.Errorf("decoded %+v, %v; want %+v", got, err, o)
		}
	}
	for _, o := range []Origin{{StampNs: -1}, {Lat: 95, Lon: 0, Alt: 0}, {Lat: 1, Lon: nan, Alt: 0}, {Lat: 1, Lon: 2, Alt: math.Inf(1)}} {
		if _, _, err := enc.EncodeOrigin(o); !errors.Is(err, ErrSample) {
			t.Errorf("EncodeOrigin(%+v) = %v, want ErrSample", o, err)
		}
	}
	_, data, err := enc.Encode(Sample{Stream: StreamPosition, StampNs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeGhostOrigin(data); !errors.Is(err, ErrSample) {
		t.Errorf("a position decoded as an origin: %v", err)
	}
	if _, _, err := DecodeGhost(StreamGlobal, data); !errors.Is(err, ErrSample) {
		t.Errorf("a position in %s decoded as a global position: %v", FramePX4, err)
	}
}
