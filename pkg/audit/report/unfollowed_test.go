package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// unfollowedLines renders f's spans as
// "<kind> in <mode> <start>-<end> ms, <decisions> decisions, <commands> commands, latest <id>".
func unfollowedLines(f *Flight) []string {
	var out []string
	for _, u := range f.Unfollowed {
		latest := "none"
		if u.Latest != nil {
			latest = fmt.Sprint(u.Latest.ID)
		}
		out = append(out, fmt.Sprintf("%s in %s %d-%d ms, %d decisions, %d commands, latest %s",
			u.Kind, u.Mode, u.StartNs/ms, u.EndNs/ms, u.Decisions, u.Commands, latest))
	}
	return out
}

// The hand-written acting flight flies in offboard throughout: every kind
// but proceed is a span of "decided X, vehicle in offboard", with the
// commands its decisions sent and the latest action of the kind.
func TestUnfollowedActingFlight(t *testing.T) {
	f, err := Collect(writeRecording(t, actingRecording(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"hold in offboard 1000-3000 ms, 20 decisions, 1 commands, latest 1",
		"engage_land in offboard 3000-6000 ms, 30 decisions, 1 commands, latest 2",
		"engage_kill in offboard 6000-7000 ms, 10 decisions, 0 commands, latest 3",
		"hold in offboard 7000-8000 ms, 10 decisions, 1 commands, latest 4",
		"engage_rtl in offboard 8000-9000 ms, 10 decisions, 1 commands, latest 5",
		"hold in offboard 10000-10500 ms, 5 decisions, 1 commands, latest 6",
		"engage_land in offboard 10500-11000 ms, 6 decisions, 1 commands, latest 7",
	}
	if got := unfollowedLines(f); !slices.Equal(got, want) {
		t.Fatalf("spans\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := UnfollowedSummary(f)
	for _, w := range []string{"7 spans", "the longest decided engage_land for 3000 ms while the vehicle was in offboard",
		"1 command sent in it", "the latest, action 2: failed: no acknowledgement"} {
		if !strings.Contains(s, w) {
			t.Errorf("summary %q does not say %q", s, w)
		}
	}
	var html strings.Builder
	if err := Render(&html, f, Audit{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "<h2>Decided X, vehicle in Y</h2>") || !strings.Contains(html.String(), "decided X, vehicle in Y</td>") {
		t.Error("the report has no table or summary of the spans")
	}
}

// A span ends where the vehicle follows and starts again where it leaves
// the mode; a decision whose belief was not read ends it; a disarmed
// vehicle agrees with land; agreeing flights have no span and no summary.
func TestUnfollowedSpans(t *testing.T) {
	land, off, landM := decisions.KindEngageLand, decisions.FlightModeOffboard, decisions.FlightModeLand
	type step struct {
		ms     int64
		kind   decisions.Kind
		mode   decisions.FlightMode
		armed  bool
		belief bool
	}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"followed, then left", []step{
			{0, land, off, true, true}, {100, land, off, true, true}, {200, land, landM, true, true},
			{300, land, landM, true, true}, {400, land, off, true, true}, {500, land, off, true, true}},
			[]string{"engage_land in offboard 0-200 ms, 2 decisions, 0 commands, latest none",
				"engage_land in offboard 400-500 ms, 2 decisions, 0 commands, latest none"}},
		{"no belief ends it", []step{
			{0, land, off, true, true}, {100, land, off, true, false}, {200, land, off, true, true}},
			[]string{"engage_land in offboard 0-100 ms, 1 decisions, 0 commands, latest none",
				"engage_land in offboard 200-200 ms, 1 decisions, 0 commands, latest none"}},
		{"disarmed agrees with land", []step{{0, land, off, false, true}, {100, land, off, false, true}}, nil},
		{"the mode changes: a new span", []step{{0, land, off, true, true}, {100, land, decisions.FlightModeManual, true, true}},
			[]string{"engage_land in offboard 0-100 ms, 1 decisions, 0 commands, latest none",
				"engage_land in manual 100-100 ms, 1 decisions, 0 commands, latest none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCollector(Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.steps {
				if s.belief {
					b := belief(s.ms*ms, 0.01, s.armed, s.mode, 0.8)
					c.Belief(s.ms*ms, &b)
				}
				r := rationale(s.ms*ms, s.kind, "r", "")
				c.Decision(s.ms*ms+ms, &r)
			}
			f := c.Finish()
			if got := unfollowedLines(f); !slices.Equal(got, tc.want) {
				t.Fatalf("spans\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if (UnfollowedSummary(f) == "") != (len(tc.want) == 0) {
				t.Errorf("summary %q with %d spans", UnfollowedSummary(f), len(tc.want))
			}
		})
	}
}
