package ros2msg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// fillDistinct sets every field reachable from v to a distinct non-default
// value (bools true, slices of one element, pointers allocated), so a field
// that a conversion forgets comes back as zero and one it swaps with another
// comes back as the wrong value.
func fillDistinct(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() { // caches (a seal) are not content
				fillDistinct(v.Field(i), n)
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fillDistinct(v.Index(i), n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillDistinct(v.Index(0), n)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillDistinct(v.Elem(), n)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		*n++
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		*n++
		v.SetFloat(float64(*n) + 0.25)
	case reflect.String:
		*n++
		v.SetString("s" + strconv.Itoa(*n))
	default:
		panic("fillDistinct: unexpected kind " + v.Kind().String())
	}
}

func filled[T any]() T {
	var v T
	n := 0
	fillDistinct(reflect.ValueOf(&v).Elem(), &n)
	return v
}

func sameValue(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := diffValues(reflect.ValueOf(got), reflect.ValueOf(want), what); d != "" {
		t.Errorf("%s", d)
	}
}

// TestConvertWireRoundTrip fills every wire field and converts there and
// back: a field added to a .msg but forgotten in a conversion fails here.
func TestConvertWireRoundTrip(t *testing.T) {
	t.Run("AssessmentThresholds", func(t *testing.T) {
		w := filled[AssessmentThresholds]()
		d := ThresholdsFromWire(&w)
		sameValue(t, "thresholds", ThresholdsToWire(d), w)
	})
	t.Run("BeliefSelfAssessment", func(t *testing.T) {
		w := filled[BeliefSelfAssessment]()
		d := SelfAssessmentFromWire(&w)
		sameValue(t, "assessment", SelfAssessmentToWire(&d), w)
	})
	t.Run("Decision", func(t *testing.T) {
		w := filled[Decision]()
		sameValue(t, "decision", DecisionToWire(DecisionFromWire(&w)), w)
	})
	t.Run("DecisionRationale", func(t *testing.T) {
		w := filled[DecisionRationale]()
		d := RationaleFromWire(&w)
		sameValue(t, "rationale", RationaleToWire(&d), w)
	})
	t.Run("FlightStatus", func(t *testing.T) {
		w := filled[FlightStatus]()
		sameValue(t, "flight", FlightStatusToWire(FlightStatusFromWire(&w)), w)
	})
	t.Run("Goal", func(t *testing.T) {
		w := filled[Goal]()
		sameValue(t, "goal", GoalToWire(GoalFromWire(&w)), w)
	})
	t.Run("MissionStatus", func(t *testing.T) {
		w := filled[MissionStatus]()
		d, err := MissionStatusFromWire(&w)
		if err != nil {
			t.Fatal(err)
		}
		sameValue(t, "mission", MissionStatusToWire(d), w)
	})
	t.Run("PerceptionMode", func(t *testing.T) {
		w := filled[PerceptionMode]()
		sameValue(t, "perception", PerceptionToWire(PerceptionFromWire(&w)), w)
	})
	t.Run("VehicleState", func(t *testing.T) {
		w := filled[VehicleState]()
		b, err := BeliefFromWire(&w)
		if err != nil {
			t.Fatal(err)
		}
		// A Belief keeps only what decisions read; the rest comes back zero.
		want := VehicleState{StampSimNs: w.StampSimNs, Flight: w.Flight, Mission: w.Mission}
		want.Nav.OrientationQ = w.Nav.OrientationQ
		want.Nav.Covariance15x15 = w.Nav.Covariance15x15
		sameValue(t, "vehicle state", BeliefToWire(&b), want)
	})
	t.Run("CalibrationHistory", func(t *testing.T) {
		w := filled[CalibrationHistory]()
		sameValue(t, "history", CalibrationHistoryToWire(CalibrationHistoryFromWire(&w)), w)
	})
	t.Run("CalibratedSelfAssessment", func(t *testing.T) {
		w := filled[CalibratedSelfAssessment]()
		a, c := CalibratedFromWire(&w)
		// The record's own schema_version has no domain counterpart: it
		// comes back as the current one.
		want := w
		want.SchemaVersion = decisions.SchemaVersion
		sameValue(t, "calibrated", CalibratedToWire(&a, &c), want)
	})
}

// TestConvertDomainRoundTrip fills every domain field and converts there
// and back: a domain field without a wire counterpart fails here.
func TestConvertDomainRoundTrip(t *testing.T) {
	t.Run("Thresholds", func(t *testing.T) {
		d := filled[decisions.Thresholds]()
		w := ThresholdsToWire(d)
		sameValue(t, "thresholds", ThresholdsFromWire(&w), d)
	})
	t.Run("SelfAssessment", func(t *testing.T) {
		d := filled[decisions.SelfAssessment]()
		w := SelfAssessmentToWire(&d)
		sameValue(t, "assessment", SelfAssessmentFromWire(&w), d)
	})
	t.Run("Decision", func(t *testing.T) {
		d := filled[decisions.Decision]()
		w := DecisionToWire(d)
		sameValue(t, "decision", DecisionFromWire(&w), d)
	})
	t.Run("Rationale", func(t *testing.T) {
		d := filled[decisions.Rationale]()
		w := RationaleToWire(&d)
		sameValue(t, "rationale", RationaleFromWire(&w), d)
	})
	t.Run("FlightStatus", func(t *testing.T) {
		d := filled[decisions.FlightStatus]()
		w := FlightStatusToWire(d)
		sameValue(t, "flight", FlightStatusFromWire(&w), d)
	})
	t.Run("Goal", func(t *testing.T) {
		d := filled[decisions.Goal]()
		w := GoalToWire(d)
		sameValue(t, "goal", GoalFromWire(&w), d)
	})
	t.Run("MissionStatus", func(t *testing.T) {
		for _, d := range []decisions.MissionStatus{filled[decisions.MissionStatus](), {Mode: 1, StartedSimNs: -1}} {
			w := MissionStatusToWire(d)
			got, err := MissionStatusFromWire(&w)
			if err != nil {
				t.Fatal(err)
			}
			sameValue(t, "mission", got, d)
		}
	})
	t.Run("PerceptionReport", func(t *testing.T) {
		d := filled[decisions.PerceptionReport]()
		w := PerceptionToWire(d)
		sameValue(t, "perception", PerceptionFromWire(&w), d)
	})
	t.Run("Belief", func(t *testing.T) {
		d := filled[decisions.Belief]()
		w := BeliefToWire(&d)
		got, err := BeliefFromWire(&w)
		if err != nil {
			t.Fatal(err)
		}
		sameValue(t, "belief", got, d)
	})
	t.Run("Calibrated", func(t *testing.T) {
		a := filled[decisions.SelfAssessment]()
		c := filled[decisions.Calibration]()
		w := CalibratedToWire(&a, &c)
		gotA, gotC := CalibratedFromWire(&w)
		sameValue(t, "raw assessment", gotA, a)
		sameValue(t, "calibration", gotC, c)
	})
}

// TestCalibratedFields pins each calibration field to its wire field by
// name (a swap of two fields of one type survives a round trip).
func TestCalibratedFields(t *testing.T) {
	raw := decisions.SelfAssessment{BeliefStampSimNs: 42, OverallLevel: decisions.LevelKnown}
	c := decisions.Calibration{
		AdjustedOverallLevel: decisions.LevelUnknown, AdjustmentPolicyID: "pid", AdjustmentReason: "why",
		History: decisions.CalibrationHistory{CountWithin1Std: 1, CountBeyond1Std: 2, CountBeyond3Std: 3, CountBeyond5Std: 4,
			OutcomesConsidered: 5, MostRecentObservedStampSimNs: -1, WorstPositionMahalanobis: 6.5,
			WorstOrientationMahalanobis: 7.5, SchemaVersion: 1},
	}
	w := CalibratedToWire(&raw, &c)
	h := w.CalibrationHistory
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"raw_assessment.belief_stamp_sim_ns", w.RawAssessment.BeliefStampSimNs, int64(42)},
		{"raw_assessment.overall_level", w.RawAssessment.OverallLevel, uint8(BeliefSelfAssessmentLevelKnown)},
		{"adjusted_overall_level", w.AdjustedOverallLevel, uint8(CalibratedSelfAssessmentLevelUnknown)},
		{"adjustment_policy_id", w.AdjustmentPolicyID, "pid"},
		{"adjustment_reason", w.AdjustmentReason, "why"},
		{"count_within_1_std", h.CountWithin1Std, int64(1)},
		{"count_beyond_1_std", h.CountBeyond1Std, int64(2)},
		{"count_beyond_3_std", h.CountBeyond3Std, int64(3)},
		{"count_beyond_5_std", h.CountBeyond5Std, int64(4)},
		{"outcomes_considered", h.OutcomesConsidered, int64(5)},
		{"most_recent_observed_stamp_sim_ns", h.MostRecentObservedStampSimNs, int64(-1)},
		{"worst_position_mahalanobis", h.WorstPositionMahalanobis, 6.5},
		{"worst_orientation_mahalanobis", h.WorstOrientationMahalanobis, 7.5},
		{"calibration_history.schema_version", h.SchemaVersion, uint8(1)},
		{"schema_version", w.SchemaVersion, uint8(1)},
	} {
		if f.got != f.want {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
}

// TestSelfAssessmentIndexing pins the wire field behind each index of the
// domain arrays (a swap in both directions would survive a round trip).
func TestSelfAssessmentIndexing(t *testing.T) {
	w := filled[BeliefSelfAssessment]()
	d := SelfAssessmentFromWire(&w)
	wv := reflect.ValueOf(w)
	stds := []string{"PositionAxisXStdM", "PositionAxisYStdM", "PositionAxisZStdM",
		"VelocityAxisXStdMps", "VelocityAxisYStdMps", "VelocityAxisZStdMps",
		"OrientationAxisXStdRad", "OrientationAxisYStdRad", "OrientationAxisZStdRad"}
	for i, name := range stds {
		if got, want := d.Std[i], wv.FieldByName(name).Float(); got != want {
			t.Errorf("Std[%d] = %v, want %s = %v", i, got, name, want)
		}
		lname := name[:strings.Index(name, "Std")] + "Level"
		if got, want := uint64(d.AxisLevel[i]), wv.FieldByName(lname).Uint(); got != want {
			t.Errorf("AxisLevel[%d] = %v, want %s = %v", i, got, lname, want)
		}
	}
	for b, name := range []string{"PositionOverallLevel", "VelocityOverallLevel", "OrientationOverallLevel"} {
		if got, want := uint64(d.BlockLevel[b]), wv.FieldByName(name).Uint(); got != want {
			t.Errorf("BlockLevel[%d] = %v, want %s = %v", b, got, name, want)
		}
	}
}

func TestConvertCarriesInvalidValues(t *testing.T) {
	w := Decision{Kind: 200, Reason: "Not An Identifier", SchemaVersion: 9}
	d := DecisionFromWire(&w)
	if d.Kind != 200 || d.Reason != w.Reason || d.SchemaVersion != 9 {
		t.Errorf("DecisionFromWire = %+v", d)
	}
	if err := d.Validate(); !errors.Is(err, decisions.ErrInvalid) {
		t.Errorf("Validate of a carried invalid kind: %v", err)
	}
	a := BeliefSelfAssessment{OverallLevel: 7, PositionAxisXStdM: math.NaN()}
	if got := SelfAssessmentFromWire(&a); got.OverallLevel != 7 || !math.IsNaN(got.Std[0]) {
		t.Errorf("SelfAssessmentFromWire = %+v", got)
	}
	if got := FlightStatusFromWire(&FlightStatus{FlightMode: 99}); got.Mode != 99 {
		t.Errorf("FlightStatusFromWire mode = %d", got.Mode)
	}
	if got := PerceptionFromWire(&PerceptionMode{Mode: 99}); got.Mode != 99 {
		t.Errorf("PerceptionFromWire mode = %d", got.Mode)
	}
}

func TestConvertTooManyGoals(t *testing.T) {
	m := MissionStatus{CurrentGoal: make([]Goal, 2)}
	if _, err := MissionStatusFromWire(&m); !errors.Is(err, ErrCDRBound) || !strings.Contains(err.Error(), "current_goal: 2 goals") {
		t.Errorf("MissionStatusFromWire error = %v", err)
	}
	v := VehicleState{Mission: m}
	if _, err := BeliefFromWire(&v); err == nil {
		t.Error("BeliefFromWire accepted two goals")
	}
}

// TestSelfAssessmentHashesAfterTheWire carries the reference's assessments
// through the wire struct and CDR, and checks that the converted assessment
// hashes to the reference's SHA-256.
func TestSelfAssessmentHashesAfterTheWire(t *testing.T) {
	f, err := os.Open(filepath.Join(goldenDir(t), "self_assessment_vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	checked := 0
	for sc.Scan() {
		var vec struct {
			ID         string          `json:"id"`
			Assessment json.RawMessage `json:"assessment"`
			SHA256     *string         `json:"sha256"`
			Reference  json.RawMessage `json:"reference_decision"`
		}
		if err := json.Unmarshal(sc.Bytes(), &vec); err != nil {
			t.Fatal(err)
		}
		if string(vec.Assessment) == "null" || vec.SHA256 == nil {
			continue
		}
		raw, err := wireJSON(vec.Assessment)
		if err != nil {
			t.Fatalf("%s: %v", vec.ID, err)
		}
		var w BeliefSelfAssessment
		if err := fillStruct(reflect.ValueOf(&w).Elem(), w.SchemaName(), raw); err != nil {
			t.Fatalf("%s: %v", vec.ID, err)
		}
		data, err := w.MarshalCDR()
		if err != nil {
			t.Fatalf("%s: %v", vec.ID, err)
		}
		var back BeliefSelfAssessment
		if err := back.UnmarshalCDR(data); err != nil {
			t.Fatalf("%s: %v", vec.ID, err)
		}
		a := SelfAssessmentFromWire(&back)
		if got := a.SHA256(); got != *vec.SHA256 {
			t.Errorf("%s: SHA-256 after the wire %s, reference %s", vec.ID, got, *vec.SHA256)
		}
		checked++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no assessment vectors")
	}
}

// wireJSON rewrites an assessment of the reference's JSON (levels as names,
// a none std as null) into the golden CDR JSON form (levels as numbers, NaN
// as "NaN").
func wireJSON(raw json.RawMessage) (json.RawMessage, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	for k, v := range obj {
		switch {
		case v == nil:
			obj[k] = "NaN"
		case strings.HasSuffix(k, "_level"):
			l, err := decisions.ParseLevel(v.(string))
			if err != nil {
				return nil, err
			}
			obj[k] = int(l)
		}
	}
	return json.Marshal(obj)
}
