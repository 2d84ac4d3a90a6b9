package session

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// TestProvenanceWithSealedAssessments: the Loop seals what it admits, the
// binding and the Runner share that one hash, and the Runner still refuses
// every binding fault the seal could be suspected of hiding.
func TestProvenanceWithSealedAssessments(t *testing.T) {
	cmd := commandFor(t, 7, known, true)
	a := cmd.Context.SelfAssessment
	h, ok := a.SealedSHA256()
	if !ok {
		t.Fatal("the Loop's command carries an unsealed assessment: the decision path hashes twice")
	}
	if cmd.Rationale.SelfAssessmentSHA256 != h {
		t.Fatalf("rationale hash %s, seal %s", cmd.Rationale.SelfAssessmentSHA256, h)
	}
	other := assessment(t, 7, uncertain)
	other.Seal()
	tests := []struct {
		name   string
		mutate func(c *engine.Command)
		ok     bool
	}{
		{"as decided", func(*engine.Command) {}, true},
		{"an unsealed copy of the same content", func(c *engine.Command) {
			fresh := unsealed(*c.Context.SelfAssessment)
			if _, ok := fresh.SealedSHA256(); ok {
				t.Fatal("copy still sealed")
			}
			c.Context.SelfAssessment = &fresh
		}, true},
		// A binding that took the hash of another (sealed) assessment.
		{"binding used another assessment's seal", func(c *engine.Command) {
			c.Rationale.SelfAssessmentSHA256 = other.SHA256()
		}, false},
		// The context's assessment changed after sealing and binding: its
		// seal no longer vouches, the Runner hashes the content itself.
		{"stale seal: content changed after the binding", func(c *engine.Command) {
			x := *c.Context.SelfAssessment
			x.Std[0] *= 2
			c.Context.SelfAssessment = &x
		}, false},
		{"stale seal: stamp-preserving level change", func(c *engine.Command) {
			x := *c.Context.SelfAssessment
			x.AxisLevel[8] = decisions.LevelUnknown
			c.Context.SelfAssessment = &x
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cmd.Clone()
			tc.mutate(&c)
			r := NewRunner(RunnerOptions{})
			mustRegister(t, r, "m", &memorySink{})
			res := r.Execute(c)
			var pe *engine.ProvenanceError
			switch {
			case tc.ok && res.Err != nil:
				t.Fatalf("refused: %v", res.Err)
			case !tc.ok && (!errors.As(res.Err, &pe) || pe.Rule != engine.RuleAssessmentHash):
				t.Fatalf("want an assessment-hash violation, got %v", res.Err)
			}
		})
	}
}

// unsealed returns a copy of a without its seal (content copied field by
// field, as a caller building an assessment by hand would).
func unsealed(a decisions.SelfAssessment) decisions.SelfAssessment {
	return decisions.SelfAssessment{
		BeliefStampSimNs: a.BeliefStampSimNs, Std: a.Std, AxisLevel: a.AxisLevel, BlockLevel: a.BlockLevel,
		OverallLevel: a.OverallLevel, ThresholdsUsed: a.ThresholdsUsed, ThresholdsSHA256: a.ThresholdsSHA256,
		CovarianceAvailable: a.CovarianceAvailable, SchemaVersion: a.SchemaVersion,
	}
}
