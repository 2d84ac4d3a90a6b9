package rules

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	r := func(name, cond, action, extra string) string {
		return "  - name: " + name + "\n    when: " + cond + "\n    action: " + action + "\n    reason: " + name + "\n" + extra
	}
	tests := []struct {
		name  string
		rules string
		want  []string // "<rule index> <kind>[ by <index>]"
	}{
		{"clean", r("a", "{battery_pct: {lt: 0.05}}", "engage_land", "") + r("b", "{battery_pct: {lt: 0.15}}", "hold", ""), nil},
		{"empty interval", r("a", "{battery_pct: {lt: 0}}", "hold", "") + r("b", "{battery_pct: {gt: 0.5, lt: 0.5}}", "hold", "") + r("c", "{battery_v: {le: 0}}", "hold", ""), []string{"0 never_fires", "1 never_fires"}},
		{"impossible leaves", r("a", "{level: {block: position, at_least: unknown, at_most: uncertain}}", "hold", ""), []string{"0 never_fires"}},
		{"conflicting equalities", r("a", "{all: [{flight_mode: manual}, {flight_mode: offboard}]}", "hold", ""), []string{"0 never_fires"}},
		{"conflicting bounds", r("a", "{all: [{battery_pct: {lt: 0.1}}, {battery_pct: {ge: 0.1}}]}", "hold", ""), []string{"0 never_fires"}},
		{"armed both", r("a", "{all: [{armed: true}, {armed: false}]}", "hold", ""), []string{"0 never_fires"}},
		{"missing and value", r("a", "{all: [{missing: battery_v}, {battery_v: {lt: 12}}]}", "hold", ""), []string{"0 never_fires"}},
		{"effective without assessment is possible", r("a", "{all: [{missing: assessment}, {effective_level: known}]}", "hold", ""), nil},
		{"any of impossible", r("a", "{any: [{all: [{armed: true}, {armed: false}]}, {battery_v: {gt: 2, lt: 1}}]}", "hold", ""), []string{"0 never_fires"}},
		{"not is not analysed", r("a", "{not: {all: [{armed: true}, {armed: false}]}}", "hold", ""), nil},
		{"identical lower", r("a", "{armed: true}", "engage_rtl", "") + r("b", "{armed: true}", "hold", ""), []string{"1 shadowed by 0"}},
		{"identical equal severity", r("a", "{armed: true}", "hold", "") + r("b", "{armed: true}", "hold", ""), []string{"1 shadowed by 0"}},
		{"identical higher is not shadowed", r("a", "{armed: true}", "hold", "") + r("b", "{armed: true}", "engage_rtl", ""), nil},
		{"subset interval", r("a", "{battery_pct: {lt: 0.15}}", "engage_rtl", "") + r("b", "{battery_pct: {lt: 0.05}}", "hold", ""), []string{"1 shadowed by 0"}},
		{"superset interval", r("a", "{battery_pct: {lt: 0.05}}", "engage_rtl", "") + r("b", "{battery_pct: {lt: 0.15}}", "hold", ""), nil},
		{"boundary open vs closed", r("a", "{battery_pct: {lt: 0.1}}", "engage_rtl", "") + r("b", "{battery_pct: {le: 0.1}}", "hold", ""), nil},
		{"subset levels", r("a", "{effective_level: {at_least: uncertain}}", "hold", "") + r("b", "{effective_level: unknown}", "abstain_uncertain", ""), []string{"1 shadowed by 0"}},
		{"conjunction implies", r("a", "{flight_mode: manual}", "yield_to_pilot", "") + r("b", "{all: [{armed: true}, {flight_mode: manual}]}", "hold", ""), []string{"1 shadowed by 0"}},
		{"implies disjunction", r("a", "{any: [{flight_mode: manual}, {flight_mode: stabilize}]}", "yield_to_pilot", "") + r("b", "{flight_mode: stabilize}", "hold", ""), []string{"1 shadowed by 0"}},
		{"disjunction implies", r("a", "{flight_mode: {in: [manual, stabilize]}}", "yield_to_pilot", "") + r("b", "{any: [{flight_mode: manual}, {flight_mode: stabilize}]}", "hold", ""), []string{"1 shadowed by 0"}},
		{"different fields", r("a", "{level: {block: overall, is: unknown}}", "hold", "") + r("b", "{effective_level: unknown}", "hold", ""), nil},
		{"longer for does not shadow", r("a", "{armed: true}", "engage_rtl", "    for: 2s\n") + r("b", "{armed: true}", "hold", "    for: 1s\n"), nil},
		{"shorter for shadows", r("a", "{armed: true}", "engage_rtl", "    for: 1s\n") + r("b", "{armed: true}", "hold", "    for: 2s\n"), []string{"1 shadowed by 0"}},
		{"shorter clear does not shadow", r("a", "{armed: true}", "engage_rtl", "") + r("b", "{armed: true}", "hold", "    clear: {after: 1s}\n"), nil},
		{"never shadows any clear", r("a", "{armed: true}", "engage_rtl", "    clear: never\n") + r("b", "{armed: true}", "hold", "    clear: on_disarm\n"), []string{"1 shadowed by 0"}},
		{"on_disarm does not cover after", r("a", "{armed: true}", "engage_rtl", "    clear: on_disarm\n") + r("b", "{armed: true}", "hold", "    clear: {after: 1s}\n"), nil},
		{"later rule never shadows earlier", r("a", "{armed: true}", "hold", "") + r("b", "{armed: true}", "hold", "") + r("c", "{armed: true}", "hold", ""), []string{"1 shadowed by 0", "2 shadowed by 0"}},
		{"disjoint outcomes of one kind", r("a", "{all: [{action: {kind: engage_land, outcome: sent}}, {action: {kind: engage_land, outcome: any_failure}}]}", "engage_land", ""), []string{"0 never_fires"}},
		{"enabled and not", r("a", "{all: [{action: {kind: engage_kill, enabled: true}}, {action: {kind: engage_kill, enabled: false}}]}", "engage_kill", ""), []string{"0 never_fires"}},
		{"outcomes of two kinds", r("a", "{all: [{action: {kind: hold, outcome: sent}}, {action: {kind: engage_land, outcome: any_failure}}]}", "engage_land", "") + r("b", "{armed: true}", "hold", ""), nil},
		{"an outcome group implies its member", r("a", "{action: {kind: hold, outcome: refused}}", "engage_rtl", "") + r("b", "{action: {kind: hold, outcome: denied}}", "hold", ""), []string{"1 shadowed by 0"}},
		{"a member does not imply its group", r("a", "{action: {kind: hold, outcome: denied}}", "engage_rtl", "") + r("b", "{action: {kind: hold, outcome: refused}}", "hold", ""), nil},
		{"an outcome of a kind never decided", r("a", "{action: {kind: engage_kill, outcome: denied}}", "engage_land", ""), []string{"0 never_commanded"}},
		{"in unless too", r("a", "{armed: true}", "engage_land", "    unless: {not: {action: {kind: engage_rtl, outcome: none}}}\n"), []string{"0 never_commanded"}},
		{"an enable of a kind never decided is fine", r("a", "{action: {kind: engage_kill, enabled: true}}", "engage_land", ""), nil},
		{"the default decides too", r("a", "{action: {kind: proceed, outcome: sent}}", "hold", ""), nil},
		{"unless implied by the condition", r("a", "{armed: true}", "hold", "    unless: {armed: true}\n"), []string{"0 never_fires"}},
		{"a rule with unless does not shadow", r("a", "{armed: true}", "engage_rtl", "    unless: {flight_mode: manual}\n") + r("b", "{armed: true}", "hold", ""), nil},
		{"a rule with unless can be shadowed", r("a", "{armed: true}", "engage_rtl", "") + r("b", "{armed: true}", "hold", "    unless: {flight_mode: manual}\n"), []string{"1 shadowed by 0"}},
		{"on_mode_change covers its own kind", r("a", "{armed: true}", "engage_land", "    clear: on_mode_change\n") + r("b", "{armed: true}", "engage_land", "    clear: on_mode_change\n"), []string{"1 shadowed by 0"}},
		{"on_mode_change of another kind may release first", r("a", "{armed: true}", "engage_kill", "    clear: on_mode_change\n") + r("b", "{armed: true}", "engage_land", "    clear: on_mode_change\n"), nil},
		{"on_disarm does not cover on_mode_change", r("a", "{armed: true}", "engage_kill", "    clear: on_disarm\n") + r("b", "{armed: true}", "engage_land", "    clear: on_mode_change\n"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("c.yaml", []byte(policyWith(tt.rules)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Check(p) {
				if f.Kind == NeverCommanded && !strings.Contains(f.Message, "never decides") {
					t.Errorf("message %q", f.Message)
				}
				s := itoa10(f.Rule) + " " + f.Kind.String()
				if f.Kind == Shadowed {
					s += " by " + itoa10(f.By)
				}
				got = append(got, s)
				line := 1 + strings.Count(policyWith(tt.rules)[:strings.Index(policyWith(tt.rules), "- name: "+f.Name+"\n")], "\n")
				if f.File != "c.yaml" || f.Line != line || f.Column != 5 || f.Name != string(rune('a'+f.Rule)) || !strings.HasPrefix(f.String(), "c.yaml:") {
					t.Errorf("finding %s at %d:%d", f, f.Line, f.Column)
				}
			}
			if strings.Join(got, ";") != strings.Join(tt.want, ";") {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
		})
	}
}

func itoa10(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa10(i/10) + string(rune('0'+i%10))
}

// A word whose meaning differs from its MAVLink sense is reported where it
// is written, whatever else the rule does; the names that mean what they
// say are not.
func TestCheckMisleadingNames(t *testing.T) {
	tests := []struct {
		name, when, unless string
		want               []string // "line:column"
	}{
		{"rejected", "{action: {kind: hold, outcome: rejected}}", "", []string{"6:42"}},
		{"in a list", "{action: {kind: hold, outcome: {in: [denied, rejected]}}}", "", []string{"6:56"}},
		{"in unless", "{armed: true}", "{action: {kind: hold, outcome: rejected}}", []string{"9:44"}},
		{"twice", "{any: [{action: {kind: hold, outcome: rejected}}, {action: {kind: engage_land, outcome: rejected}}]}", "", []string{"6:49", "6:99"}},
		{"refused", "{action: {kind: hold, outcome: refused}}", "", nil},
		{"each MAV_RESULT", "{action: {kind: hold, outcome: {in: [accepted, in_progress, denied, temporarily_rejected, unsupported, failed, cancelled]}}}", "", nil},
		{"groups", "{action: {kind: hold, outcome: {in: [pending, executor, any_failure]}}}", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := "  - name: a\n    when: " + tt.when + "\n    action: hold\n    reason: a\n"
			if tt.unless != "" {
				rule += "    unless: " + tt.unless + "\n"
			}
			p, err := Parse("c.yaml", []byte(policyWith(rule)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Check(p) {
				if f.Kind != MisleadingName {
					continue
				}
				if f.Rule != 0 || f.Name != "a" || !strings.Contains(f.Message, "write refused for every refusal") ||
					!strings.HasPrefix(f.String(), "c.yaml:"+itoa10(f.Line)+":"+itoa10(f.Column)+": rule 0 (a): misleading_name: outcome rejected") {
					t.Errorf("finding %s", f)
				}
				got = append(got, itoa10(f.Line)+":"+itoa10(f.Column))
			}
			if strings.Join(got, ";") != strings.Join(tt.want, ";") {
				t.Fatalf("misleading names at %v, want %v", got, tt.want)
			}
		})
	}
}
