package session

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// countingPolicy is the reference policy as a stateful one that counts the
// instances made of it: a Loop makes one when it is built.
type countingPolicy struct{ instances *int }

func (countingPolicy) ID() string { return decisions.ReferencePolicyID }
func (countingPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	return decisions.ReferencePolicy{}.Decide(c)
}
func (p countingPolicy) NewInstance() decisions.StatefulPolicy { *p.instances++; return p }
func (countingPolicy) Checkpoint()                             {}
func (countingPolicy) Rollback()                               {}

// TestNewSessionBuildsTheLoopOnce: the Loop gets the executors' routes at
// construction, so a session builds one Loop (one policy instance) with or
// without executors, and the routes are those the executors and the enables
// give.
func TestNewSessionBuildsTheLoopOnce(t *testing.T) {
	tests := []struct {
		name    string
		execs   bool
		enable  []decisions.Kind
		enabled []decisions.Kind
	}{
		{"advisory", false, nil, nil},
		{"executors, nothing enabled", true, nil, nil},
		{"executors, hold and land enabled", true, []decisions.Kind{decisions.KindHold, decisions.KindEngageLand},
			[]decisions.Kind{decisions.KindHold, decisions.KindEngageLand}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			opts := SessionOptions{Loop: engine.LoopOptions{Policy: countingPolicy{&n}}, Enable: tt.enable}
			if tt.execs {
				opts.Executors = []Executor{&fakeExec{id: "fake", kinds: []decisions.Kind{decisions.KindHold, decisions.KindEngageLand}}}
			}
			s, err := NewSession(opts)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("%d policy instances: the Loop was built %d times", n, n)
			}
			for k := range decisions.Kind(decisions.NumKinds) {
				want := false
				for _, e := range tt.enabled {
					want = want || e == k
				}
				if got := s.Loop().Enabled(k); got != want {
					t.Errorf("kind %s enabled %v, want %v", k, got, want)
				}
			}
		})
	}
}

// TestNewSessionRefusesWhatNoExecutorServes: enabling a kind without an
// executor fails before any Loop is built.
func TestNewSessionRefusesWhatNoExecutorServes(t *testing.T) {
	n := 0
	_, err := NewSession(SessionOptions{Loop: engine.LoopOptions{Policy: countingPolicy{&n}}, Enable: []decisions.Kind{decisions.KindEngageRTL},
		Executors: []Executor{&fakeExec{id: "fake", kinds: []decisions.Kind{decisions.KindHold}}}})
	if err == nil || n != 0 {
		t.Fatalf("error %v, %d Loops built", err, n)
	}
}
