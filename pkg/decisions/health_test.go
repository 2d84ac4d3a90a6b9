package decisions

import (
	"math/bits"
	"testing"
)

// Health round-trips through ErrorFlags, stays inside HealthMask, and
// leaves the mapping's own bits (0 to 15) alone.
func TestHealthFlags(t *testing.T) {
	tests := []struct {
		name string
		h    Health
		bits []int // the ErrorFlags bits set
	}{
		{"nothing reported", Health{}, nil},
		{"satellites without a fix are not carried", Health{Satellites: 9}, nil},
		{"3d fix, 12 satellites", Health{Fix: GNSSFix3D, Satellites: 12}, []int{16, 17, 22, 23}},
		{"no fix", Health{Fix: GNSSNoFix}, []int{16}},
		{"extrapolated, 255 satellites", Health{Fix: GNSSFixExtrapolated, Satellites: 255}, []int{16, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27}},
		{"estimator, nothing set", Health{EstimatorReported: true}, []int{28}},
		{"estimator, gps fused", Health{EstimatorReported: true, Estimator: 1 << EstimatorGNSSFused}, []int{28, 30}},
		{"estimator, dead reckoning reported and set", Health{EstimatorReported: true, DeadReckoningReported: true, Estimator: 1 << EstimatorDeadReckoning}, []int{28, 29, 32}},
		{"estimator flags without reported are not carried", Health{Estimator: 0xff}, nil},
		{"estimator flags beyond the defined are not carried", Health{EstimatorReported: true, Estimator: 0xc0}, []int{28}},
		{"failsafe, global position invalid", Health{FailsafeReported: true, Failsafe: 1 << FailsafeGlobalPositionInvalid}, []int{36, 44}},
		{"failsafe, the last flag", Health{FailsafeReported: true, NavigatorFailureReported: true, Failsafe: 1 << FailsafeFDMotorFailure}, []int{36, 37, 62}},
		{"failsafe flags beyond the defined are not carried", Health{FailsafeReported: true, Failsafe: 1 << NumFailsafeFlags}, []int{36}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.h.Flags()
			var want uint64
			for _, b := range tt.bits {
				want |= 1 << b
			}
			if f != want {
				t.Fatalf("Flags() = %#x, want %#x", f, want)
			}
			if f&^HealthMask != 0 || f&0xffff != 0 {
				t.Fatalf("Flags() = %#x leaves the health bits", f)
			}
			back := HealthOf(f | 0xffff) // the mapping's own bits do not disturb it
			if back.Flags() != f {
				t.Fatalf("HealthOf(Flags()) = %+v, flags %#x, want %#x", back, back.Flags(), f)
			}
		})
	}
	if n := bits.OnesCount64(HealthMask); n != 47 {
		t.Fatalf("HealthMask has %d bits, want 47 (16 to 62)", n)
	}
}

func TestHealthFlagQueries(t *testing.T) {
	h := Health{EstimatorReported: true, Estimator: 1<<EstimatorGNSSFused | 1<<EstimatorDeadReckoning,
		FailsafeReported: true, Failsafe: 1<<FailsafeGlobalPositionInvalid | 1<<FailsafeNavigatorFailure}
	for _, tc := range []struct {
		name               string
		query              func() (bool, bool)
		wantSet, wantKnown bool
	}{
		{"gps fused", func() (bool, bool) { return h.EstimatorFlag(EstimatorGNSSFused) }, true, true},
		{"mag fault", func() (bool, bool) { return h.EstimatorFlag(EstimatorMagFault) }, false, true},
		{"dead reckoning not reported", func() (bool, bool) { return h.EstimatorFlag(EstimatorDeadReckoning) }, false, false},
		{"global position invalid", func() (bool, bool) { return h.FailsafeFlag(FailsafeGlobalPositionInvalid) }, true, true},
		{"navigator failure not reported", func() (bool, bool) { return h.FailsafeFlag(FailsafeNavigatorFailure) }, false, false},
		{"nothing reported", func() (bool, bool) { return Health{}.FailsafeFlag(FailsafeAttitudeInvalid) }, false, false},
	} {
		if set, known := tc.query(); set != tc.wantSet || known != tc.wantKnown {
			t.Errorf("%s: set %t known %t, want %t %t", tc.name, set, known, tc.wantSet, tc.wantKnown)
		}
	}
}

func TestGNSSFixFromPX4(t *testing.T) {
	want := map[uint8]GNSSFix{0: GNSSNoFix, 1: GNSSNoFix, 2: GNSSFix2D, 3: GNSSFix3D, 4: GNSSFixDGPS, 5: GNSSFixRTKFloat,
		6: GNSSFixRTKFixed, 7: GNSSNoFix, 8: GNSSFixExtrapolated, 9: GNSSNoFix, 255: GNSSNoFix}
	for ft, w := range want {
		if got := GNSSFixFromPX4(ft); got != w {
			t.Errorf("fix_type %d: %s, want %s", ft, got, w)
		}
	}
	if GNSSFix3D.String() != "3d" || GNSSFix(200).String() != "gnss_fix(200)" || FailsafeGeofenceBreached.String() != "geofence_breached" ||
		EstimatorGNSSFused.String() != "gps_fused" {
		t.Fatal("names")
	}
}
