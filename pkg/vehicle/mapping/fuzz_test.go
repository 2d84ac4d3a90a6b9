package mapping

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// byteSource turns fuzz bytes into input fields; past the end it reads zeros.
type byteSource struct{ b []byte }

func (s *byteSource) take(n int) []byte {
	out := make([]byte, n)
	k := copy(out, s.b)
	s.b = s.b[k:]
	return out
}
func (s *byteSource) u8() uint8   { return s.take(1)[0] }
func (s *byteSource) bit() bool   { return s.u8()&1 == 1 }
func (s *byteSource) u64() uint64 { return binary.LittleEndian.Uint64(s.take(8)) }
func (s *byteSource) f32() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(s.take(4)))
}
func (s *byteSource) f64() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(s.take(8)))
}
func (s *byteSource) v32() [3]float32 {
	return [3]float32{s.f32(), s.f32(), s.f32()}
}

// seedBytes encodes values in the byteSource layout.
func seedBytes(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		switch x := v.(type) {
		case uint8:
			b = append(b, x)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, x)
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		case float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// FuzzMapping drives a Tracker with fuzzed numeric inputs of every kind.
// Invariants: no panic; every accepted sample is a valid belief whose
// stamps strictly increase, whose quaternion is unit with w >= 0, whose
// covariance diagonal is a usable variance or NaN with bias axes NaN, and
// which decisions.Assess accepts; every rejection is a counted *RejectError.
func FuzzMapping(f *testing.F) {
	f.Add([]byte{})
	good := seedBytes(uint8(0), uint64(1000), uint64(1000), uint8(1),
		float32(1), float32(2), float32(3), float32(1), float32(0), float32(0), float32(0),
		uint8(1), float32(0.5), float32(0), float32(0), float32(0.1), float32(0.1), float32(0.1),
		float32(0.01), float32(0.01), float32(0.04), float32(0.0001), float32(0.0001), float32(0.0004),
		float32(0.01), float32(0.01), float32(0.01))
	f.Add(good)
	f.Add(append(append([]byte{}, good...), good...))
	f.Add(seedBytes(uint8(1), uint64(5), uint64(0), uint8(0xff), float32(1), float32(2), float32(-3),
		float32(0.2), float32(0.1), float32(0), float32(0), float32(0.3), float32(0.4), float32(0.1), float32(0.1),
		float32(0.01), float32(0.01)))
	f.Add(seedBytes(uint8(2), uint64(7), float64(1), float64(2), float64(3),
		float64(0), float64(0), float64(0), float64(1)))
	f.Add(seedBytes(uint8(3), uint64(9), uint8(1), uint8(4), uint8(14), uint8(3), float32(12), float32(-1)))
	f.Add(seedBytes(uint8(0), uint64(1), uint64(0), uint8(3), float32(math.NaN()), float32(math.Inf(1))))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{b: data}
		var tr Tracker
		var last int64
		var rejected uint64
		haveLast := false
		for steps := 0; len(src.b) > 0 && steps < 64; steps++ {
			var s State
			var err error
			belief := false
			switch src.u8() % 7 {
			case 0:
				belief = true
				s, err = tr.PX4Odometry(PX4Odometry{
					Timestamp: src.u64(), TimestampSample: src.u64(), PoseFrame: src.u8(), Position: src.v32(),
					Q: [4]float32{src.f32(), src.f32(), src.f32(), src.f32()}, VelocityFrame: src.u8(), Velocity: src.v32(),
					AngularVelocity: src.v32(), PositionVariance: src.v32(), OrientationVariance: src.v32(), VelocityVariance: src.v32(),
				})
			case 1:
				belief = true
				s, err = tr.PX4LocalPosition(PX4LocalPosition{
					Timestamp: src.u64(), TimestampSample: src.u64(), XYValid: src.bit(), ZValid: src.bit(), VXYValid: src.bit(), VZValid: src.bit(),
					X: src.f32(), Y: src.f32(), Z: src.f32(), VX: src.f32(), VY: src.f32(), VZ: src.f32(),
					EPH: src.f32(), EPV: src.f32(), EVH: src.f32(), EVV: src.f32(),
					HasHeadingTiltVar: src.bit(), TiltVar: src.f32(), HeadingVar: src.f32(),
				})
			case 2:
				belief = true
				o := Odometry{StampNs: int64(src.u64()), FrameID: "map", ChildFrameID: "base_link",
					Position:    Vector3{src.f64(), src.f64(), src.f64()},
					Orientation: Quaternion{X: src.f64(), Y: src.f64(), Z: src.f64(), W: src.f64()},
					Linear:      Vector3{src.f64(), src.f64(), src.f64()}, Angular: Vector3{src.f64(), src.f64(), src.f64()}}
				for i := range o.PoseCovariance {
					o.PoseCovariance[i] = src.f64()
				}
				for i := range o.TwistCovariance {
					o.TwistCovariance[i] = src.f64()
				}
				s, err = tr.Odometry(&o)
			case 3:
				err = tr.SetPX4Status(PX4Status{Timestamp: src.u64(), ArmingState: src.u8(), NavState: src.u8(), Armed: src.bit()})
			case 4:
				err = tr.SetPX4Battery(PX4Battery{Timestamp: src.u64(), Connected: src.bit(), VoltageV: src.f32(), Remaining: src.f32(), Warning: src.u8()})
			case 5:
				err = tr.SetBattery(BatteryState{StampNs: int64(src.u64()), Voltage: src.f32(), Percentage: src.f32(), Present: src.bit()})
			case 6:
				err = tr.SetPX4Attitude(PX4Attitude{Timestamp: src.u64(), TimestampSample: src.u64(),
					Q: [4]float32{src.f32(), src.f32(), src.f32(), src.f32()}})
			}
			if err != nil {
				var re *RejectError
				if !errors.As(err, &re) || re.Reason >= NumReasons || !errors.Is(err, ErrRejected) {
					t.Fatalf("error %v is not a counted rejection", err)
				}
				rejected++
				continue
			}
			if f := tr.Flight(); f.Validate() != nil {
				t.Fatalf("flight status %+v invalid", f)
			}
			if !belief {
				continue
			}
			checkState(t, &s)
			if haveLast && s.StampNs <= last {
				t.Fatalf("stamp %d accepted after %d", s.StampNs, last)
			}
			haveLast, last = true, s.StampNs
		}
		if c := tr.Counters(); c.RejectedTotal() != rejected {
			t.Fatalf("counted %d rejections, saw %d", c.RejectedTotal(), rejected)
		}
	})
}

func checkState(t *testing.T, s *State) {
	t.Helper()
	b := s.Belief()
	if err := b.Validate(); err != nil {
		t.Fatalf("accepted belief invalid: %v", err)
	}
	if s.StampNs <= 0 {
		t.Fatalf("stamp %d", s.StampNs)
	}
	if q := s.OrientationQ; q[0] < 0 || math.Abs(q[0]*q[0]+q[1]*q[1]+q[2]*q[2]+q[3]*q[3]-1) > 1e-12 {
		t.Fatalf("quaternion %v", q)
	}
	for i := 0; i < 15; i++ {
		d := s.Covariance[i*15+i]
		if i >= 9 && !math.IsNaN(d) {
			t.Fatalf("bias variance %d = %v", i, d)
		}
		if !math.IsNaN(d) && !(d >= 0 && !math.IsInf(d, 0)) {
			t.Fatalf("variance %d = %v", i, d)
		}
	}
	for _, v := range [][3]float64{s.PositionENU, s.VelocityENU, s.VelocityFLU, s.AngularVelocityENU, s.AngularVelocityFLU} {
		for _, x := range v {
			if math.IsInf(x, 0) {
				t.Fatalf("infinite value in %v", v)
			}
		}
	}
	if _, err := Assess(s, thresholds); err != nil {
		t.Fatalf("Assess: %v", err)
	}
}
