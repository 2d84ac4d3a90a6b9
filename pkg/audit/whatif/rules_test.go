package whatif

import (
	"reflect"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func TestRuleNames(t *testing.T) {
	like := shippedPolicy(t, "px4_failsafe_like.yaml")
	tight := shippedPolicy(t, "px4_failsafe_tight_position.yaml")
	ref, _ := decisions.LookupPolicy(decisions.ReferencePolicyID)
	got := RuleNames(like, tight, ref, nil)
	want := map[string][]string{
		"kill_switch_engaged": {"kill_switch"}, "battery_emergency": {"battery_emergency"}, "position_unknown": {"position_lost"},
		"battery_critical": {"battery_critical"}, "pilot_has_control": {"pilot_in_control"}, "battery_low": {"battery_low"},
		"assessment_missing": {"assessment_missing"}, "belief_uncertain": {"belief_uncertain"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	for _, tt := range []struct {
		text string
		want map[string][]string
	}{
		{"rules:\n  - {name: a, reason: r}\n  - {name: b, reason: r}\n  - {name: a, reason: r}\n", map[string][]string{"r": {"a", "b"}}},
		{"rules:\n  - {name: a}\n  - {reason: r}\n", map[string][]string{}},
		{"rules: [", nil},
		{"", map[string][]string{}},
	} {
		if got := ruleNamesOf([]byte(tt.text)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzRuleNames: any text gives names or none, never a panic, and every
// name it gives is one the text holds.
func FuzzRuleNames(f *testing.F) {
	f.Add([]byte("rules:\n  - {name: a, reason: r}\n"))
	f.Add([]byte("rules: [{name: [1], reason: {x: y}}]"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, text []byte) {
		for reason, names := range ruleNamesOf(text) {
			if reason == "" || len(names) == 0 {
				t.Fatalf("empty entry %q: %v", reason, names)
			}
		}
	})
}

func TestDiffer(t *testing.T) {
	l := func(spec ...any) *lane {
		var out lane
		for i := 0; i < len(spec); i += 3 {
			out.runs = append(out.runs, run{fromNs: int64(spec[i].(int)), toNs: int64(spec[i+1].(int)), kind: spec[i+2].(decisions.Kind)})
		}
		return &out
	}
	P, H, L := decisions.KindProceed, decisions.KindHold, decisions.KindEngageLand
	tests := []struct {
		name string
		a, b *lane
		want [][2]int64
	}{
		{"same", l(0, 5, P, 6, 9, H), l(0, 5, P, 6, 9, H), nil},
		{"one stretch", l(0, 9, P), l(0, 2, P, 3, 5, H, 6, 9, P), [][2]int64{{3, 6}}},
		{"adjacent stretches of the same change merge", l(0, 9, P), l(0, 2, P, 3, 4, H, 5, 9, H), [][2]int64{{3, 9}}},
		{"two changes", l(0, 4, H, 5, 9, P), l(0, 4, L, 5, 9, H), [][2]int64{{0, 5}, {5, 9}}},
		{"a cut lane ends the comparison", l(0, 3, P), l(0, 2, P, 3, 9, H), [][2]int64{{3, 3}}},
		{"empty", l(), l(0, 1, P), nil},
	}
	for _, tt := range tests {
		var got [][2]int64
		for _, s := range differ(tt.a, tt.b, 0) {
			got = append(got, [2]int64{s.StartNs, s.EndNs})
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
