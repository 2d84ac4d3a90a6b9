package mapping

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// Bad estimator samples: each is rejected with its reason, naming the field.
func TestRejectedSamples(t *testing.T) {
	nanf := float32(math.NaN())
	tests := []struct {
		name   string
		run    func(*Tracker) error
		reason Reason
		field  string
	}{
		{"PX4 q[0] NaN (invalid)", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.Q = [4]float32{nanf, 0, 0, 0}
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonQuaternion, "q"},
		{"PX4 q zero norm", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.Q = [4]float32{}
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonQuaternion, "q"},
		{"PX4 q infinite", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.Q[2] = float32(math.Inf(-1))
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonQuaternion, "q"},
		{"PX4 q norm 2", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.Q = [4]float32{2, 0, 0, 0}
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonQuaternion, "q"},
		{"PX4 no sample time", func(tr *Tracker) error {
			o := px4Odom(0)
			o.Timestamp = 0
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonStampInvalid, "timestamp_sample"},
		{"PX4 stamp beyond int64 ns", func(tr *Tracker) error {
			_, err := tr.PX4Odometry(px4Odom(math.MaxUint64 / 2))
			return err
		}, ReasonStampInvalid, "timestamp_sample"},
		{"PX4 pose frame unknown", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.PoseFrame = PoseFrameUnknown
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonFrame, "pose_frame"},
		{"PX4 pose frame out of range", func(tr *Tracker) error {
			o := px4Odom(1000)
			o.PoseFrame = 9
			_, err := tr.PX4Odometry(o)
			return err
		}, ReasonFrame, "pose_frame"},
		{"local position before any attitude", func(tr *Tracker) error {
			_, err := tr.PX4LocalPosition(localPos(1000))
			return err
		}, ReasonNoAttitude, "timestamp"},
		{"attitude q zero", func(tr *Tracker) error {
			return tr.SetPX4Attitude(PX4Attitude{Timestamp: 5})
		}, ReasonQuaternion, "q"},
		{"Odometry stamp 0 (unset header)", func(tr *Tracker) error {
			o := navOdom(0)
			_, err := tr.Odometry(&o)
			return err
		}, ReasonStampInvalid, "header.stamp"},
		{"Odometry negative stamp", func(tr *Tracker) error {
			o := navOdom(-5)
			_, err := tr.Odometry(&o)
			return err
		}, ReasonStampInvalid, "header.stamp"},
		{"Odometry quaternion zero", func(tr *Tracker) error {
			o := navOdom(5)
			o.Orientation = Quaternion{}
			_, err := tr.Odometry(&o)
			return err
		}, ReasonQuaternion, "pose.pose.orientation"},
		{"Odometry quaternion NaN", func(tr *Tracker) error {
			o := navOdom(5)
			o.Orientation.X = math.NaN()
			_, err := tr.Odometry(&o)
			return err
		}, ReasonQuaternion, "pose.pose.orientation"},
		{"Odometry NED frame", func(tr *Tracker) error {
			o := navOdom(5)
			o.FrameID = "odom_ned"
			_, err := tr.Odometry(&o)
			return err
		}, ReasonFrame, "header.frame_id"},
		{"Odometry FRD child frame", func(tr *Tracker) error {
			o := navOdom(5)
			o.ChildFrameID = "base_link_frd"
			_, err := tr.Odometry(&o)
			return err
		}, ReasonFrame, "child_frame_id"},
		{"flight status the belief refuses", func(*Tracker) error {
			f := NoFlightStatus()
			f.Mode = 42
			_, err := MapPX4Odometry(px4Odom(1000), f)
			return err
		}, ReasonBelief, "belief"},
		{"PX4 status older than the one held", func(tr *Tracker) error {
			if err := tr.SetPX4Status(PX4Status{Timestamp: 10}); err != nil {
				return err
			}
			return tr.SetPX4Status(PX4Status{Timestamp: 9, Armed: true})
		}, ReasonStale, "timestamp"},
		{"battery older than the one held", func(tr *Tracker) error {
			if err := tr.SetBattery(BatteryState{StampNs: 10}); err != nil {
				return err
			}
			return tr.SetBattery(BatteryState{StampNs: 9})
		}, ReasonStale, "header.stamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr Tracker
			before := tr.Flight()
			err := tc.run(&tr)
			if err == nil {
				t.Fatal("accepted")
			}
			var re *RejectError
			if !errors.As(err, &re) || !errors.Is(err, ErrRejected) || !errors.Is(err, reasonErrs[tc.reason]) {
				t.Fatalf("%v: want a *RejectError matching ErrRejected and %v", err, reasonErrs[tc.reason])
			}
			if re.Reason != tc.reason || re.Field != tc.field {
				t.Errorf("reason %v field %q, want %v %q (%v)", re.Reason, re.Field, tc.reason, tc.field, err)
			}
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), re.Topic+"."+re.Field+" = ") {
				t.Errorf("message %q", err)
			}
			if tc.reason == ReasonBelief {
				if !errors.Is(err, decisions.ErrInvalid) {
					t.Errorf("%v does not unwrap to the belief's validation error", err)
				}
				return
			}
			if c := tr.Counters(); c.Rejected[tc.reason] != 1 || c.Beliefs != 0 || c.RejectedTotal() != 1 {
				t.Errorf("counters %+v", c)
			}
			if tc.reason != ReasonStale && !sameFlight(tr.Flight(), before) {
				t.Errorf("a rejection changed the flight status: %+v", tr.Flight())
			}
		})
	}
}

func sameFlight(a, b decisions.FlightStatus) bool {
	return a.Armed == b.Armed && a.Mode == b.Mode && a.ErrorFlags == b.ErrorFlags &&
		math.Float64bits(a.BatteryV) == math.Float64bits(b.BatteryV) &&
		math.Float64bits(a.BatteryPct) == math.Float64bits(b.BatteryPct)
}

// Stamps must strictly increase; a rejected sample leaves the last stamp
// where it was, so it never poisons what follows.
func TestStampOrder(t *testing.T) {
	var tr Tracker
	steps := []struct {
		stampUs uint64
		badQ    bool
		ok      bool
		reason  Reason
	}{
		{1000, false, true, 0},
		{1000, false, false, ReasonStampNotIncreasing}, // repeat
		{999, false, false, ReasonStampNotIncreasing},  // backwards
		{2000, true, false, ReasonQuaternion},          // bad, must not advance the stamp
		{1500, false, true, 0},                         // still accepted after the bad 2000
		{2000, false, true, 0},
	}
	for i, st := range steps {
		o := px4Odom(st.stampUs)
		if st.badQ {
			o.Q = [4]float32{}
		}
		s, err := tr.PX4Odometry(o)
		if st.ok {
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if s.StampNs != int64(st.stampUs)*1000 {
				t.Errorf("step %d: stamp %d ns, want %d µs * 1000", i, s.StampNs, st.stampUs)
			}
			continue
		}
		var re *RejectError
		if !errors.As(err, &re) || re.Reason != st.reason {
			t.Fatalf("step %d: %v, want reason %v", i, err, st.reason)
		}
	}
	c := tr.Counters()
	if c.Beliefs != 3 || c.Rejected[ReasonStampNotIncreasing] != 2 || c.Rejected[ReasonQuaternion] != 1 {
		t.Errorf("counters %+v", c)
	}
}

// timestamp_sample is the stamp; releases without it fall back to timestamp.
func TestStampSource(t *testing.T) {
	o := px4Odom(7)
	o.Timestamp = 9
	s, err := MapPX4Odometry(o, NoFlightStatus())
	if err != nil || s.StampNs != 7000 {
		t.Fatalf("stamp %d (%v), want 7000 from timestamp_sample", s.StampNs, err)
	}
	p := localPos(0)
	p.Timestamp = 11
	s, err = MapPX4LocalPosition(p, PX4Attitude{Q: [4]float32{1, 0, 0, 0}}, NoFlightStatus())
	if err != nil || s.StampNs != 11000 {
		t.Fatalf("stamp %d (%v), want 11000 from timestamp", s.StampNs, err)
	}
}

func TestQuaternionNormalized(t *testing.T) {
	o := px4Odom(1000)
	o.Q = [4]float32{1.005, 0, 0, 0} // within the 1% tolerance
	s, err := MapPX4Odometry(o, NoFlightStatus())
	if err != nil {
		t.Fatal(err)
	}
	if q := s.OrientationQ; !near4(q, [4]float64{s45, 0, 0, s45}) {
		t.Errorf("q %v, want the normalized yaw 90", q)
	}
	o.Q = [4]float32{1.02, 0, 0, 0}
	if _, err := MapPX4Odometry(o, NoFlightStatus()); !errors.Is(err, ErrQuaternion) {
		t.Errorf("norm 1.02: %v, want ErrQuaternion", err)
	}
}

func TestNavStateTable(t *testing.T) {
	want := map[uint8]decisions.FlightMode{
		0: decisions.FlightModeManual, 10: decisions.FlightModeManual,
		1: decisions.FlightModeStabilize, 2: decisions.FlightModeStabilize, 6: decisions.FlightModeStabilize, 15: decisions.FlightModeStabilize,
		14: decisions.FlightModeOffboard,
		5:  decisions.FlightModeRTL,
		12: decisions.FlightModeLand, 18: decisions.FlightModeLand, 20: decisions.FlightModeLand,
		13: decisions.FlightModeKill,
	}
	for n := 0; n < 256; n++ {
		mode, ok := ModeFromNavState(uint8(n))
		w, mapped := want[uint8(n)]
		if ok != mapped || (mapped && mode != w) || (!mapped && mode != decisions.FlightModeInit) {
			t.Errorf("nav_state %d: %v %v, want %v %v", n, mode, ok, w, mapped)
		}
	}
}

func TestFlightStatus(t *testing.T) {
	var tr Tracker
	f := tr.Flight()
	if f.Armed || f.Mode != decisions.FlightModeInit || f.ErrorFlags != FlagNoStatus || !math.IsNaN(f.BatteryV) || !math.IsNaN(f.BatteryPct) {
		t.Fatalf("before any status: %+v", f)
	}
	// Attached to the beliefs of every source.
	o := navOdom(5)
	s, err := tr.Odometry(&o)
	if err != nil || s.Flight.ErrorFlags != FlagNoStatus || s.Mission.StartedSimNs != -1 || s.Mission.Goal != nil {
		t.Fatalf("%v: flight %+v mission %+v", err, s.Flight, s.Mission)
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tr.SetPX4Status(PX4Status{Timestamp: 10, ArmingState: 2, NavState: px4.NavStateAutoRTL, Armed: true}))
	must(tr.SetPX4Battery(PX4Battery{Timestamp: 10, Connected: true, VoltageV: 15.5, Remaining: 0.25, Warning: 1}))
	f = tr.Flight()
	if !f.Armed || f.Mode != decisions.FlightModeRTL || f.BatteryV != 15.5 || f.BatteryPct != 0.25 || f.ErrorFlags != 1<<8 {
		t.Errorf("after status and battery: %+v", f)
	}
	must(tr.SetPX4Status(PX4Status{Timestamp: 10, NavState: px4.NavStateAutoLoiter, Armed: true})) // same stamp replaces
	if f = tr.Flight(); f.Mode != decisions.FlightModeInit || f.ErrorFlags != FlagModeUnmapped|1<<8 {
		t.Errorf("loiter: %+v", f)
	}

	batteries := []struct {
		name   string
		b      PX4Battery
		v, pct float64
	}{
		{"remaining -1 unknown", PX4Battery{Connected: true, VoltageV: 12, Remaining: -1}, 12, math.NaN()},
		{"remaining above 1 unknown (not clamped)", PX4Battery{Connected: true, VoltageV: 12, Remaining: 87}, 12, math.NaN()},
		{"remaining NaN", PX4Battery{Connected: true, VoltageV: 12, Remaining: float32(math.NaN())}, 12, math.NaN()},
		{"voltage 0 unknown", PX4Battery{Connected: true, Remaining: 0.5}, math.NaN(), 0.5},
		{"voltage negative unknown", PX4Battery{Connected: true, VoltageV: -3, Remaining: 0}, math.NaN(), 0},
		{"disconnected", PX4Battery{VoltageV: 12, Remaining: 0.5}, math.NaN(), math.NaN()},
	}
	for _, tc := range batteries {
		tc.b.Timestamp = 20
		must(tr.SetPX4Battery(tc.b))
		f := tr.Flight()
		if !sameNum(f.BatteryV, tc.v) || !sameNum(f.BatteryPct, tc.pct) {
			t.Errorf("%s: V %v pct %v, want %v %v", tc.name, f.BatteryV, f.BatteryPct, tc.v, tc.pct)
		}
		if err := f.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	ros := []struct {
		b      BatteryState
		v, pct float64
	}{
		{BatteryState{StampNs: 30000, Present: true, Voltage: 16, Percentage: 0.75}, 16, 0.75},
		{BatteryState{StampNs: 31000, Present: true, Voltage: 16, Percentage: float32(math.NaN())}, 16, math.NaN()},
		{BatteryState{StampNs: 32000, Present: true, Voltage: float32(math.Inf(1)), Percentage: 75}, math.NaN(), math.NaN()},
		{BatteryState{StampNs: 33000, Voltage: 16, Percentage: 0.5}, math.NaN(), math.NaN()},
	}
	for i, tc := range ros {
		must(tr.SetBattery(tc.b))
		if f := tr.Flight(); !sameNum(f.BatteryV, tc.v) || !sameNum(f.BatteryPct, tc.pct) || f.ErrorFlags&FlagBatteryWarningMask != 0 {
			t.Errorf("ROS battery %d: %+v, want V %v pct %v", i, f, tc.v, tc.pct)
		}
	}
}

func sameNum(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestLocalPositionUsesLatestAttitude(t *testing.T) {
	var tr Tracker
	if err := tr.SetPX4Attitude(PX4Attitude{TimestampSample: 900, Q: [4]float32{1, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	// A bad attitude is rejected and the previous one kept.
	if err := tr.SetPX4Attitude(PX4Attitude{TimestampSample: 950, Q: [4]float32{float32(math.NaN()), 0, 0, 0}}); !errors.Is(err, ErrQuaternion) {
		t.Fatalf("NaN attitude: %v", err)
	}
	s, err := tr.PX4LocalPosition(localPos(1000))
	if err != nil {
		t.Fatal(err)
	}
	if !near4(s.OrientationQ, [4]float64{s45, 0, 0, s45}) {
		t.Errorf("q %v, want heading north (yaw 90 ENU)", s.OrientationQ)
	}
	if err := tr.SetPX4Attitude(PX4Attitude{TimestampSample: 899, Q: [4]float32{1, 0, 0, 0}}); !errors.Is(err, ErrStale) {
		t.Errorf("older attitude: %v, want ErrStale", err)
	}
	if err := tr.SetPX4Attitude(PX4Attitude{TimestampSample: 1100, Q: [4]float32{float32(s45), 0, 0, float32(s45)}}); err != nil {
		t.Fatal(err)
	}
	s, err = tr.PX4LocalPosition(localPos(1200))
	if err != nil {
		t.Fatal(err)
	}
	if !near4(s.OrientationQ, [4]float64{1, 0, 0, 0}) {
		t.Errorf("q %v, want heading east (identity ENU)", s.OrientationQ)
	}
	if s.PositionENU != [3]float64{2, 1, 3} || !math.IsNaN(s.AngularVelocityENU[0]) {
		t.Errorf("position %v angular %v", s.PositionENU, s.AngularVelocityENU)
	}
}

func TestErrorValueCapped(t *testing.T) {
	o := navOdom(5)
	o.FrameID = strings.Repeat("é", 200) + "_ned"
	_, err := MapOdometry(&o, NoFlightStatus())
	var re *RejectError
	if !errors.As(err, &re) || len(re.Value) > maxValueLen+3 || !strings.HasSuffix(re.Value, "...") || !utf8.ValidString(re.Value) {
		t.Fatalf("%v", err)
	}
	if !strings.HasPrefix(err.Error(), `nav_msgs/Odometry.header.frame_id = "é`) {
		t.Errorf("message %q", err)
	}
	if r := Reason(200).String(); r != "reason(200)" || ReasonStale.String() != "stale" {
		t.Errorf("reason names %q %q", r, ReasonStale)
	}
}
