package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

type goldenLine struct {
	ID               string      `json:"id"`
	Source           string      `json:"source"`
	BeliefStampSimNs json.Number `json:"belief_stamp_sim_ns"`
	Input            *struct {
		CovariancePresent bool     `json:"covariance_present"`
		Diag              []string `json:"covariance_diag_0_8"`
	} `json:"input"`
	Assessment *struct {
		ThresholdsUsed map[string]json.Number `json:"thresholds_used"`
	} `json:"assessment"`
	Calibrated          json.RawMessage `json:"calibrated"`
	SHA256              *string         `json:"sha256"`
	RationaleRecordJSON string          `json:"rationale_record_json"`
}

// TestGoldenThroughLoopAndRunner sends every reference vector that the
// classifier can produce (and every context without assessment) through a
// Loop, the Runner's provenance checks and a jsonLinesSink, and compares
// the line written with the reference's rationale record, byte for byte.
func TestGoldenThroughLoopAndRunner(t *testing.T) {
	f, err := os.Open(golden.Path(t, "self_assessment_vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	checked := map[string]int{}
	for sc.Scan() {
		var v goldenLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if string(v.Calibrated) != "null" || (v.Source != "assess_belief" && v.Source != "none") {
			continue // calibration and hand-built assessments are not the Loop's inputs
		}
		t.Run(v.ID, func(t *testing.T) {
			stamp, err := strconv.ParseInt(v.BeliefStampSimNs.String(), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			evs := []engine.Event{engine.BeliefEvent{ArrivalNs: 0, Belief: belief(stamp)}}
			if v.Source == "assess_belief" {
				a := goldenAssessment(t, stamp, &v)
				if got := a.SHA256(); got != *v.SHA256 {
					t.Fatalf("rebuilt assessment hashes to %s, want %s", got, *v.SHA256)
				}
				evs = append(evs, engine.AssessmentEvent{ArrivalNs: 1, Assessment: a})
			} else {
				evs = append(evs, engine.EndEvent{ArrivalNs: 1})
			}
			var buf bytes.Buffer
			r := NewRunner(RunnerOptions{ExpectedPolicyID: decisions.ReferencePolicyID})
			mustRegister(t, r, "jsonl", newJSONLinesSink(&buf))
			l := mustLoop(t, engine.LoopOptions{})
			var out engine.Output
			for _, ev := range evs {
				if err := l.Step(ev, &out); err != nil {
					t.Fatal(err)
				}
				if err := r.Handle(&out); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := buf.String(), v.RationaleRecordJSON+"\n"; got != want {
				t.Errorf("published\n%s\nwant\n%s", got, want)
			}
			checked[v.Source]++
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked["assess_belief"] == 0 || checked["none"] == 0 {
		t.Errorf("vectors checked: %v; want both sources", checked)
	}
}

// goldenAssessment runs the classifier on the vector's covariance diagonal
// (the bias entries 9 to 14 never matter) and thresholds.
func goldenAssessment(t *testing.T, stamp int64, v *goldenLine) decisions.SelfAssessment {
	t.Helper()
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("number %q: %v", s, err)
		}
		return f
	}
	var cov []float64
	if v.Input.CovariancePresent {
		cov = make([]float64, decisions.CovarianceLen)
		for i := 9; i < decisions.CovarianceDim; i++ {
			cov[i*decisions.CovarianceDim+i] = 1e-6
		}
		for i, s := range v.Input.Diag {
			cov[i*decisions.CovarianceDim+i] = num(s)
		}
	}
	th := v.Assessment.ThresholdsUsed
	thresholds := decisions.Thresholds{
		PositionKnownStdM:        num(th["position_known_std_m"].String()),
		PositionUnknownStdM:      num(th["position_unknown_std_m"].String()),
		VelocityKnownStdMps:      num(th["velocity_known_std_mps"].String()),
		VelocityUnknownStdMps:    num(th["velocity_unknown_std_mps"].String()),
		OrientationKnownStdRad:   num(th["orientation_known_std_rad"].String()),
		OrientationUnknownStdRad: num(th["orientation_unknown_std_rad"].String()),
		SchemaVersion:            uint8(num(th["schema_version"].String())),
	}
	a, err := decisions.Assess(stamp, cov, thresholds)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
