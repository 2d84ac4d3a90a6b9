// Package golden finds, for tests, the vectors that independent
// implementations computed (shared/golden beside the repository root, and
// the CDR vectors ROS 2 serialized for the types that set lacks, embedded
// here) and reads the ones several packages use. The repository keeps no
// copy of the shared set: without it the tests that need it skip, saying
// where they looked, except in CI (CI set in the environment), where they
// fail. It is for tests only and never changes the vectors.
package golden

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// Find returns the golden directory, <repo>/../shared/golden, where <repo>
// is the nearest ancestor of the working directory holding go.mod, and
// whether it exists.
func Find() (string, bool) {
	root, ok := repoRoot()
	if !ok {
		return "shared/golden beside the repository root (go.mod not found)", false
	}
	g := filepath.Join(root, "..", "shared", "golden")
	if st, err := os.Stat(g); err == nil && st.IsDir() {
		return g, true
	}
	return g, false
}

func repoRoot() (string, bool) {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// InCI reports whether the tests run in CI (CI set, and not "false" or
// "0"), where missing golden data fails a test instead of skipping it.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Missing skips t, saying what is missing where, or fails it in CI.
func Missing(t testing.TB, what string) {
	t.Helper()
	const why = "the golden vectors of independent implementations are read from shared/golden beside the repository"
	if InCI() {
		t.Fatalf("%s; %s is missing (CI is set: the cross-implementation checks must run)", why, what)
	}
	t.Skipf("%s; %s is missing: skipped (run with the shared folder beside the repository to check them)", why, what)
}

// Dir returns the golden directory (see Find), skipping t when it is
// absent (failing it in CI).
func Dir(t testing.TB) string {
	t.Helper()
	g, ok := Find()
	if !ok {
		Missing(t, g)
	}
	return g
}

// Path returns a file below the golden directory, skipping t (failing it
// in CI) when it is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Dir(t)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		Missing(t, p)
	}
	return p
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

// rclpyTypes are the ghost message types the shared golden set has no CDR
// vectors for: they were added after it was made. Their vectors were
// serialized by ROS 2 itself (rclpy through the type support colcon builds
// from msg/; rclpy/generate.py) and are embedded here: CDRVectors reads
// them like the shared ones.
var rclpyTypes = []string{"ActionEvidence", "ActionEvidenceItem", "ActionReceipt", "CalibratedSelfAssessment", "CalibrationHistory"}

//go:embed rclpy/*.jsonl
var rclpyVectors embed.FS

// awaitingTypes are ghost message types that no independent implementation
// has serialized yet: rclpy/generate.py lists them, and its next run on ROS
// 2 Humble moves them to rclpyTypes. Until then CDRVectors leaves them out
// and says so, because vectors made by ghost's own codec would prove nothing;
// their codec is covered by round-trip and fuzz tests.
var awaitingTypes = []string{"RecordingSeal", "RecordingSealTopic"}

// AwaitingVectors reports whether the ghost message type name (without
// package) has no independent CDR vectors yet, so CDRVectors leaves it out.
func AwaitingVectors(name string) bool { return slices.Contains(awaitingTypes, name) }

// CDRVectors reads the vectors of each of names (type names without
// package, as msg.Names gives them): the shared set's cdr/<name>.jsonl, or
// ROS 2's own for the types it lacks (named "<Type>#<line> (rclpy)"),
// failing t on a missing file or a malformed line.
func CDRVectors(t testing.TB, names []string) []CDRVector {
	t.Helper()
	var out []CDRVector
	for _, name := range names {
		if slices.Contains(awaitingTypes, name) {
			t.Logf("no golden CDR vectors for %s yet (rclpy/generate.py makes them on ROS 2): skipped", name)
			continue
		}
		var data []byte
		var err error
		label := ""
		if slices.Contains(rclpyTypes, name) {
			data, err = rclpyVectors.ReadFile("rclpy/" + name + ".jsonl")
			label = " (rclpy)"
		} else {
			data, err = os.ReadFile(Path(t, "cdr", name+".jsonl"))
		}
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
			out = append(out, CDRVector{Name: fmt.Sprintf("%s#%d%s", name, i+1, label), Type: v.Type, Message: v.Message, CDR: b})
		}
	}
	if len(out) == 0 {
		t.Fatal("no golden CDR vectors")
	}
	return out
}
