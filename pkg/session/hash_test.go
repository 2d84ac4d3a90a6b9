package session

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// TestProvenanceWithHashedAssessments: the Loop hashes what it admits, the
// binding and the Runner share that one hash, and the Runner still refuses
// every binding fault the shared hash could be suspected of hiding.
func TestProvenanceWithHashedAssessments(t *testing.T) {
	cmd := commandFor(t, 7, known, true)
	if got, want := cmd.Rationale.SelfAssessmentSHA256, cmd.Context.SelfAssessment.SHA256(); got != want {
		t.Fatalf("rationale hash %s, the assessment's %s", got, want)
	}
	other := assessment(t, 7, uncertain)
	tests := []struct {
		name   string
		mutate func(c *engine.Command)
		ok     bool
	}{
		{"as decided", func(*engine.Command) {}, true},
		{"a copy of the same content", func(c *engine.Command) {
			fresh := *c.Context.SelfAssessment
			c.Context.SelfAssessment = &fresh
		}, true},
		// A binding that took the hash of another assessment.
		{"binding used another assessment's hash", func(c *engine.Command) {
			c.Rationale.SelfAssessmentSHA256 = other.SHA256()
		}, false},
		// The context's assessment changed after hashing and binding: the
		// Loop's hash no longer vouches, the Runner hashes the content.
		{"stale hash: content changed after the binding", func(c *engine.Command) {
			x := *c.Context.SelfAssessment
			x.Std[0] *= 2
			c.Context.SelfAssessment = &x
		}, false},
		{"stale hash: stamp-preserving level change", func(c *engine.Command) {
			x := *c.Context.SelfAssessment
			x.AxisLevel[8] = decisions.LevelUnknown
			c.Context.SelfAssessment = &x
		}, false},
		{"stale hash: the assessment changed in place", func(c *engine.Command) {
			c.Context.SelfAssessment.Std[1] = -c.Context.SelfAssessment.Std[1] - 1
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
