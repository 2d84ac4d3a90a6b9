package audit

import (
	"errors"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Redecide with the recorded policy, twice side by side, re-makes every
// recorded decision bit for bit in both Sessions, and hands the recorded
// ones out in read order, with decode workers or without; a damaged source
// is re-decided up to the damage.
func TestRedecideRemakesTheRecording(t *testing.T) {
	data, _, err := replayBytes(t, simSource(t, 20*time.Second, 20), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := recordedDecisions(t, data)
	ref, _ := decisions.LookupPolicy(decisions.ReferencePolicyID)
	for _, workers := range []int{-1, 2} {
		var recorded []decisions.Rationale
		var made [2][]decisions.Rationale
		res, err := Redecide(openBytes(t, data), RedecideOptions{
			Policies:       []decisions.Policy{ref, ref},
			DecisionsTopic: "/decisions",
			DecodeWorkers:  workers,
			OnRecorded: func(_ int64, r *decisions.Rationale, err error) {
				if err != nil {
					t.Errorf("recorded decision: %v", err)
					return
				}
				recorded = append(recorded, *r)
			},
			OnDecided: func(i int, r decisions.Rationale) { made[i] = append(made[i], r) },
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Recorded != uint64(len(want)) || len(res.Counters) != 2 || res.Counters[0].DecisionsTotal() != uint64(len(want)) {
			t.Errorf("workers %d: recorded %d, counters %d, want %d decisions", workers, res.Recorded, len(res.Counters), len(want))
		}
		for _, got := range [][]decisions.Rationale{recorded, made[0], made[1]} {
			if len(got) != len(want) {
				t.Fatalf("workers %d: %d decisions, want %d", workers, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("workers %d: decision %d: %+v, want %+v", workers, i, got[i], want[i])
				}
			}
		}
	}

	// Cut short: what was read is decided, and the damage is returned.
	n := 0
	res, err := Redecide(openBytes(t, data[:len(data)/2]), RedecideOptions{
		Policies: []decisions.Policy{ref}, OnDecided: func(int, decisions.Rationale) { n++ }})
	var incomplete *IncompleteReadError
	if !errors.As(err, &incomplete) || res == nil || n == 0 || n >= len(want) {
		t.Errorf("cut: err %v, %d decisions of %d", err, n, len(want))
	}
	if _, err := Redecide(openBytes(t, data), RedecideOptions{}); err == nil {
		t.Error("no policy: no error")
	}
}
