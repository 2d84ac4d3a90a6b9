package mapping

import (
	"errors"
	"testing"
)

// A PX4 stream whose time base changes under the node, as a live SITL run
// showed: boot time, then Unix time once the uXRCE-DDS time synchronisation
// converged, then boot time again after PX4 reset its synchroniser. Every
// sample must map to a belief whose stamp continues where the arrival clock
// places it, and status samples must keep flowing.
func TestPX4TimeBaseChanges(t *testing.T) {
	const (
		ms   = uint64(1000)           // µs
		unix = uint64(1796164224e6)   // µs: a Unix time in 2026
		boot = uint64(90_364_000_000) // ns of the "goes back" sample seen live
	)
	type sample struct {
		stampUs   uint64
		arrivalNs int64
		status    bool // a vehicle_status at stampUs instead of an estimator sample
		wantNs    int64
		reject    Reason // NumReasons: accepted
	}
	arr := func(msFromStart int64) int64 { return 1_700_000_000_000_000_000 + msFromStart*1_000_000 }
	tests := []struct {
		name    string
		samples []sample
		changes uint64
	}{
		{"boot, then Unix, then boot again", []sample{
			{30_000 * ms, arr(0), false, 30_000_000_000, NumReasons},
			{30_010 * ms, arr(10), false, 30_010_000_000, NumReasons},
			{30_015 * ms, arr(12), true, 0, NumReasons},
			// synchronised: PX4 stamps leap to Unix time; 10 ms of arrival
			{unix, arr(20), false, 30_020_000_000, NumReasons},
			{unix + 10*ms, arr(30), false, 30_030_000_000, NumReasons},
			{unix + 12*ms, arr(31), true, 0, NumReasons},
			// "time jump detected": back to boot time, 20 ms of arrival
			{boot / 1000, arr(50), false, 30_050_000_000, NumReasons},
			{boot/1000 + 10*ms, arr(60), false, 30_060_000_000, NumReasons},
			{boot/1000 + 15*ms, arr(62), true, 0, NumReasons},
		}, 2},
		{"a step back under a second is refused, not a new time base", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, NumReasons},
			{9_700 * ms, arr(10), false, 0, ReasonStampNotIncreasing},
			{10_010 * ms, arr(20), false, 10_010_000_000, NumReasons},
		}, 0},
		{"a paused arrival clock is not a change", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, NumReasons},
			{25_000 * ms, arr(0), false, 25_000_000_000, NumReasons},
		}, 0},
		{"a silent gap the arrival clock saw too is not a change", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, NumReasons},
			{7_210_000 * ms, arr(7_200_000), false, 7_210_000_000_000, NumReasons},
		}, 0},
		{"no arrival time (a flight log): a leap of decades still changes it", []sample{
			{10_000 * ms, ArrivalUnknown, false, 10_000_000_000, NumReasons},
			{unix, ArrivalUnknown, false, 10_000_001_000, NumReasons},
			{unix + 10*ms, ArrivalUnknown, false, 10_010_001_000, NumReasons},
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr Tracker
			for i, s := range tc.samples {
				tr.SetArrival(s.arrivalNs)
				if s.status {
					if err := tr.SetPX4Status(PX4Status{Timestamp: s.stampUs, Armed: true, NavState: 4}); err != nil {
						t.Fatalf("sample %d: status refused: %v", i, err)
					}
					continue
				}
				st, err := tr.PX4Odometry(px4Odom(s.stampUs))
				if s.reject != NumReasons {
					var re *RejectError
					if !errors.As(err, &re) || re.Reason != s.reject {
						t.Fatalf("sample %d: %v, want reason %v", i, err, s.reject)
					}
					continue
				}
				if err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				if st.StampNs != s.wantNs {
					t.Errorf("sample %d: stamp %d ns, want %d", i, st.StampNs, s.wantNs)
				}
			}
			if got := tr.Counters().TimeBaseChanges; got != tc.changes {
				t.Errorf("%d time-base changes, want %d", got, tc.changes)
			}
			if c, ok := tr.LastTimeBaseChange(); ok != (tc.changes > 0) || ok && c.ToNs-c.RawNs != c.OffsetNs {
				t.Errorf("last change %+v, %v", c, ok)
			}
		})
	}
}
