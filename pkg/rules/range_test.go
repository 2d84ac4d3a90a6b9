package rules

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// A bound no value of its field can reach, and a number where a name is
// wanted, are errors at the offending value (file:line:column) that say
// what the field is, its unit, and what the author likely meant.
func TestRangesAndUnits(t *testing.T) {
	tests := []struct {
		name, when string
		at         string // the offending value as written, "" when the policy is valid
		want       []string
	}{
		{"a percentage for a fraction", "{battery_pct: {lt: 15}}", "15", []string{"battery_pct.lt = \"15\": out of range: battery_pct is the remaining charge",
			"fraction of the full charge, from 0 to 1", "for 15 % write 0.15"}},
		{"a percentage, le", "{battery_pct: {le: 7.5}}", "7.5", []string{"for 7.5 % write 0.075"}},
		{"above any percentage", "{battery_pct: {ge: 150}}", "150", []string{"from 0 to 1"}},
		{"a negative fraction", "{battery_pct: {gt: -0.1, lt: 0.5}}", "-0.1", []string{"battery_pct.gt"}},
		{"fraction bounds at the edges", "{battery_pct: {ge: 0, le: 1}}", "", nil},
		{"a fraction", "{battery_pct: {lt: 0.15}}", "", nil},
		{"a negative voltage", "{battery_v: {ge: -1}}", "-1", []string{"voltage in V, never negative"}},
		{"a voltage", "{battery_v: {lt: 14.1}}", "", nil},
		{"a negative std, position", "{std: {axis: position_x, gt: -1}}", "-1", []string{"std.gt", "standard deviation of position_x is in m and never negative"}},
		{"a negative std, velocity", "{std: {axis: velocity_z, lt: -0.5}}", "-0.5", []string{"velocity_z is in m/s"}},
		{"a negative std, orientation", "{std: {axis: orientation_y, le: -0.01}}", "-0.01", []string{"orientation_y is in rad"}},
		{"a std of zero", "{std: {axis: orientation_y, le: 0}}", "", nil},
		{"a mode number", "{flight_mode: 4}", "4", []string{"flight_mode = \"4\": want one of [init manual", "not a number: a PX4 nav_state number reads as one of these names"}},
		{"a mode number in a list", "{flight_mode: {in: [rtl, 5]}}", "5", []string{"flight_mode.in = \"5\"", "PX4 nav_state"}},
		{"a mission mode number", "{mission_mode: 2}", "2", []string{"mission_mode = \"2\": want one of [idle", "a name, not a number"}},
		{"a block number", "{level: {block: 1, is: known}}", "1", []string{"level.block = \"1\"", "a name, not a number"}},
		{"an outcome number", "{action: {kind: hold, outcome: 2}}", "2", []string{"outcome = \"2\"", "a name, not a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := "    when: " + tt.when
			_, err := Parse("r.yaml", []byte(policyWith("  - name: r\n"+line+"\n    action: hold\n    reason: r\n")))
			if tt.at == "" {
				if err != nil {
					t.Fatalf("valid policy refused: %v", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			col := strings.LastIndex(line, " "+tt.at) + 2
			if pe.Line != 6 || pe.Column != col {
				t.Errorf("at %d:%d, want 6:%d (the value %s)", pe.Line, pe.Column, col, tt.at)
			}
			if !strings.HasPrefix(err.Error(), "r.yaml:6:"+strconv.Itoa(col)+": rules[0].when.") {
				t.Errorf("error %q does not start with the place and the path", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A bound at the edge of its domain parses, and Check still finds a leaf
// that admits no value.
func TestEdgeBoundsNeverFire(t *testing.T) {
	for _, cond := range []string{"{std: {axis: position_x, lt: 0}}", "{battery_pct: {gt: 1}}", "{battery_v: {lt: 0}}"} {
		p, err := Parse("r.yaml", []byte(policyWith("  - name: r\n    when: "+cond+"\n    action: hold\n    reason: r\n")))
		if err != nil {
			t.Fatalf("%s: %v", cond, err)
		}
		if fs := Check(p); len(fs) != 1 || fs[0].Kind != NeverFires {
			t.Errorf("%s: findings %v, want never_fires", cond, fs)
		}
	}
}
