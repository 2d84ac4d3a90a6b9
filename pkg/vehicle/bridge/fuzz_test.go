package bridge

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// checkMapped checks what a source's Handle gave for one payload: nothing
// with an error (what was refused publishes nothing), else nothing or a
// belief and its assessment, the belief valid and the assessment exactly the
// one Assess makes of it.
func checkMapped(t *testing.T, what string, out []Message, err error) {
	t.Helper()
	switch {
	case err != nil && len(out) != 0:
		t.Fatalf("%s: %d messages with the error %v", what, len(out), err)
	case err != nil || len(out) == 0:
		return
	case len(out) != 2:
		t.Fatalf("%s: %d messages, want a belief and its assessment", what, len(out))
	}
	var vs ros2msg.VehicleState
	if err := vs.UnmarshalCDR(out[0].Data); err != nil {
		t.Fatalf("%s: the belief does not decode: %v", what, err)
	}
	b, err := ros2msg.BeliefFromWire(&vs)
	if err != nil {
		t.Fatalf("%s: the belief: %v", what, err)
	}
	if err := b.Validate(); err != nil {
		t.Fatalf("%s: an invalid belief was published: %v", what, err)
	}
	var sa ros2msg.BeliefSelfAssessment
	if err := sa.UnmarshalCDR(out[1].Data); err != nil {
		t.Fatalf("%s: the assessment does not decode: %v", what, err)
	}
	a := ros2msg.SelfAssessmentFromWire(&sa)
	want, err := decisions.Assess(b.StampSimNs, b.Covariance, testThresholds)
	if err != nil || !want.Equal(&a) {
		t.Fatalf("%s: the assessment is not the belief's (%v)", what, err)
	}
}

// px4Sample encodes a plausible sample of a PX4 message: the fields it
// lacks are left out.
func px4Sample(tb testing.TB, defs *px4.Definitions, name string) []byte {
	return encode(tb, defs, name, func(w *dynamic.Writer) error {
		for k, v := range map[string]float64{"q[0]": 1, "remaining": 0.5, "voltage_v": 15} {
			_ = w.SetFloat(k, v)
		}
		for k, v := range map[string]uint64{"timestamp": 10, "timestamp_sample": 9, "arming_state": 2, "nav_state": 14, "pose_frame": 1, "velocity_frame": 1} {
			_ = w.SetUint(k, v)
		}
		for _, k := range []string{"xy_valid", "z_valid", "v_xy_valid", "v_z_valid", "connected"} {
			_ = w.SetBool(k, true)
		}
		return nil
	})
}

// FuzzPX4Handle feeds one arbitrary payload to every topic of a PX4
// source, for every release and both position sources, as a vehicle's
// uXRCE-DDS bridge could deliver it, after a plausible sample of every
// topic (so that an estimator payload can make a belief): each is mapped or
// refused with an error, never a panic (see checkMapped).
func FuzzPX4Handle(f *testing.F) {
	type source struct {
		defs    *px4.Definitions
		pos     string
		samples map[string][]byte // by message name
	}
	var sources []source
	for _, rel := range px4.Releases() {
		defs := px4Defs(f, rel)
		samples := map[string][]byte{}
		for _, name := range []string{px4.MsgVehicleOdometry, px4.MsgVehicleLocalPosition, px4.MsgVehicleAttitude, px4.MsgVehicleStatus, px4.MsgBatteryStatus,
			px4.MsgSensorGps, px4.MsgEstimatorStatusFlags, px4.MsgFailsafeFlags} {
			samples["px4_msgs/msg/"+name] = px4Sample(f, defs, name)
			f.Add(samples["px4_msgs/msg/"+name])
		}
		for _, pos := range []string{PositionOdometry, PositionLocalPosition} {
			sources = append(sources, source{defs, pos, samples})
		}
	}
	f.Add([]byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range sources {
			src, err := NewPX4(newBridge(t), PX4Options{Definitions: s.defs, Position: s.pos})
			if err != nil {
				t.Fatal(err)
			}
			subs := src.Subscriptions()
			for _, sub := range subs {
				out, err := src.Handle(sub.Topic, s.samples[sub.Type], 0)
				checkMapped(t, "a sample on "+sub.Topic, out, err)
			}
			for _, sub := range subs {
				out, err := src.Handle(sub.Topic, data, 0)
				checkMapped(t, string(s.defs.Release())+" "+s.pos+" "+sub.Topic, out, err)
			}
		}
	})
}

// FuzzOdometryHandle is FuzzPX4Handle for the nav_msgs/Odometry source:
// the battery topic, then the odometry topic, of a fresh source.
func FuzzOdometryHandle(f *testing.F) {
	defs := odometryDefs(f)
	f.Add(odometryCDR(2, 0.0001))
	f.Add(odometryCDR(3, 0))
	f.Add([]byte{0, 1, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := NewOdometry(newBridge(t), defs, "/odom", "/battery")
		if err != nil {
			t.Fatal(err)
		}
		for _, topic := range []string{"/battery", "/odom"} {
			out, err := src.Handle(topic, data, 0)
			checkMapped(t, topic, out, err)
		}
	})
}
