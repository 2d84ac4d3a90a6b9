package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

func TestBatteryThresholds(t *testing.T) {
	const head = "name: t\nversion: 1\ndefault: {action: proceed, reason: nominal}\nrules:\n"
	tests := []struct {
		name, rules string
		want        []string // "rule kind field op value negated for"
	}{
		{"none", "  - {name: a, when: {armed: true}, action: hold, reason: r}\n", nil},
		{"lt and le", "  - {name: low, when: {all: [{armed: true}, {battery_pct: {lt: 0.15}}]}, action: hold, reason: low, for: 2s}\n" +
			"  - {name: v, when: {battery_v: {le: 13.2}}, action: engage_land, reason: volts}\n",
			[]string{"low hold battery_pct lt 0.15 false 2000000000", "v engage_land battery_v le 13.2 false 0"}},
		{"both bounds, under not", "  - {name: band, when: {not: {battery_pct: {ge: 0.2, lt: 0.9}}}, action: engage_rtl, reason: band}\n",
			[]string{"band engage_rtl battery_pct ge 0.2 true 0", "band engage_rtl battery_pct lt 0.9 true 0"}},
		{"double not, in any", "  - {name: x, when: {any: [{not: {not: {battery_pct: {gt: 0.5}}}}, {armed: false}]}, action: yield_to_pilot, reason: x}\n",
			[]string{"x yield_to_pilot battery_pct gt 0.5 false 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("t.yaml", []byte(head+tc.rules))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, th := range p.BatteryThresholds() {
				got = append(got, fmt.Sprintf("%s %s %s %s %g %t %d", th.Rule, th.Kind, th.Field, th.Op, th.Value, th.Negated, th.ForNs))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// The shipped PX4-like policy watches PX4's three battery levels.
func TestBatteryThresholdsShipped(t *testing.T) {
	p := shippedPolicy(t, "px4_failsafe_like.yaml")
	got := map[float64]decisions.Kind{}
	for _, th := range p.BatteryThresholds() {
		if th.Field != "battery_pct" || th.Op != "lt" || th.Negated {
			t.Errorf("unexpected threshold %+v", th)
		}
		got[th.Value] = th.Kind
	}
	want := map[float64]decisions.Kind{0.15: decisions.KindHold, 0.07: decisions.KindEngageRTL, 0.05: decisions.KindEngageLand}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("thresholds %v, want %v", got, want)
	}
}

// The rules that read what actions achieved are the escalating policy's
// escalations, and none of px4_failsafe_like's.
func TestOutcomeReasonsShipped(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"px4_failsafe_like.yaml", nil},
		{"px4_failsafe_escalating.yaml", []string{"land_failed", "hold_not_reached", "hold_failed", "pilot_unavailable"}},
	} {
		if got := shippedPolicy(t, tc.file).OutcomeReasons(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.file, got, tc.want)
		}
	}
}
