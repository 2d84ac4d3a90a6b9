package decisions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
)

type goldenVector struct {
	ID                      string          `json:"id"`
	Tags                    []string        `json:"tags"`
	Source                  string          `json:"source"`
	BeliefStampSimNs        json.Number     `json:"belief_stamp_sim_ns"`
	Input                   *goldenInput    `json:"input"`
	Assessment              map[string]any  `json:"assessment"`
	Calibrated              map[string]any  `json:"calibrated"`
	CanonicalJSON           *string         `json:"canonical_json"`
	SHA256                  *string         `json:"sha256"`
	ThresholdsCanonicalJSON *string         `json:"thresholds_canonical_json"`
	ThresholdsSHA256        *string         `json:"thresholds_sha256"`
	ReferenceDecision       goldenDecision  `json:"reference_decision"`
	RationaleRecordJSON     string          `json:"rationale_record_json"`
	Raw                     json.RawMessage `json:"-"`
}

type goldenInput struct {
	CovariancePresent bool     `json:"covariance_present"`
	CovarianceKind    string   `json:"covariance_kind"`
	Diag              []string `json:"covariance_diag_0_8"`
}

type goldenDecision struct {
	Kind                 string      `json:"kind"`
	Reason               string      `json:"reason"`
	DecisionStampSimNs   json.Number `json:"decision_stamp_sim_ns"`
	PolicyID             string      `json:"policy_id"`
	SelfAssessmentSHA256 *string     `json:"self_assessment_sha256"`
}

// nonstandardTokens quotes Python's bare NaN/Infinity tokens so the strict
// decoder can read python-only lines; values are parsed back by num().
var nonstandardTokens = regexp.MustCompile(`(: |\[|, )(NaN|-Infinity|Infinity)([,}\]])`)

func loadVectors(t *testing.T, name string) []goldenVector {
	t.Helper()
	f, err := os.Open(golden.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := nonstandardTokens.ReplaceAll(sc.Bytes(), []byte(`$1"$2"$3`))
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v goldenVector
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return math.NaN()
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("number %q: %v", x, err)
		}
		return f
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

func integer(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("not an integer: %#v", v)
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func level(t *testing.T, v any) Level {
	t.Helper()
	l, err := ParseLevel(v.(string))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func thresholdsFrom(t *testing.T, m map[string]any) Thresholds {
	return Thresholds{
		PositionKnownStdM:        num(t, m["position_known_std_m"]),
		PositionUnknownStdM:      num(t, m["position_unknown_std_m"]),
		VelocityKnownStdMps:      num(t, m["velocity_known_std_mps"]),
		VelocityUnknownStdMps:    num(t, m["velocity_unknown_std_mps"]),
		OrientationKnownStdRad:   num(t, m["orientation_known_std_rad"]),
		OrientationUnknownStdRad: num(t, m["orientation_unknown_std_rad"]),
		SchemaVersion:            uint8(integer(t, m["schema_version"])),
	}
}

// assessmentFrom builds a SelfAssessment from the vector's JSON object, key by
// key, independently of the canonical writer.
func assessmentFrom(t *testing.T, m map[string]any) *SelfAssessment {
	t.Helper()
	if len(m) != 27 {
		t.Fatalf("assessment has %d keys, want the 27 fields of BeliefSelfAssessment", len(m))
	}
	a := &SelfAssessment{
		BeliefStampSimNs:    integer(t, m["belief_stamp_sim_ns"]),
		ThresholdsUsed:      thresholdsFrom(t, m["thresholds_used"].(map[string]any)),
		ThresholdsSHA256:    m["thresholds_sha256"].(string),
		CovarianceAvailable: m["covariance_available"].(bool),
		SchemaVersion:       uint8(integer(t, m["schema_version"])),
		OverallLevel:        level(t, m["overall_level"]),
	}
	units := []string{"m", "mps", "rad"}
	for b, block := range []string{"position", "velocity", "orientation"} {
		a.BlockLevel[b] = level(t, m[block+"_overall_level"])
		for x, axis := range []string{"x", "y", "z"} {
			a.Std[3*b+x] = num(t, m[block+"_axis_"+axis+"_std_"+units[b]])
			a.AxisLevel[3*b+x] = level(t, m[block+"_axis_"+axis+"_level"])
		}
	}
	return a
}

func calibrationFrom(t *testing.T, m map[string]any) *Calibration {
	if m == nil {
		return nil
	}
	h := m["calibration_history"].(map[string]any)
	mostRecent := int64(-1)
	if h["most_recent_observed_stamp_sim_ns"] != nil {
		mostRecent = integer(t, h["most_recent_observed_stamp_sim_ns"])
	}
	return &Calibration{
		AdjustedOverallLevel: level(t, m["adjusted_overall_level"]),
		AdjustmentPolicyID:   m["adjustment_policy_id"].(string),
		AdjustmentReason:     m["adjustment_reason"].(string),
		History: CalibrationHistory{
			CountWithin1Std:              integer(t, h["count_within_1_std"]),
			CountBeyond1Std:              integer(t, h["count_beyond_1_std"]),
			CountBeyond3Std:              integer(t, h["count_beyond_3_std"]),
			CountBeyond5Std:              integer(t, h["count_beyond_5_std"]),
			OutcomesConsidered:           integer(t, h["outcomes_considered"]),
			MostRecentObservedStampSimNs: mostRecent,
			WorstPositionMahalanobis:     num(t, h["worst_position_mahalanobis"]),
			WorstOrientationMahalanobis:  num(t, h["worst_orientation_mahalanobis"]),
			SchemaVersion:                uint8(integer(t, h["schema_version"])),
		},
	}
}

// covarianceFrom rebuilds the belief covariance the vector was assessed from:
// the given diagonal 0-8, 1e-6 on the bias diagonal, zeros elsewhere (only
// the diagonal affects the result).
func covarianceFrom(t *testing.T, in *goldenInput) []float64 {
	if !in.CovariancePresent {
		return nil
	}
	cov := make([]float64, CovarianceLen)
	for i := 0; i < CovarianceDim; i++ {
		cov[i*CovarianceDim+i] = 1e-6
	}
	for i, s := range in.Diag {
		cov[i*CovarianceDim+i] = num(t, s)
	}
	return cov
}

func neutralContext(stamp int64) Context {
	return Context{
		BeliefStampSimNs: stamp,
		Flight:           FlightStatus{BatteryV: math.NaN(), BatteryPct: math.NaN()},
		Mission:          MissionStatus{StartedSimNs: NotStarted},
	}
}

func TestGoldenSelfAssessmentVectors(t *testing.T) {
	vectors := loadVectors(t, "self_assessment_vectors.jsonl")
	seen := map[string]int{}
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			stamp, err := strconv.ParseInt(v.BeliefStampSimNs.String(), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			ctx := neutralContext(stamp)
			ctx.Calibration = calibrationFrom(t, v.Calibrated)
			if v.Assessment != nil {
				a := assessmentFrom(t, v.Assessment)
				if err := a.Validate(); err != nil {
					t.Fatalf("reference accepts this assessment, Validate: %v", err)
				}
				if got := string(a.AppendCanonicalJSON(nil)); got != *v.CanonicalJSON {
					t.Fatalf("canonical JSON\n got %s\nwant %s", got, *v.CanonicalJSON)
				}
				if got := a.SHA256(); got != *v.SHA256 {
					t.Fatalf("sha256 = %s, want %s", got, *v.SHA256)
				}
				if got := string(a.ThresholdsUsed.AppendCanonicalJSON(nil)); got != *v.ThresholdsCanonicalJSON {
					t.Fatalf("thresholds canonical JSON\n got %s\nwant %s", got, *v.ThresholdsCanonicalJSON)
				}
				if got := a.ThresholdsUsed.SHA256(); got != *v.ThresholdsSHA256 {
					t.Fatalf("thresholds sha256 = %s, want %s", got, *v.ThresholdsSHA256)
				}
				mismatch := contains(v.Tags, "mismatched_thresholds_sha256")
				if (a.ThresholdsSHA256 != *v.ThresholdsSHA256) != mismatch {
					t.Fatalf("claimed thresholds hash %s vs recomputed %s (tagged mismatch: %v)", a.ThresholdsSHA256, *v.ThresholdsSHA256, mismatch)
				}
				if v.Source == "assess_belief" {
					got, err := Assess(stamp, covarianceFrom(t, v.Input), a.ThresholdsUsed)
					if err != nil {
						t.Fatalf("Assess: %v", err)
					}
					if g, w := string(got.AppendCanonicalJSON(nil)), *v.CanonicalJSON; g != w {
						t.Fatalf("Assess differs from the reference\n got %s\nwant %s", g, w)
					}
					if inc := got.Consistency(); len(inc) != 0 {
						t.Fatalf("Assess output reported inconsistent: %v", inc)
					}
				}
				ctx.SelfAssessment = a
			}
			d, r, err := DecideWithRationale(ReferencePolicy{}, ctx, ctx.SelfAssessmentSHA256())
			if err != nil {
				t.Fatalf("DecideWithRationale: %v", err)
			}
			want := v.ReferenceDecision
			if d.Kind.String() != want.Kind || d.Reason != want.Reason || strconv.FormatInt(d.DecisionStampSimNs, 10) != want.DecisionStampSimNs.String() {
				t.Fatalf("decision %v, want %s/%s@%s", d, want.Kind, want.Reason, want.DecisionStampSimNs)
			}
			wantSHA := ""
			if want.SelfAssessmentSHA256 != nil {
				wantSHA = *want.SelfAssessmentSHA256
			}
			if r.SelfAssessmentSHA256 != wantSHA || r.PolicyID != want.PolicyID {
				t.Fatalf("rationale sha %q policy %q, want %q %q", r.SelfAssessmentSHA256, r.PolicyID, wantSHA, want.PolicyID)
			}
			if got := string(r.AppendCanonicalJSON(nil)); got != v.RationaleRecordJSON {
				t.Fatalf("rationale record\n got %s\nwant %s", got, v.RationaleRecordJSON)
			}
			seen[d.Kind.String()+"/"+d.Reason]++
		})
	}
	// Every branch of the reference policy must have been exercised.
	for _, b := range []string{"proceed/overall_known", "hold/overall_uncertain", "abstain_uncertain/overall_unknown", "abstain_uncertain/no_assessment"} {
		if seen[b] == 0 {
			t.Errorf("no vector reached %s", b)
		}
	}
}

// The python-only vectors hold values a float64 message cannot carry: integer
// literals (Python writes 1, a float64 is 1.0) and NaN standard deviations
// (on the wire NaN means none, written null). This test pins down that those
// are the only differences: normalising the reference's text in exactly those
// two ways gives our bytes.
func TestPythonOnlyVectorsDifferOnlyInUnrepresentableValues(t *testing.T) {
	intLiteral := regexp.MustCompile(`("[a-z_]*_std_(?:m|mps|rad)":)(-?\d+)([,}])`)
	for _, v := range loadVectors(t, "self_assessment_vectors_python_only.jsonl") {
		t.Run(v.ID, func(t *testing.T) {
			if v.Assessment == nil {
				t.Skip("no assessment")
			}
			a := assessmentFrom(t, v.Assessment)
			want := *v.CanonicalJSON
			want = intLiteral.ReplaceAllString(want, "$1$2.0$3")
			want = strings.ReplaceAll(want, ":NaN", ":null")
			if got := string(a.AppendCanonicalJSON(nil)); got != want {
				t.Fatalf("beyond the documented differences\n got %s\nwant %s", got, want)
			}
			if a.SHA256() == *v.SHA256 {
				t.Fatalf("hash equals the Python-only hash, yet the vector is tagged as unrepresentable: %v", v.Tags)
			}
		})
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
