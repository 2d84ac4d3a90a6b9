package engine_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// TestHashAssessmentGoldenVectors hashes every golden self-assessment vector
// of the Python reference in turn through one memo, as a decoder does: each
// hash must be the reference's (the contract's plain writer is pinned to
// the same vectors in pkg/decisions).
func TestHashAssessmentGoldenVectors(t *testing.T) {
	f, err := os.Open(golden.Path(t, "self_assessment_vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var memo engine.TextMemo
	n := 0
	for sc.Scan() {
		var v struct {
			ID            string  `json:"id"`
			CanonicalJSON *string `json:"canonical_json"`
			SHA256        *string `json:"sha256"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			// Lines with non-standard number tokens hold inputs only the
			// decisions golden test reads.
			continue
		}
		if v.CanonicalJSON == nil || v.SHA256 == nil {
			continue
		}
		a, err := pyref.DecodeAssessment([]byte(*v.CanonicalJSON))
		if err != nil {
			t.Fatalf("%s: %v", v.ID, err)
		}
		if h := engine.HashAssessment(&a, &memo); h.Hex() != *v.SHA256 || !h.For(&a) {
			t.Fatalf("%s: hash %s, reference %s", v.ID, h.Hex(), *v.SHA256)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d vectors with a hash", n)
	}
	t.Logf("%d vectors", n)
}
