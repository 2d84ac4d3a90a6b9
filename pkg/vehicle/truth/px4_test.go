package truth

import (
	"errors"
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

func lpTruth(stampUs int, x, y, z, vx, vy, vz float64) map[string]any {
	return map[string]any{"timestamp": stampUs + 500, "timestamp_sample": stampUs, "x": x, "y": y, "z": z,
		"vx": vx, "vy": vy, "vz": vz, "xy_valid": true, "z_valid": true, "v_xy_valid": true, "v_z_valid": true}
}

// px4Recording is a recording's channels with PX4's truth (and the
// estimator's local position) below ns.
func px4Recording(t testing.TB, d *px4.Definitions, ns string) []bag.Channel {
	return []bag.Channel{
		px4Channel(t, d, 1, ns+PX4TopicLocalPositionTruth, px4.MsgVehicleLocalPosition),
		px4Channel(t, d, 2, ns+PX4TopicAttitudeTruth, px4.MsgVehicleAttitude),
		px4Channel(t, d, 3, ns+PX4TopicLocalPosition, px4.MsgVehicleLocalPosition),
	}
}

func TestPX4Form(t *testing.T) {
	for _, rel := range px4.Releases() {
		t.Run(string(rel), func(t *testing.T) {
			d := defs(t, rel)
			chans := px4Recording(t, d, "/uav_1")
			rec, err := Find(chans, "")
			if err != nil {
				t.Fatal(err)
			}
			if rec.Form != FormPX4 || rec.Topics[StreamPosition] != "/uav_1"+PX4TopicLocalPositionTruth ||
				rec.Topics[StreamVelocity] != rec.Topics[StreamPosition] || rec.Topics[StreamAttitude] != "/uav_1"+PX4TopicAttitudeTruth ||
				rec.ResetTopic != "/uav_1"+PX4TopicLocalPosition {
				t.Fatalf("Find = %+v", rec)
			}
			dec, err := NewDecoder(rec, chans)
			if err != nil {
				t.Fatal(err)
			}
			var out Decoded
			// NED (1, 2, -3) is ENU (2, 1, 3).
			ok, err := dec.Decode(rec.Topics[StreamPosition], px4Payload(t, d, px4.MsgVehicleLocalPosition, lpTruth(1000, 1, 2, -3, 0.5, -0.25, 1)), &out)
			if !ok || err != nil || out.N != 2 {
				t.Fatalf("position: %v %v %+v", ok, err, out)
			}
			if p := out.Samples[0]; p.Stream != StreamPosition || p.StampNs != 1_000_000 || p.Value != [3]float64{2, 1, 3} {
				t.Errorf("position %+v", p)
			}
			if v := out.Samples[1]; v.Stream != StreamVelocity || v.Value != [3]float64{-0.25, 0.5, -1} {
				t.Errorf("velocity %+v", v)
			}
			// A known ENU attitude, written as PX4 would.
			enu := [4]float64{math.Cos(0.3), 0.1, -0.2, math.Sin(0.3)}
			n := math.Sqrt(enu[0]*enu[0] + enu[1]*enu[1] + enu[2]*enu[2] + enu[3]*enu[3])
			for i := range enu {
				enu[i] /= n
			}
			ned := nedFromENU(enu)
			att := map[string]any{"timestamp": 2000, "q[0]": ned[0], "q[1]": ned[1], "q[2]": ned[2], "q[3]": ned[3]}
			ok, err = dec.Decode(rec.Topics[StreamAttitude], px4Payload(t, d, px4.MsgVehicleAttitude, att), &out)
			if !ok || err != nil || out.N != 1 {
				t.Fatalf("attitude: %v %v %+v", ok, err, out)
			}
			if a := out.Samples[0]; a.StampNs != 2_000_000 || !sameRotation(a.Q, enu, 1e-6) {
				t.Errorf("attitude %+v, want %v", a, enu)
			}
			// Not a truth topic.
			if ok, err := dec.Decode("/uav_1/fmu/out/vehicle_status", nil, &out); ok || err != nil {
				t.Errorf("vehicle_status: %v %v", ok, err)
			}
		})
	}
}

func TestPX4Resets(t *testing.T) {
	d := defs(t, px4.Release115)
	dec := px4Decoder(t, d)
	type step struct {
		xy, z     int
		dxy       [2]float64
		dz        float64
		wantReset bool
		want      [3]float64 // ENU
	}
	steps := []step{
		{xy: 3, z: 1, dxy: [2]float64{9, 9}, dz: 9},                                                    // first sample: counters only
		{xy: 3, z: 1, dxy: [2]float64{9, 9}, dz: 9},                                                    // unchanged: deltas are stale
		{xy: 4, z: 1, dxy: [2]float64{1.5, -2}, dz: 7, wantReset: true, want: [3]float64{-2, 1.5, 0}},  // xy only
		{xy: 4, z: 2, dxy: [2]float64{5, 5}, dz: -0.75, wantReset: true, want: [3]float64{0, 0, 0.75}}, // z only
		{xy: 0, z: 2, dxy: [2]float64{1, 1}, dz: 0, wantReset: true, want: [3]float64{1, 1, 0}},        // wraps 4 -> 0: 251 lost
	}
	for i, s := range steps {
		lp := map[string]any{"timestamp_sample": 1000 * (i + 1), "timestamp": 1000 * (i + 1), "xy_reset_counter": s.xy, "z_reset_counter": s.z,
			"delta_xy[0]": s.dxy[0], "delta_xy[1]": s.dxy[1], "delta_z": s.dz}
		var out Decoded
		ok, err := dec.Decode(PX4TopicLocalPosition, px4Payload(t, d, px4.MsgVehicleLocalPosition, lp), &out)
		if !ok || err != nil || out.N != 0 {
			t.Fatalf("step %d: %v %v %+v", i, ok, err, out)
		}
		if out.HasReset != s.wantReset || (s.wantReset && (out.Reset.Delta != s.want || out.Reset.StampNs != int64(1_000_000*(i+1)))) {
			t.Errorf("step %d: reset %v %+v, want %v %v", i, out.HasReset, out.Reset, s.wantReset, s.want)
		}
	}
	if dec.LostResets() != 251 {
		t.Errorf("lost resets %d, want 251", dec.LostResets())
	}
}

func TestPX4PositionTruthRejects(t *testing.T) {
	d := defs(t, px4.Release116)
	dec := px4Decoder(t, d)
	over := func(k string, v any) []byte {
		f := lpTruth(1000, 1, 2, 3, 0, 0, 0)
		f[k] = v
		return px4Payload(t, d, px4.MsgVehicleLocalPosition, f)
	}
	var out Decoded
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"no time", func() []byte {
			f := lpTruth(0, 1, 2, 3, 0, 0, 0)
			f["timestamp"] = 0
			return px4Payload(t, d, px4.MsgVehicleLocalPosition, f)
		}()},
		{"NaN x", over("x", math.NaN())},
		{"short", over("x", 1.0)[:20]},
	} {
		if _, err := dec.Decode(PX4TopicLocalPositionTruth, tc.data, &out); err == nil {
			t.Errorf("%s: decoded %+v", tc.name, out)
		}
	}
	// A velocity that is not finite leaves the position.
	ok, err := dec.Decode(PX4TopicLocalPositionTruth, over("vz", math.Inf(1)), &out)
	if !ok || err != nil || out.N != 1 || out.Partial == nil || out.Samples[0].Stream != StreamPosition {
		t.Errorf("infinite velocity: %v %v %+v", ok, err, out)
	}
	att := map[string]any{"timestamp": 2000, "q[0]": math.NaN()}
	if _, err := dec.Decode(PX4TopicAttitudeTruth, px4Payload(t, d, px4.MsgVehicleAttitude, att), &out); !errors.Is(err, ErrSample) {
		t.Errorf("NaN attitude: %v", err)
	}
}

// TestPX4TruthValidityFlags: the validity flags of a ground-truth topic
// are not read. Gazebo's bridge leaves all four false on every sample of
// its pose; SIH sets them true; either way a finite sample is the truth.
func TestPX4TruthValidityFlags(t *testing.T) {
	d := defs(t, px4.Release115)
	dec := px4Decoder(t, d)
	for _, tc := range []struct {
		name  string
		flags bool
	}{{"flags set (SIH)", true}, {"flags clear (Gazebo's bridge)", false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := lpTruth(1000, 1, 2, -3, 0.5, -0.25, 1)
			for _, k := range []string{"xy_valid", "z_valid", "v_xy_valid", "v_z_valid"} {
				f[k] = tc.flags
			}
			var out Decoded
			ok, err := dec.Decode(PX4TopicLocalPositionTruth, px4Payload(t, d, px4.MsgVehicleLocalPosition, f), &out)
			if !ok || err != nil || out.N != 2 || out.Partial != nil {
				t.Fatalf("%v %v %+v", ok, err, out)
			}
			if p, v := out.Samples[0], out.Samples[1]; p.Value != [3]float64{2, 1, 3} || v.Value != [3]float64{-0.25, 0.5, -1} {
				t.Errorf("position %+v, velocity %+v", p, v)
			}
		})
	}
}

func TestFind(t *testing.T) {
	d := defs(t, px4.Release114)
	ghost := ghostChannels(t, true)
	px := px4Recording(t, d, "")
	without := func(chans []bag.Channel, topic string) []bag.Channel {
		var out []bag.Channel
		for _, c := range chans {
			if c.Topic != topic {
				out = append(out, c)
			}
		}
		return out
	}
	other := []bag.Channel{{Topic: "/state/nav", SchemaName: "ghost/msg/VehicleState"}}
	global := ghostGlobalChannels(t, 10)
	pxGlobal := append(append([]bag.Channel{}, px...), px4GlobalChannel(t, 9, PX4TopicGlobalTruth))
	tests := []struct {
		name      string
		chans     []bag.Channel
		ns        string
		form      Form
		why       bool
		resets    bool
		errRecord bool
		global    bool
	}{
		{"ghost with the global position and the origin", append(append([]bag.Channel{}, ghost...), global...), "", FormGhost, false, true, false, true},
		{"ghost global position without the origin", append(append([]bag.Channel{}, ghost...), global[0]), "", FormGhost, false, true, false, false},
		{"ghost origin without the global position", append(append([]bag.Channel{}, ghost...), global[1]), "", FormGhost, false, true, false, false},
		{"ghost global position of another type", append(append([]bag.Channel{}, ghost...), bag.Channel{Topic: TopicGlobalPosition, SchemaName: TypeVector3Stamped}), "", FormNone, false, false, true, false},
		{"px4 with the global position", pxGlobal, "", FormPX4, false, true, false, true},
		{"px4 global position without the estimator", without(pxGlobal, PX4TopicLocalPosition), "", FormPX4, false, false, false, false},
		{"no truth", other, "", FormNone, false, false, false, false},
		{"ghost", append(append([]bag.Channel{}, other...), ghost...), "", FormGhost, false, true, false, false},
		{"ghost without resets", without(ghost, TopicEstimatorReset), "", FormGhost, false, false, false, false},
		{"ghost without velocity", without(ghost, TopicVelocity), "", FormGhost, false, true, false, false},
		{"ghost position alone", without(ghost, TopicAttitude), "", FormNone, true, false, false, false},
		{"ghost attitude alone", without(ghost, TopicPosition), "", FormNone, true, false, false, false},
		{"px4", px, "", FormPX4, false, true, false, false},
		{"px4 without the estimator", without(px, PX4TopicLocalPosition), "", FormPX4, false, false, false, false},
		{"px4 attitude alone", without(px, PX4TopicLocalPositionTruth), "", FormNone, true, false, false, false},
		{"px4 position alone", without(px, PX4TopicAttitudeTruth), "", FormNone, true, false, false, false},
		{"px4 in another namespace", px, "/uav_2", FormNone, false, false, false, false},
		{"px4 1.17, versioned topics", []bag.Channel{
			px4Channel(t, d, 1, PX4TopicLocalPositionTruth+"_v1", px4.MsgVehicleLocalPosition),
			px4Channel(t, d, 2, PX4TopicAttitudeTruth, px4.MsgVehicleAttitude),
			px4Channel(t, d, 3, PX4TopicLocalPosition+"_v1", px4.MsgVehicleLocalPosition),
		}, "", FormPX4, false, true, false, false},
		{"not a version suffix", []bag.Channel{
			px4Channel(t, d, 1, PX4TopicLocalPositionTruth+"_vx", px4.MsgVehicleLocalPosition),
			px4Channel(t, d, 2, PX4TopicAttitudeTruth, px4.MsgVehicleAttitude),
		}, "", FormNone, true, false, false, false},
		{"two vehicles", append(px4Recording(t, d, "/uav_1"), px4Recording(t, d, "/uav_2")...), "", FormNone, false, false, true, false},
		{"one of two vehicles", append(px4Recording(t, d, "/uav_1"), px4Recording(t, d, "/uav_2")...), "/uav_2", FormPX4, false, true, false, false},
		{"both forms", append(append([]bag.Channel{}, ghost...), px...), "", FormNone, false, false, true, false},
		{"truth topic of another type", []bag.Channel{{Topic: TopicPosition, SchemaName: "nav_msgs/msg/Odometry"}}, "", FormNone, false, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Find(tc.chans, tc.ns)
			if tc.errRecord {
				if !errors.Is(err, ErrRecording) {
					t.Fatalf("Find = %+v, %v; want ErrRecording", r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Form != tc.form || (r.Why != "") != tc.why || (r.ResetTopic != "") != tc.resets ||
				(r.Topics[StreamGlobal] != "") != tc.global || (r.OriginTopic != "") != tc.global {
				t.Errorf("Find = %+v; want form %v, why %v, resets %v, global %v", r, tc.form, tc.why, tc.resets, tc.global)
			}
		})
	}
}

func TestGhostDecoderFrames(t *testing.T) {
	dec := decoderOf(t, ghostChannels(t, true))
	sim, _ := NewEncoder(FrameSim)
	other, _ := NewEncoder(FramePX4)
	var out Decoded
	topic, data, _ := sim.Encode(Sample{Stream: StreamPosition, StampNs: 5, Value: [3]float64{1, 2, 3}})
	if ok, err := dec.Decode(topic, data, &out); !ok || err != nil || out.N != 1 || dec.Frame() != FrameSim {
		t.Fatalf("%v %v %+v %q", ok, err, out, dec.Frame())
	}
	topic, data, _ = other.Encode(Sample{Stream: StreamAttitude, StampNs: 6, Q: [4]float64{1, 0, 0, 0}})
	if _, err := dec.Decode(topic, data, &out); !errors.Is(err, ErrSample) {
		t.Errorf("a sample in another frame: %v", err)
	}
	topic, data, _ = sim.EncodeReset(Reset{StampNs: 7, Delta: [3]float64{0, 0, 1}})
	if ok, err := dec.Decode(topic, data, &out); !ok || err != nil || !out.HasReset || out.Reset.Delta[2] != 1 {
		t.Errorf("reset: %v %v %+v", ok, err, out)
	}
}

// TestGlobalDecoders: in both forms the global position comes out as
// latitude, longitude and altitude, and the estimator's origin when it is
// first declared and when it changes; the global position's frame does
// not count as the truth's frame.
func TestGlobalDecoders(t *testing.T) {
	d := defs(t, px4.Release115)
	nan := math.NaN()
	enc, err := NewEncoder(FramePX4)
	if err != nil {
		t.Fatal(err)
	}
	ghostMsg := func(s Sample) []byte {
		_, data, err := enc.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), data...)
	}
	ghostOrigin := func(o Origin) []byte {
		_, data, err := enc.EncodeOrigin(o)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), data...)
	}
	lp := func(us int, lat, lon, alt float64, xy, z bool) []byte {
		return px4Payload(t, d, px4.MsgVehicleLocalPosition, map[string]any{"timestamp": us, "timestamp_sample": us,
			"ref_lat": lat, "ref_lon": lon, "ref_alt": alt, "xy_global": xy, "z_global": z})
	}
	type msg struct {
		topic     string
		data      []byte
		global    *[3]float64
		origin    *Origin
		originErr bool
	}
	forms := []struct {
		name  string
		chans []bag.Channel
		msgs  []msg
		frame string
	}{
		{"ghost", append(ghostChannels(t, true), ghostGlobalChannels(t, 10)...), []msg{
			{TopicEstimatorOrigin, ghostOrigin(Origin{StampNs: 1000, Lat: nan, Lon: nan, Alt: 30.5}), nil, &Origin{StampNs: 1000, Lat: nan, Lon: nan, Alt: 30.5}, false},
			{TopicGlobalPosition, ghostMsg(Sample{Stream: StreamGlobal, StampNs: 2000, Value: [3]float64{45.5, -73.7, 31}}), &[3]float64{45.5, -73.7, 31}, nil, false},
			{TopicPosition, ghostMsg(Sample{Stream: StreamPosition, StampNs: 3000}), nil, nil, false},
		}, FramePX4},
		{"px4", append(px4Recording(t, d, ""), px4GlobalChannel(t, 9, PX4TopicGlobalTruth)), []msg{
			{PX4TopicLocalPosition, lp(1, nan, nan, nan, false, false), nil, nil, false},
			{PX4TopicLocalPosition, lp(2, 0, 0, 30.5, false, true), nil, &Origin{StampNs: 2000, Lat: nan, Lon: nan, Alt: 30.5}, false},
			{PX4TopicGlobalTruth, px4GlobalPayload(t, map[string]float64{"timestamp": 3, "lat": 45.5, "lon": -73.7, "alt": 31}), &[3]float64{45.5, -73.7, 31}, nil, false},
			{PX4TopicLocalPosition, lp(4, 45.4, -73.6, 30.5, true, true), nil, &Origin{StampNs: 4000, Lat: 45.4, Lon: -73.6, Alt: 30.5}, false},
			{PX4TopicLocalPosition, lp(5, 45.4, -73.6, 30.5, true, true), nil, nil, false},
			// An origin beyond the pole is refused; the sample's resets
			// are read all the same.
			{PX4TopicLocalPosition, lp(6, 95, -73.6, 30.5, true, true), nil, nil, true},
		}, ""},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			rec, err := Find(form.chans, "")
			if err != nil || rec.Topics[StreamGlobal] == "" || rec.OriginTopic == "" {
				t.Fatalf("Find = %+v, %v", rec, err)
			}
			dec, err := NewDecoder(rec, form.chans)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range form.msgs {
				var out Decoded
				ok, err := dec.Decode(m.topic, m.data, &out)
				if !ok || err != nil {
					t.Fatalf("message %d: %v %v", i, ok, err)
				}
				if m.global != nil && (out.N != 1 || out.Samples[0].Stream != StreamGlobal || out.Samples[0].Value != *m.global) {
					t.Errorf("message %d: %+v, want the global position %v", i, out, *m.global)
				}
				if out.HasOrigin != (m.origin != nil) || m.origin != nil && (out.Origin.StampNs != m.origin.StampNs || !out.Origin.Same(*m.origin)) {
					t.Errorf("message %d: origin %v %+v, want %+v", i, out.HasOrigin, out.Origin, m.origin)
				}
				if (out.OriginErr != nil) != m.originErr {
					t.Errorf("message %d: origin error %v", i, out.OriginErr)
				}
			}
			if dec.Frame() != form.frame {
				t.Errorf("frame %q, want %q", dec.Frame(), form.frame)
			}
		})
	}
}

// px4Decoder is the decoder of the ground truth found in a PX4 recording
// with defs d.
func px4Decoder(t *testing.T, d *px4.Definitions) *Decoder {
	t.Helper()
	return decoderOf(t, px4Recording(t, d, ""))
}

// decoderOf is the decoder of the ground truth found in chans.
func decoderOf(t *testing.T, chans []bag.Channel) *Decoder {
	t.Helper()
	rec, err := Find(chans, "")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(rec, chans)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}
