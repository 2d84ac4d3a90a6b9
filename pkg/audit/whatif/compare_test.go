package whatif

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// side writes a side's decisions compactly: "0:proceed/nominal 1:hold/x"
// is stamp 0 s proceed for nominal, stamp 1 s hold for x. Stamps are in
// seconds.
func side(t *testing.T, spec string) []Decision {
	t.Helper()
	var out []Decision
	for _, f := range strings.Fields(spec) {
		var sec int64
		var rest string
		if _, err := fmt.Sscanf(strings.Replace(f, ":", " ", 1), "%d %s", &sec, &rest); err != nil {
			t.Fatalf("bad decision %q: %v", f, err)
		}
		kind, reason, _ := strings.Cut(rest, "/")
		k, err := decisions.ParseKind(kind)
		if err != nil {
			t.Fatalf("bad decision %q: %v", f, err)
		}
		out = append(out, Decision{StampNs: sec * 1e9, Kind: k, Reason: reason})
	}
	return out
}

// compare feeds both sides, the baseline first, and finishes.
func compare(t *testing.T, base, cand string, opts CompareOptions) *FlightResult {
	t.Helper()
	c := NewComparison(opts)
	for _, d := range side(t, base) {
		c.Baseline(d)
	}
	for _, d := range side(t, cand) {
		c.Candidate(d)
	}
	return c.Finish()
}

func ns(sec int64) *int64 { v := sec * 1e9; return &v }

func TestComparison(t *testing.T) {
	tests := []struct {
		name       string
		base, cand string
		check      func(t *testing.T, r *FlightResult)
	}{
		{
			name: "identical", base: "0:proceed/a 1:hold/b 2:hold/b", cand: "0:proceed/a 1:hold/b 2:hold/b",
			check: func(t *testing.T, r *FlightResult) {
				if r.Compared != 3 || r.Changed != 0 || r.KindChanged != 0 || len(r.Rows) != 0 || r.FirstDivergence != nil || r.CommandDivergence != nil || r.Counterfactual != 0 {
					t.Errorf("%+v", r)
				}
				want := []Onset{{Kind: "hold", BaselineNs: ns(1), CandidateNs: ns(1), ShiftNs: new(int64), BaselineEpisodes: 1, CandidateEpisodes: 1}}
				if !reflect.DeepEqual(r.Onsets, want) {
					t.Errorf("onsets %+v", r.Onsets)
				}
			},
		},
		{
			name: "kind pairs", base: "0:proceed/a 1:proceed/a 2:hold/b 3:hold/b 4:hold/b", cand: "0:proceed/a 1:hold/b 2:hold/b 3:engage_land/c 4:engage_land/c",
			check: func(t *testing.T, r *FlightResult) {
				want := []KindPair{{From: "proceed", To: "hold", N: 1}, {From: "hold", To: "engage_land", N: 2, Counterfactual: 2}}
				if !reflect.DeepEqual(r.KindPairs, want) {
					t.Errorf("kind pairs %+v, want %+v", r.KindPairs, want)
				}
				if r.Changed != 3 || r.KindChanged != 3 {
					t.Errorf("changed %d, in kind %d", r.Changed, r.KindChanged)
				}
			},
		},
		{
			name: "counterfactual marks", base: "0:proceed/a 1:proceed/a 2:proceed/a 3:hold/b 4:proceed/a", cand: "0:proceed/a 1:hold/b 2:hold/b 3:hold/b 4:engage_land/c",
			check: func(t *testing.T, r *FlightResult) {
				if d := r.CommandDivergence; d == nil || d.StampNs != 1e9 || d.Baseline != "proceed/a" || d.Candidate != "hold/b" {
					t.Errorf("command divergence %+v", d)
				}
				if r.Counterfactual != 3 {
					t.Errorf("counterfactual %d, want 3 (stamps 2, 3, 4)", r.Counterfactual)
				}
				want := []Row{
					{FromNs: 1e9, ToNs: 2e9, Decisions: 2, Baseline: "proceed/a", Candidate: "hold/b", Mark: MarkFirst},
					{FromNs: 4e9, ToNs: 4e9, Decisions: 1, Baseline: "proceed/a", Candidate: "engage_land/c", Mark: MarkCounterfactual},
				}
				if !reflect.DeepEqual(r.Rows, want) {
					t.Errorf("rows %+v\nwant %+v", r.Rows, want)
				}
			},
		},
		{
			name: "reasons only", base: "0:hold/x 1:hold/x 2:proceed/n", cand: "0:hold/y 1:hold/x 2:proceed/n",
			check: func(t *testing.T, r *FlightResult) {
				if r.Changed != 1 || r.KindChanged != 0 || r.CommandDivergence != nil || len(r.KindPairs) != 0 {
					t.Errorf("%+v", r)
				}
				if d := r.FirstDivergence; d == nil || d.StampNs != 0 || d.Baseline != "hold/x" || d.Candidate != "hold/y" {
					t.Errorf("first divergence %+v", d)
				}
				if len(r.Rows) != 1 || r.Rows[0].Mark != "" {
					t.Errorf("rows %+v", r.Rows)
				}
				want := []ReasonChange{{Reason: "x", Rules: []string{"rule_x"}, Baseline: 2, Candidate: 1}, {Reason: "y", Baseline: 0, Candidate: 1}}
				if !reflect.DeepEqual(r.Reasons, want) {
					t.Errorf("reasons %+v", r.Reasons)
				}
			},
		},
		{
			name: "proceed and abstain command nothing", base: "0:proceed/a 1:proceed/a 2:hold/b", cand: "0:abstain_uncertain/u 1:abstain_uncertain/u 2:hold/b",
			check: func(t *testing.T, r *FlightResult) {
				if r.CommandDivergence != nil || r.Counterfactual != 0 || r.NewAbstains != 2 || r.KindChanged != 2 {
					t.Errorf("%+v", r)
				}
				if !reflect.DeepEqual(r.NewKinds, []string{"abstain_uncertain"}) {
					t.Errorf("new kinds %v", r.NewKinds)
				}
			},
		},
		{
			name: "onset earlier", base: "0:proceed/a 1:proceed/a 2:proceed/a 3:engage_land/l 4:engage_land/l", cand: "0:proceed/a 1:engage_land/l 2:engage_land/l 3:engage_land/l 4:engage_land/l",
			check: func(t *testing.T, r *FlightResult) {
				shift := int64(-2e9)
				want := []Onset{{Kind: "engage_land", BaselineNs: ns(3), CandidateNs: ns(1), ShiftNs: &shift, BaselineEpisodes: 1, CandidateEpisodes: 1}}
				if !reflect.DeepEqual(r.Onsets, want) {
					t.Errorf("onsets %+v", r.Onsets)
				}
			},
		},
		{
			name: "onset later is counterfactual", base: "0:proceed/a 1:engage_rtl/r 2:engage_rtl/r 3:proceed/a", cand: "0:proceed/a 1:proceed/a 2:engage_rtl/r 3:engage_rtl/r",
			check: func(t *testing.T, r *FlightResult) {
				shift := int64(1e9)
				want := []Onset{{Kind: "engage_rtl", BaselineNs: ns(1), CandidateNs: ns(2), ShiftNs: &shift, Counterfactual: true, BaselineEpisodes: 1, CandidateEpisodes: 1}}
				if !reflect.DeepEqual(r.Onsets, want) {
					t.Errorf("onsets %+v", r.Onsets)
				}
			},
		},
		{
			name: "new and gone kinds, episodes", base: "0:hold/h 1:proceed/a 2:hold/h 3:proceed/a", cand: "0:engage_kill/k 1:engage_kill/k 2:engage_kill/k 3:engage_kill/k",
			check: func(t *testing.T, r *FlightResult) {
				want := []Onset{
					{Kind: "hold", BaselineNs: ns(0), BaselineEpisodes: 2},
					{Kind: "engage_kill", CandidateNs: ns(0), CandidateEpisodes: 1},
				}
				if !reflect.DeepEqual(r.Onsets, want) {
					t.Errorf("onsets %+v", r.Onsets)
				}
				if !reflect.DeepEqual(r.NewKinds, []string{"engage_kill"}) {
					t.Errorf("new kinds %v", r.NewKinds)
				}
			},
		},
		{
			name: "stamps one side only", base: "1:proceed/a 2:proceed/a 4:proceed/a", cand: "0:proceed/a 1:proceed/a 3:proceed/a 4:proceed/a 5:hold/h",
			check: func(t *testing.T, r *FlightResult) {
				if r.Compared != 2 || r.OnlyBaseline != 1 || r.OnlyCandidate != 3 || r.Changed != 0 {
					t.Errorf("%+v", r)
				}
				if r.FirstStampNs != 1e9 || r.LastStampNs != 4e9 {
					t.Errorf("stamps %d .. %d", r.FirstStampNs, r.LastStampNs)
				}
			},
		},
		{
			name: "repeats and stamps out of order are skipped", base: "0:proceed/a 0:proceed/a 2:proceed/a 1:hold/h", cand: "0:proceed/a 2:proceed/a",
			check: func(t *testing.T, r *FlightResult) {
				if r.Compared != 2 || r.RecordedSkipped != 2 || r.OnlyBaseline != 0 || r.Changed != 0 {
					t.Errorf("%+v", r)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, compare(t, tt.base, tt.cand, CompareOptions{RuleNames: map[string][]string{"x": {"rule_x"}}}))
		})
	}
}

// The result does not depend on how the two sides interleave.
func TestComparisonInterleaving(t *testing.T) {
	base := side(t, "0:proceed/a 1:proceed/a 2:hold/b 3:hold/b 5:engage_land/c 6:engage_land/c 7:proceed/a")
	cand := side(t, "0:proceed/a 1:hold/b 2:hold/b 3:engage_land/c 4:engage_land/c 5:engage_land/c 7:proceed/a 8:hold/b")
	// lead is how many decisions the candidate is fed ahead of the
	// baseline (negative: behind).
	var results []*FlightResult
	for _, lead := range []int{-100, 100, 0, 1, 2, -3} {
		c := NewComparison(CompareOptions{})
		bi, ci := 0, 0
		for bi < len(base) || ci < len(cand) {
			if ci < len(cand) && (ci < bi+lead || bi >= len(base)) {
				c.Candidate(cand[ci])
				ci++
			} else {
				c.Baseline(base[bi])
				bi++
			}
		}
		results = append(results, c.Finish())
	}
	for i, r := range results[1:] {
		if !reflect.DeepEqual(r, results[0]) {
			t.Errorf("order %d differs:\n%+v\nfrom\n%+v", i+1, r, results[0])
		}
	}
	if r := results[0]; r.Compared != 6 || r.OnlyBaseline != 1 || r.OnlyCandidate != 2 {
		t.Errorf("compared %d, only %d/%d", r.Compared, r.OnlyBaseline, r.OnlyCandidate)
	}
}

// Rows, lanes and the decisions one side may hold ahead are bounded; the
// counts stay exact.
func TestComparisonBounds(t *testing.T) {
	var base, cand strings.Builder
	for i := range 40 {
		// Alternating stretches of differing decisions: 20 rows.
		k := "hold/h"
		if i%2 == 1 {
			k = "proceed/a"
		}
		fmt.Fprintf(&base, "%d:proceed/a ", i)
		fmt.Fprintf(&cand, "%d:%s ", i, k)
	}
	r := compare(t, base.String(), cand.String(), CompareOptions{MaxRows: 5, MaxLaneRuns: 7})
	if len(r.Rows) != 5 || r.RowsOmitted != 15 || r.Changed != 20 {
		t.Errorf("rows %d, omitted %d, changed %d", len(r.Rows), r.RowsOmitted, r.Changed)
	}
	if len(r.lanes[candSide].runs) != 7 || !r.lanes[candSide].truncated || len(r.lanes[baseSide].runs) != 1 || r.lanes[baseSide].truncated {
		t.Errorf("lanes %+v", r.lanes)
	}
	// A side far ahead: its oldest decisions count as its own.
	c := NewComparison(CompareOptions{MaxHeld: 3})
	for i := range 10 {
		c.Candidate(Decision{StampNs: int64(i), Kind: decisions.KindProceed, Reason: "a"})
	}
	c.Baseline(Decision{StampNs: 9, Kind: decisions.KindProceed, Reason: "a"})
	if r := c.Finish(); r.OnlyCandidate != 9 || r.Compared != 1 {
		t.Errorf("held: only candidate %d, compared %d", r.OnlyCandidate, r.Compared)
	}
}

func TestCommand(t *testing.T) {
	for _, tt := range []struct {
		a, b   decisions.Kind
		differ bool
	}{
		{decisions.KindProceed, decisions.KindAbstainUncertain, false},
		{decisions.KindProceed, decisions.KindProceed, false},
		{decisions.KindHold, decisions.KindHold, false},
		{decisions.KindProceed, decisions.KindHold, true},
		{decisions.KindAbstainUncertain, decisions.KindEngageKill, true},
		{decisions.KindEngageRTL, decisions.KindEngageLand, true},
		{decisions.KindYieldToPilot, decisions.KindHold, true},
	} {
		if got := commandsDiffer(tt.a, tt.b); got != tt.differ {
			t.Errorf("%s vs %s: differ %v, want %v", tt.a, tt.b, got, tt.differ)
		}
	}
}
