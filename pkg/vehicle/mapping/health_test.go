package mapping

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// The health inputs reach every belief mapped after them; a receiver that
// falls silent loses its fix; older inputs are refused.
func TestHealthInputs(t *testing.T) {
	gps := func(us uint64, fix, sats uint8) func(*Tracker) error {
		return func(tr *Tracker) error {
			return tr.SetPX4Gps(PX4Gps{Timestamp: us, FixType: fix, SatellitesUsed: sats})
		}
	}
	est := func(us uint64, e PX4EstimatorFlags) func(*Tracker) error {
		e.Timestamp = us
		return func(tr *Tracker) error { return tr.SetPX4EstimatorFlags(e) }
	}
	fs := func(us uint64, nav bool, raised ...decisions.FailsafeFlag) func(*Tracker) error {
		f := PX4Failsafe{Timestamp: us, HasNavigatorFailure: nav}
		for _, g := range raised {
			f.Flags[g] = true
		}
		return func(tr *Tracker) error { return tr.SetPX4Failsafe(f) }
	}
	tests := []struct {
		name   string
		inputs []func(*Tracker) error
		at     uint64 // the odometry sample's µs
		want   decisions.Health
	}{
		{"nothing reported", nil, 1_000_000, decisions.Health{}},
		{"a 3d fix", []func(*Tracker) error{gps(900_000, 3, 11)}, 1_000_000, decisions.Health{Fix: decisions.GNSSFix3D, Satellites: 11}},
		{"fix type 1 is no fix", []func(*Tracker) error{gps(900_000, 1, 3)}, 1_000_000, decisions.Health{Fix: decisions.GNSSNoFix, Satellites: 3}},
		{"the newest receiver sample", []func(*Tracker) error{gps(900_000, 6, 20), gps(950_000, 2, 4)}, 1_000_000, decisions.Health{Fix: decisions.GNSSFix2D, Satellites: 4}},
		{"a receiver silent for 2 s still counts", []func(*Tracker) error{gps(1_000_000, 3, 9)}, 3_000_000, decisions.Health{Fix: decisions.GNSSFix3D, Satellites: 9}},
		{"a receiver silent for longer has no fix", []func(*Tracker) error{gps(1_000_000, 3, 9)}, 3_000_001, decisions.Health{Fix: decisions.GNSSNoFix}},
		{"estimator flags", []func(*Tracker) error{est(900_000, PX4EstimatorFlags{CsGps: true, CsTiltAlign: true, CsYawAlign: true, HasInertialDeadReckoning: true})}, 1_000_000,
			decisions.Health{EstimatorReported: true, DeadReckoningReported: true,
				Estimator: 1<<decisions.EstimatorGNSSFused | 1<<decisions.EstimatorTiltAligned | 1<<decisions.EstimatorYawAligned}},
		{"dead reckoning a source does not have", []func(*Tracker) error{est(900_000, PX4EstimatorFlags{CsInertialDeadReckoning: true, CsMagFault: true})}, 1_000_000,
			decisions.Health{EstimatorReported: true, Estimator: 1 << decisions.EstimatorMagFault}},
		{"failsafe flags", []func(*Tracker) error{fs(900_000, true, decisions.FailsafeGlobalPositionInvalid, decisions.FailsafeNavigatorFailure)}, 1_000_000,
			decisions.Health{FailsafeReported: true, NavigatorFailureReported: true,
				Failsafe: 1<<decisions.FailsafeGlobalPositionInvalid | 1<<decisions.FailsafeNavigatorFailure}},
		{"navigator failure a release does not have", []func(*Tracker) error{fs(900_000, false, decisions.FailsafeNavigatorFailure)}, 1_000_000,
			decisions.Health{FailsafeReported: true}},
		{"all three", []func(*Tracker) error{gps(100, 4, 14), est(200, PX4EstimatorFlags{CsGps: true}), fs(300, true)}, 1_000_000,
			decisions.Health{Fix: decisions.GNSSFixDGPS, Satellites: 14, EstimatorReported: true, Estimator: 1, FailsafeReported: true, NavigatorFailureReported: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			if err := tr.SetPX4Status(PX4Status{Timestamp: 50, NavState: 14, Armed: true}); err != nil {
				t.Fatal(err)
			}
			if err := tr.SetPX4Battery(PX4Battery{Timestamp: 60, Connected: true, VoltageV: 16, Remaining: 0.8, Warning: 1}); err != nil {
				t.Fatal(err)
			}
			for _, in := range tt.inputs {
				if err := in(&tr); err != nil {
					t.Fatal(err)
				}
			}
			s, err := tr.PX4Odometry(px4Odom(tt.at))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Flight.Health(); got != tt.want {
				t.Fatalf("health %+v, want %+v", got, tt.want)
			}
			if s.Flight.ErrorFlags&^decisions.HealthMask != 1<<FlagBatteryWarningShift {
				t.Fatalf("error flags %#x: the battery warning is lost or joined by other bits", s.Flight.ErrorFlags)
			}
		})
	}
	// An input older than the one held is refused as stale, and counted.
	var tr Tracker
	for _, in := range []func(*Tracker) error{gps(1000, 3, 9), est(1000, PX4EstimatorFlags{}), fs(1000, true)} {
		if err := in(&tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range []func(*Tracker) error{gps(999, 3, 1), est(999, PX4EstimatorFlags{}), fs(999, true)} {
		if err := in(&tr); !errors.Is(err, ErrStale) {
			t.Errorf("an older sample: %v, want stale", err)
		}
	}
	if c := tr.Counters(); c.Updates != 3 || c.Rejected[ReasonStale] != 3 {
		t.Errorf("counters %+v, want 3 updates and 3 stale", c)
	}
}
