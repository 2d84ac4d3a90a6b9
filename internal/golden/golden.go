// Package golden finds, for tests, the vectors that independent
// implementations computed (shared/golden beside the repository root) and
// reads the ones several packages use. Tests skip, with a message saying
// where they looked, when the folder is absent. It is for tests only and
// never changes the vectors.
package golden

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Find returns <repo>/../shared/golden, where <repo> is the nearest
// ancestor of the working directory holding go.mod, and whether that folder
// exists. Where it is not, the path says where it was looked for.
func Find() (string, bool) {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "shared/golden", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			g := filepath.Join(dir, "..", "shared", "golden")
			st, err := os.Stat(g)
			return g, err == nil && st.IsDir()
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "shared/golden beside the repository root (go.mod not found)", false
		}
		dir = parent
	}
}

// Dir returns the golden directory (see Find), skipping t when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	g, ok := Find()
	if !ok {
		t.Skipf("golden vectors not found at %s: skipping", g)
	}
	return g
}

// Path returns a file below the golden directory (skipping like Dir).
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, elem...)...)
}

// Decision is one line of bags/sample_flight.expected.jsonl: the reference
// decision for one belief stamp of bags/sample_flight.mcap.
type Decision struct {
	Stamp                int64
	Kind                 uint8 // Decision.msg KIND_*
	Reason               string
	PolicyID             string
	SelfAssessmentSHA256 string // "" when decided without assessment
}

// Matches reports whether a recorded rationale holds exactly this decision.
// (Plain values, so that the contracts package can use this one in its own
// tests.)
func (d Decision) Matches(beliefStamp, decisionStamp int64, kind uint8, reason, policyID, sha string) bool {
	return beliefStamp == d.Stamp && decisionStamp == d.Stamp && kind == d.Kind &&
		reason == d.Reason && policyID == d.PolicyID && sha == d.SelfAssessmentSHA256
}

// SampleFlight returns the path of bags/sample_flight.mcap and the reference
// decisions for it, in stamp order.
func SampleFlight(t testing.TB) (recording string, expected []Decision) {
	t.Helper()
	f, err := os.Open(Path(t, "bags", "sample_flight.expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Stamp                string  `json:"stamp"`
			Kind                 uint8   `json:"kind"`
			Reason               string  `json:"reason"`
			PolicyID             string  `json:"policy_id"`
			SelfAssessmentSHA256 *string `json:"self_assessment_sha256"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("sample_flight.expected.jsonl: %v", err)
		}
		stamp, err := strconv.ParseInt(line.Stamp, 10, 64)
		if err != nil {
			t.Fatalf("sample_flight.expected.jsonl: stamp %q: %v", line.Stamp, err)
		}
		d := Decision{Stamp: stamp, Kind: line.Kind, Reason: line.Reason, PolicyID: line.PolicyID}
		if line.SelfAssessmentSHA256 != nil {
			d.SelfAssessmentSHA256 = *line.SelfAssessmentSHA256
		}
		expected = append(expected, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(expected) == 0 {
		t.Fatal("sample_flight.expected.jsonl holds no decision")
	}
	return Path(t, "bags", "sample_flight.mcap"), expected
}

// CDRVector is one line of cdr/<Type>.jsonl: a message as JSON and the CDR
// bytes rmw_cyclonedds serializes it to.
type CDRVector struct {
	// Name is "<Type>#<line>".
	Name string
	// Type is the schema name, "ghost/msg/<Type>".
	Type string
	// Message is the vector's JSON (int64/uint64 as decimal strings,
	// non-finite and negative-zero floats as strings).
	Message json.RawMessage
	CDR     []byte
}

// CDRVectors reads cdr/<name>.jsonl for each of names (type names without
// package, as msg.Names gives them), failing t on a missing file or a
// malformed line.
func CDRVectors(t testing.TB, names []string) []CDRVector {
	t.Helper()
	var out []CDRVector
	for _, name := range names {
		data, err := os.ReadFile(Path(t, "cdr", name+".jsonl"))
		if err != nil {
			t.Fatalf("golden vectors of %s: %v", name, err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var v struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
				CDRHex  string          `json:"cdr_hex"`
			}
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s line %d: %v", name, i+1, err)
			}
			b, err := hex.DecodeString(v.CDRHex)
			if err != nil {
				t.Fatalf("%s line %d: cdr_hex: %v", name, i+1, err)
			}
			out = append(out, CDRVector{Name: fmt.Sprintf("%s#%d", name, i+1), Type: v.Type, Message: v.Message, CDR: b})
		}
	}
	if len(out) == 0 {
		t.Fatal("no golden CDR vectors")
	}
	return out
}
