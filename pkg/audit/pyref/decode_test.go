package pyref

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func payload(t testing.TB, name string) []byte {
	t.Helper()
	return readFile(t, filepath.Join("testdata", "payloads", name))
}

// edit replaces the single occurrence of old in seed.
func edit(t testing.TB, seed []byte, old, new string) []byte {
	t.Helper()
	if n := bytes.Count(seed, []byte(old)); n != 1 {
		t.Fatalf("%q occurs %d times in the seed", old, n)
	}
	return bytes.Replace(seed, []byte(old), []byte(new), 1)
}

// errorCase is a payload that must fail at a field and offset; the offset
// is where marker starts in the payload, plus skip.
type errorCase struct {
	name, old, new string
	field          string
	marker         string
	skip           int
	reason         string
}

func checkError(t *testing.T, data []byte, err error, tc errorCase) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrDecode) {
		t.Fatalf("error %v, want a *DecodeError", err)
	}
	want := bytes.Index(data, []byte(tc.marker)) + tc.skip
	if tc.marker == "" {
		want = tc.skip
	}
	if de.Field != tc.field || de.Offset != want || !strings.Contains(de.Reason, tc.reason) {
		t.Errorf("got field %q offset %d reason %q (%v)\nwant field %q offset %d reason containing %q",
			de.Field, de.Offset, de.Reason, err, tc.field, want, tc.reason)
	}
}

func TestDecodeAssessmentErrors(t *testing.T) {
	seed := payload(t, "self_assessment_uncertain.json")
	for _, tc := range []errorCase{
		{"integer std", `"position_axis_x_std_m":0.06999999999999999`, `"position_axis_x_std_m":1`,
			"position_axis_x_std_m", `:1,"position_axis_y`, 1, "float literal"},
		{"integer threshold", `"position_known_std_m":0.05`, `"position_known_std_m":5`,
			"thresholds_used.position_known_std_m", `:5,"position_unknown`, 1, "float literal"},
		{"unknown level", `"velocity_axis_y_level":"known"`, `"velocity_axis_y_level":"sure"`,
			"velocity_axis_y_level", `"sure"`, 0, "known"},
		{"string stamp", `"belief_stamp_sim_ns":2000000000`, `"belief_stamp_sim_ns":"2000000000"`,
			"belief_stamp_sim_ns", `"2000000000"`, 0, "want an integer"},
		{"float stamp", `"belief_stamp_sim_ns":2000000000`, `"belief_stamp_sim_ns":2e9`,
			"belief_stamp_sim_ns", `2e9`, 0, "integer literal"},
		{"stamp overflow", `"belief_stamp_sim_ns":2000000000`, `"belief_stamp_sim_ns":9223372036854775808`,
			"belief_stamp_sim_ns", `9223372036854775808`, 0, "int64"},
		{"float overflow", `"orientation_axis_z_std_rad":0.06999999999999999`, `"orientation_axis_z_std_rad":1e999`,
			"orientation_axis_z_std_rad", `1e999`, 0, "float64 range"},
		{"missing member", `"overall_level":"uncertain",`, ``, "", `{`, 0, `missing member "overall_level"`},
		{"schema version out of range", `"schema_version":1,"thresholds_sha256"`, `"schema_version":256,"thresholds_sha256"`,
			"schema_version", `256`, 0, "0 to 255"},
		{"bool availability", `"covariance_available":true`, `"covariance_available":1`,
			"covariance_available", `:1,`, 1, "true or false"},
		{"NaN literal", `"position_axis_z_std_m":0.06999999999999999`, `"position_axis_z_std_m":NaN`,
			"", `NaN`, 0, "NaN and Infinity"},
		{"negative infinity", `"position_axis_z_std_m":0.06999999999999999`, `"position_axis_z_std_m":-Infinity`,
			"", `-Infinity`, 0, "NaN and Infinity"},
		{"truncated", `"velocity_overall_level":"known"}`, `"velocity_overall_level":"known"`,
			"", "", len(seed) - 1, "unexpected end"},
		{"trailing data", `"velocity_overall_level":"known"}`, `"velocity_overall_level":"known"}}`,
			"", "", len(seed), "extra data"},
		{"thresholds not an object", `"thresholds_used":{`, `"thresholds_used":"x","ignored":{`,
			"thresholds_used", `"x"`, 0, "want an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, seed, tc.old, tc.new)
			_, err := DecodeAssessment(data)
			checkError(t, data, err, tc)
		})
	}
}

func TestDecodeAssessmentForms(t *testing.T) {
	seed := payload(t, "self_assessment_unknown.json")
	base, err := DecodeAssessment(seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new string
		check          func(t *testing.T, a decisions.SelfAssessment)
	}{
		{"null std is NaN and hashes as null", `"position_axis_x_std_m":0.7`, `"position_axis_x_std_m":null`,
			func(t *testing.T, a decisions.SelfAssessment) {
				if !math.IsNaN(a.Std[decisions.BlockPosition*3+decisions.AxisX]) {
					t.Errorf("std %v", a.Std[0])
				}
				if !bytes.Contains(a.AppendCanonicalJSON(nil), []byte(`"position_axis_x_std_m":null`)) {
					t.Errorf("canonical JSON %s", a.AppendCanonicalJSON(nil))
				}
			}},
		{"absent schema versions default to 1", `"schema_version":1,"thresholds_sha256"`, `"thresholds_sha256"`,
			func(t *testing.T, a decisions.SelfAssessment) {
				if a.SHA256() != base.SHA256() {
					t.Error("hash changed")
				}
			}},
		{"unknown members are ignored", `"overall_level":"unknown",`, `"overall_level":"unknown","future":[1,{"a":null}],`,
			func(t *testing.T, a decisions.SelfAssessment) {
				if a.SHA256() != base.SHA256() {
					t.Error("hash changed")
				}
			}},
		{"the last duplicate wins", `"overall_level":"unknown",`, `"overall_level":"unknown","overall_level":"known",`,
			func(t *testing.T, a decisions.SelfAssessment) {
				if a.OverallLevel != decisions.LevelKnown {
					t.Errorf("overall %s", a.OverallLevel)
				}
			}},
		{"whitespace and escapes", `"thresholds_sha256":"`, " \"thresholds_\\u0073ha256\" :\t\"",
			func(t *testing.T, a decisions.SelfAssessment) {
				if a.ThresholdsSHA256 != base.ThresholdsSHA256 || a.SHA256() != base.SHA256() {
					t.Errorf("thresholds hash %q", a.ThresholdsSHA256)
				}
			}},
		{"exponent and trailing zeros parse to the same float", `"velocity_known_std_mps":0.1`, `"velocity_known_std_mps":1.000E-1`,
			func(t *testing.T, a decisions.SelfAssessment) {
				if a.SHA256() != base.SHA256() {
					t.Error("hash changed")
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := DecodeAssessment(edit(t, seed, tc.old, tc.new))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, a)
		})
	}
}

func TestDecodeBelief(t *testing.T) {
	seed := payload(t, "vehicle_state_cov2.25.json")
	b, err := DecodeBelief(seed)
	if err != nil {
		t.Fatal(err)
	}
	if b.StampSimNs != 3300000000 || b.OrientationQ != [4]float64{1, 0, 0, 0} || len(b.Covariance) != 225 ||
		b.Covariance[0] != 2.25 || b.Covariance[1] != 0 || b.Covariance[16] != 2.25 || b.Covariance[224] != 2.25 ||
		!b.Flight.Armed || b.Flight.Mode != decisions.FlightModeOffboard || b.Flight.BatteryV != 12 || b.Flight.BatteryPct != 0.9 ||
		b.Mission.Mode != decisions.MissionModeIdle || b.Mission.Goal != nil || b.Mission.StartedSimNs != decisions.NotStarted {
		t.Errorf("belief %+v", b)
	}

	t.Run("forms", func(t *testing.T) {
		data := edit(t, seed, `"battery_pct":0.9,"battery_v":12.0,"error_flags":0`, `"battery_pct":null,"battery_v":12,"error_flags":5`)
		data = edit(t, data, `"current_goal":null,"mode":"idle","progress":0.0,"started_sim_ns":null`,
			`"current_goal":{"metadata":{"name":"wp\u00e91","n":[1,2]},"position_enu_m":{"__array":[1.5,-2.0,3e2],"__dtype":"float64"},"yaw_rad":null},"mode":"navigate","progress":0.25,"started_sim_ns":7`)
		data = edit(t, data, `"orientation_q":{"__array":[1.0,0.0,0.0,0.0]`, `"orientation_q":{"__array":[0.5,0.5,-0.5,0.5]`)
		b, err := DecodeBelief(data)
		if err != nil {
			t.Fatal(err)
		}
		g := b.Mission.Goal
		if !math.IsNaN(b.Flight.BatteryPct) || b.Flight.BatteryV != 12 || b.Flight.ErrorFlags != 5 ||
			b.Mission.Mode != decisions.MissionModeNavigate || b.Mission.Progress != 0.25 || b.Mission.StartedSimNs != 7 ||
			g == nil || !g.HasPosition || g.PositionENU != [3]float64{1.5, -2, 300} || !math.IsNaN(g.YawRad) ||
			g.MetadataJSON != `{"name":"wp\u00e91","n":[1,2]}` || b.OrientationQ != [4]float64{0.5, 0.5, -0.5, 0.5} {
			t.Errorf("belief %+v goal %+v", b, g)
		}
		if err := b.Validate(); err != nil {
			t.Error(err)
		}
	})
	t.Run("no covariance", func(t *testing.T) {
		start := bytes.Index(seed, []byte(`"covariance_15x15":`))
		end := bytes.Index(seed, []byte(`,"imu_biases"`))
		data := append(append(append([]byte{}, seed[:start]...), `"covariance_15x15":null`...), seed[end:]...)
		b, err := DecodeBelief(data)
		if err != nil {
			t.Fatal(err)
		}
		if b.Covariance != nil {
			t.Errorf("covariance %v", b.Covariance)
		}
	})

	for _, tc := range []errorCase{
		{"14 rows", `,[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,2.25]]`, `]`,
			"nav.covariance_15x15.__array", `[[2.25`, 0, "15x15"},
		{"short row", `[0.0,0.0,0.0,2.25,0.0,`, `[0.0,0.0,0.0,2.25,`,
			"nav.covariance_15x15.__array[3]", `[0.0,0.0,0.0,2.25,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0]`, 0, "want 15 elements"},
		{"string element", `[0.0,0.0,0.0,2.25,0.0,`, `[0.0,0.0,0.0,"2.25",0.0,`,
			"nav.covariance_15x15.__array[3][3]", `"2.25"`, 0, "want a number"},
		{"dtype", `"__dtype":"float64"},"imu_biases"`, `"__dtype":"float32"},"imu_biases"`,
			"nav.covariance_15x15.__dtype", `"float32"`, 0, "float64"},
		{"flat array", `"orientation_q":{"__array":[1.0,0.0,0.0,0.0],"__dtype":"float64"}`, `"orientation_q":[1.0,0.0,0.0,0.0]`,
			"nav.pose.orientation_q", `"orientation_q":[`, len(`"orientation_q":`), "want an object"},
		{"quaternion length", `"orientation_q":{"__array":[1.0,0.0,0.0,0.0]`, `"orientation_q":{"__array":[1.0,0.0,0.0]`,
			"nav.pose.orientation_q.__array", `[1.0,0.0,0.0]`, 0, "want 4 elements"},
		{"flight mode", `"flight_mode":"offboard"`, `"flight_mode":"hover"`, "flight.flight_mode", `"hover"`, 0, "catalog"},
		{"negative error flags", `"error_flags":0`, `"error_flags":-1`, "flight.error_flags", `-1`, 0, ">= 0"},
		{"mission mode", `"mode":"idle"`, `"mode":"IDLE"`, "mission.mode", `"IDLE"`, 0, "catalog"},
		{"goal metadata", `"current_goal":null`, `"current_goal":{"metadata":[],"position_enu_m":null,"yaw_rad":0.5}`,
			"mission.current_goal.metadata", `[]`, 0, "want an object"},
		{"missing nav", `"nav":{`, `"navigation":{`, "", `{`, 0, `missing member "nav"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, seed, tc.old, tc.new)
			_, err := DecodeBelief(data)
			checkError(t, data, err, tc)
		})
	}
}

func TestDecodeCalibrated(t *testing.T) {
	raw, cal, err := DecodeCalibrated(payload(t, "calibrated_no_outcomes.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := decisions.Calibration{AdjustedOverallLevel: decisions.LevelKnown, AdjustmentPolicyID: "ewma_downgrade_v1_a050_min3_thr030",
		AdjustmentReason: "no_outcomes_yet", History: decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: 1}}
	if cal != want || raw.BeliefStampSimNs != 1000000000 || raw.Std[0] != 1e-05 {
		t.Errorf("calibration %+v raw %v", cal, raw.AppendCanonicalJSON(nil))
	}
	raw, cal, err = DecodeCalibrated(payload(t, "calibrated_downgrade.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cal.AdjustedOverallLevel != decisions.LevelUncertain || raw.OverallLevel != decisions.LevelKnown ||
		cal.AdjustmentReason != "downgrade_from_calibration" || cal.History.MostRecentObservedStampSimNs != 2000000000 ||
		cal.History.OutcomesConsidered == 0 {
		t.Errorf("calibration %+v", cal)
	}
	seed := payload(t, "calibrated_downgrade.json")
	for _, tc := range []errorCase{
		{"raw assessment std", `"position_axis_x_std_m":0.01`, `"position_axis_x_std_m":true`,
			"raw_assessment.position_axis_x_std_m", `"position_axis_x_std_m":true`, len(`"position_axis_x_std_m":`), "want a number"},
		{"history count", `"outcomes_considered":`, `"outcomes_considered":-0.5,"x":`,
			"calibration_history.outcomes_considered", `-0.5`, 0, "integer literal"},
		{"adjusted level", `"adjusted_overall_level":"uncertain"`, `"adjusted_overall_level":null`,
			"adjusted_overall_level", `null`, 0, "want a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, seed, tc.old, tc.new)
			_, _, err := DecodeCalibrated(data)
			checkError(t, data, err, tc)
		})
	}
}

func TestDecodeRationale(t *testing.T) {
	r, err := DecodeRationale(payload(t, "rationale_no_assessment.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := decisions.Rationale{
		Decision:         decisions.Decision{Kind: decisions.KindAbstainUncertain, DecisionStampSimNs: 3300000000, Reason: "no_assessment", SchemaVersion: 1},
		BeliefStampSimNs: 3300000000, PolicyID: decisions.ReferencePolicyID, SchemaVersion: 1,
	}
	if r != want {
		t.Errorf("rationale %+v", r)
	}
	seed := payload(t, "rationale_proceed.json")
	data := edit(t, seed, `"kind":"proceed"`, `"kind":"fly"`)
	_, err = DecodeRationale(data)
	checkError(t, data, err, errorCase{field: "decision.kind", marker: `"fly"`, reason: "seven decision kinds"})
	if !errors.Is(err, decisions.ErrInvalid) {
		t.Errorf("%v does not wrap the contract's parse error", err)
	}
	data = edit(t, seed, `"self_assessment_sha256":"`, `"self_assessment_sha256":["`)
	_, err = DecodeRationale(data)
	checkError(t, data, err, errorCase{skip: len(data) - 1, reason: "want ',' or ']'"})
}

func TestDecodePerception(t *testing.T) {
	seed := payload(t, "perception_mode_changed.json")
	r, err := DecodePerception(seed)
	if err != nil {
		t.Fatal(err)
	}
	if r != (decisions.PerceptionReport{StampSimNs: 1500000000, Mode: decisions.PerceptionVIOLost}) {
		t.Errorf("report %+v", r)
	}
	data := edit(t, seed, `"to_mode":"vio_lost"`, `"to_mode":"blind"`)
	_, err = DecodePerception(data)
	checkError(t, data, err, errorCase{field: "to_mode", marker: `"blind"`, reason: "catalog"})
}

func TestDecodeSyntax(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
		reason string
	}{
		{``, 0, "unexpected end"},
		{"\xef\xbb\xbf{}", 0, "byte order mark"},
		{`{"a":1} x`, 8, "extra data"},
		{`{"a" 1}`, 5, "want ':'"},
		{`{a:1}`, 1, "member name"},
		{`{"a":01}`, 6, "want ',' or '}'"},
		{`{"a":1.}`, 7, "after the decimal point"},
		{`{"a":1e}`, 7, "exponent"},
		{`{"a":-}`, 6, "want a digit"},
		{"{\"a\":\"x\ny\"}", 7, "control character"},
		{`{"a":"\x"}`, 6, "invalid escape"},
		{`{"a":"\u12G4"}`, 6, "hex digits"},
		{`{"a":"abc`, 5, "unterminated"},
		{`{"a":tru}`, 5, "want a value"},
		{"{\"a\":\"\xff\"}", 6, "not UTF-8"},
		{strings.Repeat("[", 100), 64, "nested too deeply"},
	} {
		_, err := DecodeRationale([]byte(tc.in))
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != tc.offset || !strings.Contains(de.Reason, tc.reason) || de.Field != "" {
			t.Errorf("%q: %v (want offset %d, %q)", tc.in, err, tc.offset, tc.reason)
		}
	}
}

func TestStringEscapes(t *testing.T) {
	p, err := parseJSON([]byte(`["a\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "\ud800x", "plain"]`))
	if err != nil {
		t.Fatal(err.reason)
	}
	var got []string
	for c := p.nodes[0].first; c >= 0; c = p.nodes[c].next {
		got = append(got, p.nodes[c].str)
	}
	want := []string{"a\"\\/\b\f\n\r\t", "é😀", "\ufffdx", "plain"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDecodeErrorText(t *testing.T) {
	data := edit(t, payload(t, "rationale_proceed.json"), `"policy_id":"uncertainty_aware_reference_v1"`, `"policy_id":7`)
	_, err := Decode(ChannelInfo{Topic: "/decisions", MessageEncoding: "json", SchemaName: roles[3].SchemaName}, data)
	want := `/decisions: DecisionRationale.policy_id = 7 at byte ` + strconv.Itoa(bytes.Index(data, []byte(`:7,`))+1) + `: want a string, got a number`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	long := edit(t, payload(t, "rationale_proceed.json"), `"policy_id":"uncertainty_aware_reference_v1"`, `"policy_id":[`+strings.Repeat("1,", 100)+`1]`)
	_, err = DecodeRationale(long)
	if err == nil || len(err.Error()) > 160 || !strings.Contains(err.Error(), "...") {
		t.Errorf("long value not capped: %v", err)
	}
}

func TestRolesAndDetect(t *testing.T) {
	ref := func(topic, schema string) ChannelInfo {
		return ChannelInfo{Topic: topic, MessageEncoding: "json", SchemaName: schema}
	}
	for _, tc := range []struct {
		ch   ChannelInfo
		want Role
	}{
		{ref("/state/nav", "project_ghost.state.messages.VehicleState"), RoleBelief},
		{ref("/self_assessment", "project_ghost.core.uncertainty.self_assessment.BeliefSelfAssessment"), RoleAssessment},
		{ref("/self_assessment/calibrated", "project_ghost.core.feedback.types.CalibratedSelfAssessment"), RoleCalibrated},
		{ref("/decisions", "project_ghost.core.decisions.types.DecisionRationale"), RoleDecision},
		{ref("/perception/mode", "project_ghost.core.uncertainty.mode_events.PerceptionModeChanged"), RolePerception},
		{ref("/renamed", "project_ghost.core.decisions.types.DecisionRationale"), RoleDecision},
		{ref("/decisions", ""), RoleDecision},
		{ref("/decisions", "project_ghost.core.actuation.types.ActuationDirective"), RoleOther},
		{ref("/fusion/results", "project_ghost.core.fusion.types.FusionResult"), RoleOther},
		{ref("/unknown", ""), RoleOther},
		{ChannelInfo{Topic: "/decisions", MessageEncoding: "cdr", SchemaName: "project_ghost.core.decisions.types.DecisionRationale"}, RoleOther},
	} {
		if got := RoleOf(tc.ch); got != tc.want {
			t.Errorf("RoleOf(%+v) = %s, want %s", tc.ch, got, tc.want)
		}
	}
	if len(Roles()) != 5 {
		t.Errorf("%d roles", len(Roles()))
	}
	rosChannels := []ChannelInfo{{Topic: "/decisions", MessageEncoding: "cdr", SchemaName: "ghost/msg/DecisionRationale", SchemaEncoding: "ros2msg"}}
	refChannels := []ChannelInfo{ref("/decisions", "project_ghost.core.decisions.types.DecisionRationale")}
	for _, tc := range []struct {
		library, profile string
		channels         []ChannelInfo
		want             bool
	}{
		{"project_ghost", "", refChannels, true},
		{"project_ghost", "", nil, true},
		{"mcap go v1.9.0", "", refChannels, true},
		{"mcap go v1.9.0", "", rosChannels, false},
		{"project_ghost", "ros2", refChannels, false},
		{"rosbag2", "ros2", rosChannels, false},
		{"", "", []ChannelInfo{{Topic: "/x", MessageEncoding: "protobuf", SchemaName: "project_ghost.x"}}, false},
	} {
		if got := Detect(tc.library, tc.profile, tc.channels); got != tc.want {
			t.Errorf("Detect(%q, %q, %v) = %v", tc.library, tc.profile, tc.channels, got)
		}
	}
	m, err := Decode(ref("/fusion/results", "project_ghost.core.fusion.types.FusionResult"), []byte("not json"))
	if err != nil || m.Role != RoleOther {
		t.Errorf("other channel: %v %v", m.Role, err)
	}
}
