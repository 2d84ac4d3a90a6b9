package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// vector is the part of a golden self-assessment vector the reference
// policy test needs.
type vector struct {
	ID         string          `json:"id"`
	Stamp      json.Number     `json:"belief_stamp_sim_ns"`
	Assessment map[string]any  `json:"assessment"`
	Calibrated map[string]any  `json:"calibrated"`
	Reference  vectorDecision  `json:"reference_decision"`
	Raw        json.RawMessage `json:"-"`
}

type vectorDecision struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

func readVectors(t *testing.T, path string) []vector {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var v vector
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", path)
	}
	return out
}

func jnum(t *testing.T, v any) float64 {
	t.Helper()
	if v == nil {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(v.(json.Number).String(), 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func jint(t *testing.T, v any) int64 {
	t.Helper()
	i, err := strconv.ParseInt(v.(json.Number).String(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func jlevel(t *testing.T, v any) decisions.Level {
	t.Helper()
	l, err := decisions.ParseLevel(v.(string))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// context builds the vector's decision context, field by field from its
// JSON, at the given stamp (the assessment is re-stamped to match).
func (v vector) context(t *testing.T, stamp int64) decisions.Context {
	t.Helper()
	c := decisions.Context{
		BeliefStampSimNs: stamp,
		Flight:           decisions.FlightStatus{BatteryPct: math.NaN(), BatteryV: math.NaN()},
		Mission:          decisions.MissionStatus{StartedSimNs: decisions.NotStarted},
	}
	if m := v.Assessment; m != nil {
		th := m["thresholds_used"].(map[string]any)
		a := &decisions.SelfAssessment{
			BeliefStampSimNs: stamp,
			ThresholdsUsed: decisions.Thresholds{
				PositionKnownStdM: jnum(t, th["position_known_std_m"]), PositionUnknownStdM: jnum(t, th["position_unknown_std_m"]),
				VelocityKnownStdMps: jnum(t, th["velocity_known_std_mps"]), VelocityUnknownStdMps: jnum(t, th["velocity_unknown_std_mps"]),
				OrientationKnownStdRad: jnum(t, th["orientation_known_std_rad"]), OrientationUnknownStdRad: jnum(t, th["orientation_unknown_std_rad"]),
				SchemaVersion: uint8(jint(t, th["schema_version"])),
			},
			ThresholdsSHA256:    m["thresholds_sha256"].(string),
			CovarianceAvailable: m["covariance_available"].(bool),
			SchemaVersion:       uint8(jint(t, m["schema_version"])),
			OverallLevel:        jlevel(t, m["overall_level"]),
		}
		units := []string{"m", "mps", "rad"}
		for b, block := range []string{"position", "velocity", "orientation"} {
			a.BlockLevel[b] = jlevel(t, m[block+"_overall_level"])
			for x, axis := range []string{"x", "y", "z"} {
				a.Std[3*b+x] = jnum(t, m[block+"_axis_"+axis+"_std_"+units[b]])
				a.AxisLevel[3*b+x] = jlevel(t, m[block+"_axis_"+axis+"_level"])
			}
		}
		c.SelfAssessment = a
	}
	if m := v.Calibrated; m != nil {
		h := m["calibration_history"].(map[string]any)
		c.Calibration = &decisions.Calibration{
			AdjustedOverallLevel: jlevel(t, m["adjusted_overall_level"]),
			AdjustmentPolicyID:   m["adjustment_policy_id"].(string),
			AdjustmentReason:     m["adjustment_reason"].(string),
			History:              decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: uint8(jint(t, h["schema_version"]))},
		}
	}
	return c
}

// sameAsReference decides c with rule policy p and with the built-in
// reference, and fails unless both give the same decision and rationale
// except for the policy id.
func sameAsReference(t *testing.T, p decisions.Policy, c decisions.Context) decisions.Decision {
	t.Helper()
	want, wantR, err := decisions.DecideWithRationale(decisions.ReferencePolicy{}, c, c.SelfAssessmentSHA256())
	if err != nil {
		t.Fatal(err)
	}
	got, gotR, err := decisions.DecideWithRationale(p, c, c.SelfAssessmentSHA256())
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("rule policy decided %v, reference %v", got, want)
	}
	if gotR.PolicyID == wantR.PolicyID {
		t.Fatalf("policy id %q equals the reference's", gotR.PolicyID)
	}
	gotR.PolicyID = wantR.PolicyID
	if gotR != wantR {
		t.Fatalf("rationale %+v, reference %+v", gotR, wantR)
	}
	return got
}

func checkVectors(t *testing.T, vs []vector) {
	p := shippedPolicy(t, "reference_v1.yaml")
	seen := map[string]int{}
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			stamp, err := strconv.ParseInt(v.Stamp.String(), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			d := sameAsReference(t, p.NewInstance(), v.context(t, stamp))
			if d.Kind.String() != v.Reference.Kind || d.Reason != v.Reference.Reason {
				t.Fatalf("decided %v, the vector's reference decision is %s/%s", d, v.Reference.Kind, v.Reference.Reason)
			}
			seen[d.Reason]++
		})
	}
	for _, r := range []string{"no_assessment", "overall_unknown", "overall_uncertain", "overall_known"} {
		if seen[r] == 0 {
			t.Errorf("no vector reached %s", r)
		}
	}
}

// reference_v1.yaml reproduces the reference on every golden vector.
func TestReferenceV1GoldenVectors(t *testing.T) {
	checkVectors(t, readVectors(t, golden.Path(t, "self_assessment_vectors.jsonl")))
}

// The sample flight recording was built from golden vectors (its expected
// decisions name them): one instance decides its contexts in stamp order,
// as a session would, and must give the recorded reference decisions.
func TestReferenceV1SampleFlight(t *testing.T) {
	_, expected := golden.SampleFlight(t)
	f, err := os.Open(golden.Path(t, "bags", "sample_flight.expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[string]vector{}
	for _, v := range readVectors(t, golden.Path(t, "self_assessment_vectors.jsonl")) {
		byID[v.ID] = v
	}
	p := shippedPolicy(t, "reference_v1.yaml")
	sc := bufio.NewScanner(f)
	i := 0
	for sc.Scan() {
		var line struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if i >= len(expected) {
			t.Fatal("more lines than expected decisions")
		}
		want := expected[i]
		v, ok := byID[line.ID]
		if !ok {
			t.Fatalf("line %d names vector %q, not in the golden set", i, line.ID)
		}
		d := sameAsReference(t, p, v.context(t, want.Stamp))
		if uint8(d.Kind) != want.Kind || d.Reason != want.Reason || d.DecisionStampSimNs != want.Stamp {
			t.Fatalf("stamp %d: decided %v, recorded %+v", want.Stamp, d, want)
		}
		i++
	}
	if i != len(expected) || i == 0 {
		t.Fatalf("%d decisions checked, %d expected", i, len(expected))
	}
}

// Every combination of assessment presence, overall level, inconsistent
// block levels and calibration decides as the reference.
func TestReferenceV1EveryBranch(t *testing.T) {
	p := shippedPolicy(t, "reference_v1.yaml")
	th := caseThresholds
	levels := []decisions.Level{decisions.LevelKnown, decisions.LevelUncertain, decisions.LevelUnknown}
	reasons := map[string]bool{}
	stamp := int64(0)
	for hasA := 0; hasA < 2; hasA++ {
		for _, overall := range levels {
			for _, blocks := range levels {
				for cal := -1; cal < 3; cal++ {
					c := decisions.Context{
						BeliefStampSimNs: stamp,
						Flight:           decisions.FlightStatus{Armed: stamp%2 == 0, BatteryPct: 0.5, BatteryV: math.NaN()},
						Mission:          decisions.MissionStatus{StartedSimNs: decisions.NotStarted},
					}
					if hasA == 1 {
						a := &decisions.SelfAssessment{BeliefStampSimNs: stamp, ThresholdsUsed: th, ThresholdsSHA256: th.SHA256(),
							OverallLevel: overall, SchemaVersion: 1}
						for i := range a.AxisLevel {
							a.AxisLevel[i] = blocks
						}
						a.BlockLevel = [3]decisions.Level{blocks, blocks, blocks}
						c.SelfAssessment = a
					}
					if cal >= 0 {
						c.Calibration = &decisions.Calibration{AdjustedOverallLevel: decisions.Level(cal), AdjustmentPolicyID: "cal", AdjustmentReason: "r",
							History: decisions.CalibrationHistory{SchemaVersion: 1}}
					}
					// One instance over the whole sequence: the reference has no
					// state, so neither may reference_v1's decisions.
					d := sameAsReference(t, p, c)
					reasons[d.Reason] = true
					stamp += 1000
				}
			}
		}
	}
	if len(reasons) != 4 {
		t.Fatalf("reached reasons %v, want all four", reasons)
	}
}
