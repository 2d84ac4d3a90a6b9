package mapping

import (
	"errors"
	"testing"
)

// A PX4 stream whose time base changes under the node, as live SITL runs
// showed: boot time, then Unix time once the uXRCE-DDS time synchronisation
// converged, then boot time again after PX4 reset its synchroniser; and a
// lone sample in boot time between Unix ones when the GPS came back. A
// change confirmed by three samples continues the stamps where the arrival
// clock places them; a lone sample changes nothing; and no status sample on
// another base is held, so status samples keep flowing.
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
		reason    Reason // NumReasons: accepted
	}
	arr := func(msFromStart int64) int64 { return 1_700_000_000_000_000_000 + msFromStart*1_000_000 }
	const off, stale, back, ok = ReasonTimeBase, ReasonStale, ReasonStampNotIncreasing, NumReasons
	tests := []struct {
		name    string
		samples []sample
		changes uint64
	}{
		{"boot, then Unix, then boot again, each confirmed by three samples", []sample{
			{30_000 * ms, arr(0), false, 30_000_000_000, ok},
			{30_010 * ms, arr(10), false, 30_010_000_000, ok},
			{30_015 * ms, arr(12), true, 0, ok},
			// synchronised: PX4 stamps leap to Unix time
			{unix, arr(20), false, 0, off},
			{unix + 10*ms, arr(30), false, 0, off},
			{unix + 12*ms, arr(31), true, 0, off}, // a status on the new base before it is confirmed: not held
			{unix + 20*ms, arr(40), false, 30_040_000_000, ok},
			{unix + 25*ms, arr(45), true, 0, ok},
			// "time jump detected": back to boot time
			{boot / 1000, arr(60), false, 0, off},
			{boot/1000 + 10*ms, arr(70), false, 0, off},
			{boot/1000 + 20*ms, arr(80), false, 30_080_000_000, ok},
			{boot/1000 + 25*ms, arr(85), true, 0, ok},
		}, 2},
		{"a lone sample on another base, as PX4 SITL sent one when the GPS came back", []sample{
			{unix, arr(0), false, int64(unix) * 1000, ok},
			{unix + 10*ms, arr(10), true, 0, ok},
			{98_184 * ms, arr(12), false, 0, off},
			{unix + 20*ms, arr(20), false, int64(unix+20*ms) * 1000, ok},
			{unix + 25*ms, arr(25), true, 0, ok},
			{unix + 30*ms, arr(30), false, int64(unix+30*ms) * 1000, ok},
		}, 0},
		{"a step back under a second is refused, not a new time base", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, ok},
			{9_700 * ms, arr(10), false, 0, back},
			{9_706 * ms, arr(15), true, 0, ok},
			{9_705 * ms, arr(16), true, 0, stale}, // an older status is stale, as before
			{10_010 * ms, arr(20), false, 10_010_000_000, ok},
		}, 0},
		{"a paused arrival clock is not a change", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, ok},
			{25_000 * ms, arr(0), false, 25_000_000_000, ok},
		}, 0},
		{"a silent gap the arrival clock saw too is not a change", []sample{
			{10_000 * ms, arr(0), false, 10_000_000_000, ok},
			{7_210_000 * ms, arr(7_200_000), false, 7_210_000_000_000, ok},
		}, 0},
		{"no arrival time (a flight log): a leap of decades still changes it", []sample{
			{10_000 * ms, ArrivalUnknown, false, 10_000_000_000, ok},
			{unix, ArrivalUnknown, false, 0, off},
			{unix + 10*ms, ArrivalUnknown, false, 0, off},
			{unix + 20*ms, ArrivalUnknown, false, 10_020_001_000, ok},
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr Tracker
			for i, s := range tc.samples {
				tr.SetArrival(s.arrivalNs)
				var st State
				var err error
				if s.status {
					err = tr.SetPX4Status(PX4Status{Timestamp: s.stampUs, Armed: true, NavState: 4})
				} else {
					st, err = tr.PX4Odometry(px4Odom(s.stampUs))
				}
				if s.reason != NumReasons {
					var re *RejectError
					if !errors.As(err, &re) || re.Reason != s.reason {
						t.Fatalf("sample %d: %v, want reason %v", i, err, s.reason)
					}
					continue
				}
				if s.status {
					if err != nil {
						t.Fatalf("sample %d: status refused: %v", i, err)
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
