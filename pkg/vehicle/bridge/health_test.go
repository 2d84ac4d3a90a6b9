package bridge

import (
	"errors"
	"maps"
	"os"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// readEveryField decodes message name of rel with every scalar field set
// from its name (bools to boolValue, unsigned to byteValue).
func readEveryField(t *testing.T, defs *px4.Definitions, name string) (px4.Fields, func(string) bool) {
	t.Helper()
	p, err := defs.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, defs, name, func(w *dynamic.Writer) error {
		for _, path := range p.Paths() {
			ref, err := p.Field(path)
			if err != nil {
				continue // an array: its elements are not read
			}
			switch ref.Kind() {
			case dynamic.KindBool:
				_ = w.SetBool(path, boolValue(path))
			case dynamic.KindUint8, dynamic.KindUint16, dynamic.KindUint32, dynamic.KindUint64:
				_ = w.SetUint(path, uint64(byteValue(path)))
			}
		}
		return nil
	})
	var m dynamic.Message
	if err := defs.DecodeInto(name, &m, data); err != nil {
		t.Fatal(err)
	}
	has := func(field string) bool { _, err := p.Field(field); return err == nil }
	return px4.FieldsOf(&m), has
}

// The health readers give every field they map, by name, in every
// supported release (cs_gps is cs_gnss_pos in 1.16, geofence_breached is
// primary_geofence_breached in 1.14, navigator_failure exists from 1.16).
func TestReadHealthEveryRelease(t *testing.T) {
	ts := uint64(byteValue("timestamp"))
	for _, rel := range px4.Releases() {
		defs := px4Defs(t, rel)

		f, _ := readEveryField(t, defs, px4.MsgSensorGps)
		g, err := ReadGps(f)
		want := mapping.PX4Gps{Timestamp: ts, TimestampSample: uint64(byteValue("timestamp_sample")),
			FixType: byteValue("fix_type"), SatellitesUsed: byteValue("satellites_used")}
		if _, has := readEveryField(t, defs, px4.MsgSensorGps); !has("timestamp_sample") {
			want.TimestampSample = 0
		}
		if err != nil || g != want {
			t.Errorf("%s gps: %+v, %v; want %+v", rel, g, err, want)
		}

		f, has := readEveryField(t, defs, px4.MsgEstimatorStatusFlags)
		e, err := ReadEstimatorFlags(f)
		gps := "cs_gps"
		if has("cs_gnss_pos") {
			gps = "cs_gnss_pos"
		}
		wantE := mapping.PX4EstimatorFlags{Timestamp: ts, CsGps: boolValue(gps), CsGpsHgt: boolValue("cs_gps_hgt"),
			CsTiltAlign: boolValue("cs_tilt_align"), CsYawAlign: boolValue("cs_yaw_align"), CsMagFault: boolValue("cs_mag_fault"),
			CsInertialDeadReckoning: boolValue("cs_inertial_dead_reckoning"), HasInertialDeadReckoning: true}
		if err != nil || e != wantE || (gps == "cs_gnss_pos") != (rel == px4.Release116) {
			t.Errorf("%s estimator flags (%s): %+v, %v; want %+v", rel, gps, e, err, wantE)
		}

		f, has = readEveryField(t, defs, px4.MsgFailsafeFlags)
		fs, err := ReadFailsafe(f)
		wantF := mapping.PX4Failsafe{Timestamp: ts, HasNavigatorFailure: has("navigator_failure")}
		for g := decisions.FailsafeFlag(0); g < decisions.NumFailsafeFlags; g++ {
			name := g.String()
			switch {
			case g == decisions.FailsafeGeofenceBreached && rel == px4.Release114:
				name = "primary_geofence_breached"
			case g == decisions.FailsafeNavigatorFailure && !wantF.HasNavigatorFailure:
				continue
			}
			if !has(name) {
				t.Fatalf("%s FailsafeFlags has no %s", rel, name)
			}
			wantF.Flags[g] = boolValue(name)
		}
		if err != nil || fs != wantF || wantF.HasNavigatorFailure != (rel == px4.Release116) {
			t.Errorf("%s failsafe flags: %+v, %v; want %+v", rel, fs, err, wantF)
		}
	}
}

// A message without a field the reader needs is a FieldError naming it.
func TestReadHealthMissingField(t *testing.T) {
	defs := px4Defs(t, px4.Release116)
	for _, tc := range []struct {
		name string
		read func(px4.Fields) error
	}{
		{px4.MsgVehicleOdometry, func(f px4.Fields) error { _, err := ReadGps(f); return err }},
		{px4.MsgVehicleOdometry, func(f px4.Fields) error { _, err := ReadEstimatorFlags(f); return err }},
		{px4.MsgVehicleOdometry, func(f px4.Fields) error { _, err := ReadEstimatorStatus(f); return err }},
		{px4.MsgVehicleOdometry, func(f px4.Fields) error { _, err := ReadFailsafe(f); return err }},
	} {
		f, _ := readEveryField(t, defs, tc.name)
		if err := tc.read(f); !errors.Is(err, px4.ErrField) {
			t.Errorf("reading health from %s: %v, want a field error", tc.name, err)
		}
	}
}

// The shared real logs carry the health topics of their releases: each
// belief made from them reports what PX4 logged, and nothing it did not
// (no failsafe_flags before 1.14).
func TestULogHealthReal(t *testing.T) {
	tests := []struct {
		log string
		// counts of beliefs by what their health reports
		fixes                           map[decisions.GNSSFix]int
		estimator, deadReckoning, fused int
		failsafe                        int
	}{
		// v1.11: vehicle_gps_position at about 5 Hz with a 3D fix from
		// its first sample; estimator_status's control_mode_flags (no
		// dead-reckoning flag), which never shows GNSS fused in this short
		// log; no failsafe_flags.
		{"px4_v1.11_cubeorange.ulg", map[decisions.GNSSFix]int{decisions.GNSSFixUnknown: 1, decisions.GNSSFix3D: 635}, 636, 0, 0, 0},
		// v1.13 SITL without GPS fusion: the receiver has a 3D fix for
		// the first 189 beliefs, then 2D or none; estimator_status_flags
		// with cs_inertial_dead_reckoning set throughout.
		{"px4_v1.13_sitl_tagged.ulg", map[decisions.GNSSFix]int{decisions.GNSSFix3D: 189, decisions.GNSSFix2D: 91, decisions.GNSSNoFix: 947}, 1227, 1227, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			data, err := os.ReadFile(golden.Path(t, "ulog", tt.log))
			if err != nil {
				t.Fatal(err)
			}
			_, msgs := drainULog(t, data, false)
			fixes := map[decisions.GNSSFix]int{}
			var est, dr, fused, fs, beliefs int
			for _, m := range msgs {
				if m.SchemaName != "ghost/msg/VehicleState" {
					continue
				}
				var vs ros2msg.VehicleState
				if err := vs.UnmarshalCDR(m.Data); err != nil {
					t.Fatal(err)
				}
				beliefs++
				h := decisions.HealthOf(vs.Flight.ErrorFlags)
				fixes[h.Fix]++
				if h.EstimatorReported {
					est++
				}
				if set, known := h.EstimatorFlag(decisions.EstimatorDeadReckoning); set && known {
					dr++
				}
				if set, _ := h.EstimatorFlag(decisions.EstimatorGNSSFused); set {
					fused++
				}
				if h.FailsafeReported {
					fs++
				}
			}
			if !maps.Equal(fixes, tt.fixes) {
				t.Errorf("fixes %v, want %v", fixes, tt.fixes)
			}
			if est != tt.estimator || dr != tt.deadReckoning || fused != tt.fused || fs != tt.failsafe {
				t.Errorf("of %d beliefs: estimator reported %d, dead reckoning %d, GNSS fused %d, failsafe reported %d; want %d %d %d %d",
					beliefs, est, dr, fused, fs, tt.estimator, tt.deadReckoning, tt.fused, tt.failsafe)
			}
			if fixes[decisions.GNSSFixUnknown] > 1 {
				t.Errorf("%d beliefs without a receiver: every belief after the first receiver sample has one", fixes[decisions.GNSSFixUnknown])
			}
		})
	}
}

// mapFields is a message as named values, for the readers.
type mapFields map[string]float64

func (m mapFields) Float(name string) (float64, bool) { v, ok := m[name]; return v, ok }
func (m mapFields) Uint(name string) (uint64, bool)   { v, ok := m[name]; return uint64(v), ok }
func (m mapFields) Int(name string) (int64, bool)     { v, ok := m[name]; return int64(v), ok }
func (m mapFields) Bool(name string) (bool, bool)     { v, ok := m[name]; return v != 0, ok }

// The estimator's covariance gives the attitude variance only where it is
// over the quaternion: as many covariances as states (PX4 before 1.15).
func TestReadEstimatorCovariance(t *testing.T) {
	states := func(states, covs int) mapFields {
		m := mapFields{"timestamp": 200, "timestamp_sample": 100}
		for i := 0; i < states; i++ {
			m["states["+strconv.Itoa(i)+"]"] = float64(i) / 10
		}
		for i := 0; i < covs; i++ {
			m["covariances["+strconv.Itoa(i)+"]"] = float64(i) / 100
		}
		return m
	}
	for _, tc := range []struct {
		name          string
		states, covs  int
		ok, wantError bool
	}{
		{"24 and 24 (before 1.15)", 24, 24, true, false},
		{"24 and 23 (1.15)", 24, 23, false, false},
		{"25 and 24 (1.16)", 25, 24, false, false},
		{"no states", 0, 24, false, true},
	} {
		c, ok, err := ReadEstimatorCovariance(states(tc.states, tc.covs), "EstimatorStates")
		if ok != tc.ok || (err != nil) != tc.wantError {
			t.Errorf("%s: ok %v, error %v", tc.name, ok, err)
			continue
		}
		want := mapping.PX4EstimatorCovariance{Timestamp: 200, TimestampSample: 100, Q: [4]float32{0, 0.1, 0.2, 0.3}, QVar: [4]float32{0, 0.01, 0.02, 0.03}}
		if ok && c != want {
			t.Errorf("%s: %+v, want %+v", tc.name, c, want)
		}
	}
}

// The shared logs are before 1.15: every belief's attitude variance comes
// from the estimator's covariance, and none is unknown; their horizontal
// position and velocity are what PX4 logged: invalid throughout.
func TestULogAttitudeFromEstimatorReal(t *testing.T) {
	for _, log := range []string{"px4_v1.11_cubeorange.ulg", "px4_v1.13_sitl_tagged.ulg"} {
		t.Run(log, func(t *testing.T) {
			data, err := os.ReadFile(golden.Path(t, "ulog", log))
			if err != nil {
				t.Fatal(err)
			}
			src, msgs := drainULog(t, data, false)
			c := src.b.Tracker().Counters()
			if c.Beliefs == 0 || c.AttitudeFromEstimator != c.Beliefs || c.AttitudeUnknown != 0 ||
				c.NoHorizontalPosition != c.Beliefs || c.NoHorizontalVelocity != c.Beliefs {
				t.Fatalf("counters %+v", c)
			}
			for _, m := range msgs {
				if m.SchemaName != "ghost/msg/BeliefSelfAssessment" {
					continue
				}
				var sa ros2msg.BeliefSelfAssessment
				if err := sa.UnmarshalCDR(m.Data); err != nil {
					t.Fatal(err)
				}
				if sa.OrientationOverallLevel == ros2msg.BeliefSelfAssessmentLevelUnknown {
					t.Fatalf("belief %d: orientation unknown", sa.BeliefStampSimNs)
				}
			}
		})
	}
}
