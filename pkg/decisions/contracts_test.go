package decisions

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func validThresholds() Thresholds {
	return Thresholds{
		PositionKnownStdM: 0.5, PositionUnknownStdM: 2,
		VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
		OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2,
		SchemaVersion: 1,
	}
}

func diagCovariance(diag [9]float64) []float64 {
	cov := make([]float64, CovarianceLen)
	for i := 0; i < CovarianceDim; i++ {
		cov[i*CovarianceDim+i] = 1e-6
	}
	for i, v := range diag {
		cov[i*CovarianceDim+i] = v
	}
	return cov
}

func validAssessment(t testing.TB, stamp int64, level Level) SelfAssessment {
	t.Helper()
	std := map[Level]float64{LevelKnown: 0.01, LevelUncertain: 1, LevelUnknown: 10}[level]
	var diag [9]float64
	for i := range diag {
		diag[i] = 1e-6
	}
	diag[0] = std * std
	a, err := Assess(stamp, diagCovariance(diag), validThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if a.OverallLevel != level {
		t.Fatalf("fixture level %v, want %v", a.OverallLevel, level)
	}
	return a
}

// wantInvalid asserts err is a ValidationError naming field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want rejection of %s", field)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v is not a ValidationError", err)
	}
	if ve.Field != field {
		t.Fatalf("error names field %q, want %q (%v)", ve.Field, field, err)
	}
	if !strings.Contains(err.Error(), field) {
		t.Fatalf("message %q does not name %s", err, field)
	}
}

func TestThresholdsValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Thresholds)
		field string
	}{
		{"valid", func(*Thresholds) {}, ""},
		{"zero", func(x *Thresholds) { x.PositionKnownStdM = 0 }, "position_known_std_m"},
		{"negative", func(x *Thresholds) { x.VelocityUnknownStdMps = -1 }, "velocity_unknown_std_mps"},
		{"nan", func(x *Thresholds) { x.OrientationKnownStdRad = math.NaN() }, "orientation_known_std_rad"},
		{"inf", func(x *Thresholds) { x.OrientationUnknownStdRad = math.Inf(1) }, "orientation_unknown_std_rad"},
		{"known equals unknown", func(x *Thresholds) { x.VelocityKnownStdMps = 1 }, "velocity_known_std_mps"},
		{"known above unknown", func(x *Thresholds) { x.PositionKnownStdM = 3 }, "position_known_std_m"},
		{"schema", func(x *Thresholds) { x.SchemaVersion = 2 }, "schema_version"},
		{"largest unknown", func(x *Thresholds) { x.VelocityUnknownStdMps = math.MaxFloat64 }, ""},
		{"smallest known", func(x *Thresholds) { x.OrientationKnownStdRad = 5e-324 }, ""},
		{"negative zero", func(x *Thresholds) { x.PositionKnownStdM = math.Copysign(0, -1) }, "position_known_std_m"},
		{"unknown nan", func(x *Thresholds) { x.PositionUnknownStdM = math.NaN() }, "position_unknown_std_m"},
		{"known -inf", func(x *Thresholds) { x.VelocityKnownStdMps = math.Inf(-1) }, "velocity_known_std_mps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := validThresholds()
			tt.edit(&th)
			err := th.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestAssessClassifiesAtBoundaries(t *testing.T) {
	th := validThresholds()
	tests := []struct {
		name string
		diag float64 // position x variance
		want Level
		none bool
	}{
		{"std equals known", 0.5 * 0.5, LevelKnown, false},
		{"std equals unknown", 2 * 2, LevelUnknown, false},
		{"between", 1, LevelUncertain, false},
		{"negative zero", math.Copysign(0, -1), LevelKnown, false},
		{"negative variance", -1e-9, LevelUnknown, true},
		{"nan variance", math.NaN(), LevelUnknown, true},
		{"infinite variance", math.Inf(1), LevelUnknown, true},
		{"huge", 1e300, LevelUnknown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diag := [9]float64{tt.diag, 0.01, 0.01, 0.01, 0.01, 0.01, 1e-4, 1e-4, 1e-4}
			a, err := Assess(7, diagCovariance(diag), th)
			if err != nil {
				t.Fatal(err)
			}
			if a.AxisLevel[0] != tt.want || math.IsNaN(a.Std[0]) != tt.none {
				t.Fatalf("std %v level %v, want level %v none=%v", a.Std[0], a.AxisLevel[0], tt.want, tt.none)
			}
			if a.BlockLevel[BlockPosition] != tt.want || a.OverallLevel != tt.want {
				t.Fatalf("block %v overall %v, want worst-of %v", a.BlockLevel[0], a.OverallLevel, tt.want)
			}
			if a.BlockLevel[BlockVelocity] != LevelKnown || a.BlockLevel[BlockOrientation] != LevelKnown {
				t.Fatalf("untouched blocks %v", a.BlockLevel)
			}
			if err := a.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAssessWithoutCovariance(t *testing.T) {
	a, err := Assess(0, nil, validThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if a.CovarianceAvailable || a.OverallLevel != LevelUnknown {
		t.Fatalf("got available=%v overall=%v", a.CovarianceAvailable, a.OverallLevel)
	}
	for i, s := range a.Std {
		if !math.IsNaN(s) || a.AxisLevel[i] != LevelUnknown {
			t.Fatalf("axis %d: std %v level %v, want none/unknown", i, s, a.AxisLevel[i])
		}
	}
	if !strings.Contains(string(a.AppendCanonicalJSON(nil)), `"position_axis_x_std_m":null`) {
		t.Fatalf("none std not written as null: %s", a.AppendCanonicalJSON(nil))
	}
}

func TestAssessRejects(t *testing.T) {
	bad := validThresholds()
	bad.PositionKnownStdM = 5
	tests := []struct {
		name  string
		stamp int64
		cov   []float64
		th    Thresholds
		field string
	}{
		{"negative stamp", -1, nil, validThresholds(), "belief_stamp_sim_ns"},
		{"short covariance", 0, make([]float64, 9), validThresholds(), "covariance_15x15"},
		{"bad thresholds", 0, nil, bad, "position_known_std_m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Assess(tt.stamp, tt.cov, tt.th)
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestSelfAssessmentValidateAndConsistency(t *testing.T) {
	tests := []struct {
		name         string
		edit         func(*SelfAssessment)
		field        string // rejected field, "" when accepted
		inconsistent string // field Consistency must report, "" for none
	}{
		{"valid", func(*SelfAssessment) {}, "", ""},
		{"negative stamp", func(a *SelfAssessment) { a.BeliefStampSimNs = -5 }, "belief_stamp_sim_ns", ""},
		{"axis level out of range", func(a *SelfAssessment) { a.AxisLevel[4] = 3 }, "velocity_axis_y_level", ""},
		{"block level out of range", func(a *SelfAssessment) { a.BlockLevel[2] = 9 }, "orientation_overall_level", ""},
		{"overall out of range", func(a *SelfAssessment) { a.OverallLevel = 255 }, "overall_level", ""},
		{"uppercase hash", func(a *SelfAssessment) { a.ThresholdsSHA256 = strings.ToUpper(a.ThresholdsSHA256) }, "thresholds_sha256", ""},
		{"short hash", func(a *SelfAssessment) { a.ThresholdsSHA256 = "abc" }, "thresholds_sha256", ""},
		{"schema", func(a *SelfAssessment) { a.SchemaVersion = 0 }, "schema_version", ""},
		{"bad thresholds", func(a *SelfAssessment) { a.ThresholdsUsed.VelocityKnownStdMps = math.NaN() }, "velocity_known_std_mps", ""},
		{"mismatched thresholds hash", func(a *SelfAssessment) { a.ThresholdsSHA256 = strings.Repeat("0", 64) }, "", "thresholds_sha256"},
		{"overall not worst", func(a *SelfAssessment) { a.OverallLevel = LevelKnown }, "", "overall_level"},
		{"block not worst", func(a *SelfAssessment) { a.BlockLevel[0] = LevelKnown; a.OverallLevel = LevelKnown }, "", "position_overall_level"},
		{"axis contradicts std", func(a *SelfAssessment) { a.AxisLevel[8] = LevelUnknown; a.BlockLevel[2] = LevelUnknown }, "", "orientation_axis_z_level"},
		{"covariance flag false with stds", func(a *SelfAssessment) { a.CovarianceAvailable = false }, "", "covariance_available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := validAssessment(t, 42, LevelUncertain)
			tt.edit(&a)
			err := a.Validate()
			if tt.field != "" {
				wantInvalid(t, err, tt.field)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			inc := a.Consistency()
			if tt.inconsistent == "" {
				if len(inc) != 0 {
					t.Fatalf("unexpected inconsistencies %v", inc)
				}
				return
			}
			found := false
			for _, i := range inc {
				found = found || i.Field == tt.inconsistent
			}
			if !found {
				t.Fatalf("Consistency %v does not report %s", inc, tt.inconsistent)
			}
		})
	}
}

func TestKindCatalog(t *testing.T) {
	names := []string{"proceed", "hold", "yield_to_pilot", "engage_rtl", "engage_land", "engage_kill", "abstain_uncertain"}
	if len(Kinds()) != len(names) {
		t.Fatalf("%d kinds, want %d", len(Kinds()), len(names))
	}
	for i, n := range names {
		k, err := ParseKind(n)
		if err != nil || k != Kind(i) || k.String() != n || !k.Valid() {
			t.Errorf("kind %d %q: parsed %v %v, String %q", i, n, k, err, k.String())
		}
	}
	if Kind(7).Valid() || Kind(7).String() != "kind(7)" {
		t.Errorf("kind 7 must be outside the catalog")
	}
	if _, err := ParseKind("PROCEED"); err == nil {
		t.Errorf("ParseKind accepts upper case")
	}
	if Worst() != LevelKnown || Worst(LevelUncertain, LevelKnown) != LevelUncertain || Worst(LevelKnown, LevelUnknown, LevelUncertain) != LevelUnknown {
		t.Errorf("Worst ordering broken")
	}
}

func TestDecisionAndRationaleValidate(t *testing.T) {
	goodSHA := strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		edit  func(*Rationale)
		field string
	}{
		{"valid", func(*Rationale) {}, ""},
		{"valid without assessment", func(r *Rationale) { r.SelfAssessmentSHA256 = "" }, ""},
		{"kind outside catalog", func(r *Rationale) { r.Decision.Kind = 7 }, "kind"},
		{"negative decision stamp", func(r *Rationale) { r.Decision.DecisionStampSimNs = -1; r.BeliefStampSimNs = -1 }, "decision_stamp_sim_ns"},
		{"reason upper case", func(r *Rationale) { r.Decision.Reason = "Overall" }, "reason"},
		{"reason empty", func(r *Rationale) { r.Decision.Reason = "" }, "reason"},
		{"reason too long", func(r *Rationale) { r.Decision.Reason = strings.Repeat("a", 65) }, "reason"},
		{"decision schema", func(r *Rationale) { r.Decision.SchemaVersion = 2 }, "schema_version"},
		{"stamp mismatch", func(r *Rationale) { r.BeliefStampSimNs = 11 }, "belief_stamp_sim_ns"},
		{"sha upper case", func(r *Rationale) { r.SelfAssessmentSHA256 = strings.ToUpper(goodSHA) }, "self_assessment_sha256"},
		{"policy id", func(r *Rationale) { r.PolicyID = "1policy" }, "policy_id"},
		{"rationale schema", func(r *Rationale) { r.SchemaVersion = 0 }, "schema_version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Rationale{
				Decision:             Decision{Kind: KindHold, DecisionStampSimNs: 10, Reason: "overall_uncertain", SchemaVersion: 1},
				BeliefStampSimNs:     10,
				SelfAssessmentSHA256: goodSHA,
				PolicyID:             ReferencePolicyID,
				SchemaVersion:        1,
			}
			tt.edit(&r)
			err := r.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestStatusValidate(t *testing.T) {
	goal := &Goal{HasPosition: true, PositionENU: [3]float64{1, 2, 3}, YawRad: math.NaN(), MetadataJSON: "{}"}
	tests := []struct {
		name  string
		err   error
		field string
	}{
		{"flight ok", FlightStatus{Mode: FlightModeOffboard, BatteryV: 12.6, BatteryPct: 0.8}.Validate(), ""},
		{"flight unknown battery", FlightStatus{BatteryV: math.NaN(), BatteryPct: math.NaN()}.Validate(), ""},
		{"flight mode", FlightStatus{Mode: 7, BatteryPct: math.NaN()}.Validate(), "flight_mode"},
		{"battery above 1", FlightStatus{BatteryPct: 1.01}.Validate(), "battery_pct"},
		{"battery negative", FlightStatus{BatteryPct: -0.1}.Validate(), "battery_pct"},
		{"battery voltage inf", FlightStatus{BatteryV: math.Inf(1)}.Validate(), "battery_v"},
		{"mission ok", MissionStatus{Mode: MissionModeNavigate, Goal: goal, Progress: 0.5, StartedSimNs: 0}.Validate(), ""},
		{"mission mode", MissionStatus{Mode: 6, StartedSimNs: -1}.Validate(), "mode"},
		{"progress nan", MissionStatus{Progress: math.NaN(), StartedSimNs: -1}.Validate(), "progress"},
		{"progress above 1", MissionStatus{Progress: 2, StartedSimNs: -1}.Validate(), "progress"},
		{"started before -1", MissionStatus{StartedSimNs: -2}.Validate(), "started_sim_ns"},
		{"goal metadata not object", MissionStatus{StartedSimNs: -1, Goal: &Goal{YawRad: math.NaN(), MetadataJSON: "[]"}}.Validate(), "metadata_json"},
		{"goal position nan", MissionStatus{StartedSimNs: -1, Goal: &Goal{HasPosition: true, PositionENU: [3]float64{math.NaN()}, MetadataJSON: "{}"}}.Validate(), "position_enu_m[0]"},
		{"goal yaw inf", MissionStatus{StartedSimNs: -1, Goal: &Goal{YawRad: math.Inf(-1), MetadataJSON: "{}"}}.Validate(), "yaw_rad"},
		{"perception ok", PerceptionReport{StampSimNs: 0, Mode: PerceptionDead}.Validate(), ""},
		{"perception mode", PerceptionReport{Mode: 8}.Validate(), "mode"},
		{"perception stamp", PerceptionReport{StampSimNs: -3}.Validate(), "stamp_sim_ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.field == "" {
				if tt.err != nil {
					t.Fatal(tt.err)
				}
				return
			}
			wantInvalid(t, tt.err, tt.field)
		})
	}
}

func TestBeliefValidateAndEqual(t *testing.T) {
	base := func() Belief {
		return Belief{
			StampSimNs: 5, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: diagCovariance([9]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}),
			Flight:  FlightStatus{BatteryV: math.NaN(), BatteryPct: math.NaN()},
			Mission: MissionStatus{StartedSimNs: NotStarted},
		}
	}
	tests := []struct {
		name  string
		edit  func(*Belief)
		field string
	}{
		{"valid", func(*Belief) {}, ""},
		{"no covariance", func(b *Belief) { b.Covariance = nil }, ""},
		{"quaternion within tolerance", func(b *Belief) { b.OrientationQ[0] = 1.0009 }, ""},
		{"zero quaternion", func(b *Belief) { b.OrientationQ = [4]float64{} }, "orientation_q"},
		{"nan quaternion", func(b *Belief) { b.OrientationQ[2] = math.NaN() }, "orientation_q"},
		{"covariance length", func(b *Belief) { b.Covariance = b.Covariance[:1] }, "covariance_15x15"},
		{"covariance nan is the assessor's to classify", func(b *Belief) { b.Covariance[16] = math.NaN() }, ""},
		{"negative stamp", func(b *Belief) { b.StampSimNs = -1 }, "stamp_sim_ns"},
		{"flight", func(b *Belief) { b.Flight.Mode = 200 }, "flight_mode"},
		{"mission", func(b *Belief) { b.Mission.Progress = -1 }, "progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base()
			tt.edit(&b)
			err := b.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
	a, b := base(), base()
	if !a.Equal(&b) {
		t.Fatal("equal beliefs differ")
	}
	b.Covariance = append([]float64(nil), b.Covariance...)
	b.Covariance[224] = 2
	if a.Equal(&b) {
		t.Fatal("different covariance compares equal")
	}
	c := base()
	c.Mission.Goal = &Goal{MetadataJSON: "{}"}
	if a.Equal(&c) {
		t.Fatal("goal presence ignored")
	}
}

func TestReferencePolicyTable(t *testing.T) {
	tests := []struct {
		name        string
		level       *Level
		calibrated  *Level
		wantKind    Kind
		wantReason  string
		wantHashSet bool
	}{
		{"no assessment", nil, nil, KindAbstainUncertain, ReasonNoAssessment, false},
		{"known", lvl(LevelKnown), nil, KindProceed, ReasonOverallKnown, true},
		{"uncertain", lvl(LevelUncertain), nil, KindHold, ReasonOverallUncertain, true},
		{"unknown", lvl(LevelUnknown), nil, KindAbstainUncertain, ReasonOverallUnknown, true},
		{"calibration overrides", lvl(LevelKnown), lvl(LevelUnknown), KindAbstainUncertain, ReasonOverallUnknown, true},
		{"calibration without assessment", nil, lvl(LevelUncertain), KindHold, ReasonOverallUncertain, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := neutralContext(99)
			if tt.level != nil {
				a := validAssessment(t, 99, *tt.level)
				c.SelfAssessment = &a
			}
			if tt.calibrated != nil {
				c.Calibration = &Calibration{AdjustedOverallLevel: *tt.calibrated, AdjustmentPolicyID: "cal_v1", AdjustmentReason: "r", History: CalibrationHistory{SchemaVersion: 1}}
			}
			d, r, err := DecideWithRationale(ReferencePolicy{}, c, c.SelfAssessmentSHA256())
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tt.wantKind || d.Reason != tt.wantReason || d.DecisionStampSimNs != 99 {
				t.Fatalf("got %v", d)
			}
			if (r.SelfAssessmentSHA256 != "") != tt.wantHashSet {
				t.Fatalf("hash %q, want set=%v", r.SelfAssessmentSHA256, tt.wantHashSet)
			}
			if c.SelfAssessment != nil && r.SelfAssessmentSHA256 != c.SelfAssessment.SHA256() {
				t.Fatal("rationale hash is not the assessment's")
			}
			if r.Decision != d || r.BeliefStampSimNs != 99 || r.PolicyID != ReferencePolicyID {
				t.Fatalf("rationale %+v does not bind %v", r, d)
			}
		})
	}
}

func lvl(l Level) *Level { return &l }

type stubPolicy struct {
	id  string
	d   Decision
	err error
}

func (p stubPolicy) ID() string                       { return p.id }
func (p stubPolicy) Decide(Context) (Decision, error) { return p.d, p.err }

func TestDecideWithRationaleRejectsBadPolicyOutput(t *testing.T) {
	ok := Decision{Kind: KindHold, DecisionStampSimNs: 3, Reason: "why", SchemaVersion: 1}
	withAssessment := func() Context {
		c := neutralContext(3)
		a := validAssessment(t, 3, LevelKnown)
		c.SelfAssessment = &a
		return c
	}
	tests := []struct {
		name string
		p    Policy
		ctx  Context
		hash func(c Context) string // nil: the context's own
		want string
	}{
		{"policy error", stubPolicy{"p", ok, errors.New("boom")}, neutralContext(3), nil, "boom"},
		{"wrong stamp", stubPolicy{"p", Decision{Kind: KindHold, DecisionStampSimNs: 4, Reason: "why", SchemaVersion: 1}, nil}, neutralContext(3), nil, "decision_stamp_sim_ns"},
		{"bad reason", stubPolicy{"p", Decision{Kind: KindHold, DecisionStampSimNs: 3, Reason: "Why", SchemaVersion: 1}, nil}, neutralContext(3), nil, "reason"},
		{"bad policy id", stubPolicy{"P", ok, nil}, neutralContext(3), nil, "policy_id"},
		{"context stamp", stubPolicy{"p", ok, nil}, neutralContext(-3), nil, "belief_stamp_sim_ns"},
		{"assessment for another stamp", stubPolicy{"p", ok, nil}, func() Context {
			c := neutralContext(3)
			a := validAssessment(t, 4, LevelKnown)
			c.SelfAssessment = &a
			return c
		}(), nil, "self_assessment.belief_stamp_sim_ns"},
		{"hash handed in without an assessment", stubPolicy{"p", ok, nil}, neutralContext(3),
			func(Context) string { return strings.Repeat("a", 64) }, "self_assessment_sha256"},
		{"no hash handed in for an assessment", stubPolicy{"p", ok, nil}, withAssessment(),
			func(Context) string { return "" }, "self_assessment_sha256"},
		{"a hash that is not hex", stubPolicy{"p", ok, nil}, withAssessment(),
			func(Context) string { return "sha" }, "self_assessment_sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := tt.ctx.SelfAssessmentSHA256()
			if tt.hash != nil {
				hash = tt.hash(tt.ctx)
			}
			_, _, err := DecideWithRationale(tt.p, tt.ctx, hash)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
	if _, err := LookupPolicy("nope"); !errors.Is(err, ErrUnknownPolicy) {
		t.Fatalf("LookupPolicy: %v", err)
	}
	if p, err := LookupPolicy(ReferencePolicyID); err != nil || p.ID() != ReferencePolicyID {
		t.Fatalf("LookupPolicy reference: %v", err)
	}
}

func FuzzSelfAssessmentValidate(f *testing.F) {
	f.Add(int64(0), uint8(0), uint8(1), uint8(2), "abc", uint8(1), 0.5, 2.0, 0.1)
	f.Add(int64(-1), uint8(3), uint8(255), uint8(0), "", uint8(0), math.NaN(), math.Inf(1), math.Copysign(0, -1))
	f.Fuzz(func(t *testing.T, stamp int64, l1, l2, l3 uint8, sha string, schema uint8, k, u, std float64) {
		a := SelfAssessment{BeliefStampSimNs: stamp, ThresholdsSHA256: sha, SchemaVersion: schema}
		a.ThresholdsUsed = Thresholds{k, u, k, u, k, u, schema}
		for i := range a.Std {
			a.Std[i] = std
			a.AxisLevel[i] = Level(l1)
		}
		a.BlockLevel = [3]Level{Level(l2), Level(l2), Level(l2)}
		a.OverallLevel = Level(l3)
		if err := a.Validate(); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("validation error without ErrInvalid: %v", err)
			}
			return
		}
		_ = a.Consistency()
		if h := a.SHA256(); !isSHA256Hex(h) {
			t.Fatalf("hash %q", h)
		}
	})
}

// TestGoalMetadataRememberedValid checks that remembering the last valid
// metadata text never lets another text through: each is judged on its own
// whatever came before it.
func TestGoalMetadataRememberedValid(t *testing.T) {
	for _, tc := range []struct {
		meta string
		ok   bool
	}{
		{`{"waypoint":"home"}`, true},
		{`{"waypoint":"home"}`, true},
		{`{"waypoint":"home"`, false},
		{`{"waypoint":"home"}`, true},
		{`["waypoint","home"]`, false},
		{`{"waypoint":"orbit"}`, true},
		{``, false},
		{` {}`, true},
		{`{} x`, false},
	} {
		err := Goal{YawRad: math.NaN(), MetadataJSON: tc.meta}.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("metadata %q: error %v, want valid %v", tc.meta, err, tc.ok)
		}
	}
}
