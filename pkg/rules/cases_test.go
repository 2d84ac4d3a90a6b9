package rules

import (
	"errors"
	"strings"
	"testing"
)

func TestRunCasesReportsFailures(t *testing.T) {
	p := single(t, "{battery_pct: {lt: 0.2}}", "    for: 1s\n")
	src := `cases:
  - name: passes
    steps:
      - {at: 0s, battery_pct: 0.1, expect: {action: proceed}}
      - {at: 1s, expect: {action: hold, reason: fired}}
  - name: wrong_kind
    steps:
      - {at: 0s, battery_pct: 0.1, expect: {action: hold}}
      - {at: 1s, expect: {action: hold}}
  - name: wrong_reason
    steps:
      - {at: 5s, battery_pct: missing, expect: {action: abstain_uncertain, reason: no_battery}}
  - name: invalid_context
    steps:
      - {at: 0s, battery_pct: 1.5, expect: {action: proceed}}
`
	res, err := RunCases(p, "c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results", len(res))
	}
	if !res[0].Pass || res[0].Step != 1 || res[0].Got.Reason != "fired" {
		t.Errorf("passes: %+v", res[0])
	}
	if r := res[1]; r.Pass || r.Step != 0 || r.StepLine != 8 || r.Want != "hold" || r.Got.Reason != "nominal" || !strings.Contains(r.String(), "want hold, got proceed/nominal") {
		t.Errorf("wrong_kind: %+v %s", r, r)
	}
	if r := res[2]; r.Pass || r.Want != "abstain_uncertain/no_battery" || r.Got.Reason != "missing_battery_pct" {
		t.Errorf("wrong_reason: %+v", r)
	}
	if r := res[3]; r.Pass || r.Err == nil || !strings.Contains(r.String(), "battery_pct") {
		t.Errorf("invalid_context: %+v", r)
	}
}

// Steps inherit the previous step's context, and each case starts from a
// fresh instance.
func TestRunCasesSequences(t *testing.T) {
	p := single(t, "{all: [{armed: true}, {effective_level: unknown}]}", "    clear: never\n")
	src := `cases:
  - name: latch
    steps:
      - {at: 0s, armed: true, assessment: {position_y: unknown}, expect: {action: hold}}
      - {at: 1s, assessment: {level: known}, expect: {action: hold}}
      - {at: 2s, armed: false, expect: {action: hold}}
  - name: fresh
    steps:
      - {at: 0s, armed: true, assessment: {level: known}, expect: {action: proceed}}
      - {at: 1ms, calibrated_level: unknown, expect: {action: hold}}
      - {at: 2ms, calibrated_level: missing, expect: {action: hold}}
  - name: inherit
    steps:
      - {at: 0s, armed: true, assessment: {level: unknown, overall: known}}
      - {at: 1ns, expect: {action: proceed}}
      - {at: 2ns, assessment: missing, expect: {action: abstain_uncertain, reason: missing_assessment}}
`
	res, err := RunCases(p, "c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass {
			t.Error(r)
		}
	}
}

func TestRunCasesErrors(t *testing.T) {
	p := single(t, "{armed: true}", "")
	tests := []struct{ name, src, want string }{
		{"not cases", "tests: []\n", `unknown key "tests"`},
		{"no cases", "cases: []\n", "at least one case"},
		{"no steps", "cases:\n  - {name: a, steps: []}\n", "at least one step"},
		{"no expect at end", "cases:\n  - name: a\n    steps:\n      - {at: 0s, expect: {action: hold}}\n      - {at: 1s}\n", "last step must have an expect"},
		{"stamps not increasing", "cases:\n  - name: a\n    steps:\n      - {at: 1s}\n      - {at: 1s, expect: {action: hold}}\n", "later than the previous step"},
		{"duplicate case", "cases:\n  - {name: a, steps: [{at: 0s, expect: {action: hold}}]}\n  - {name: a, steps: [{at: 0s, expect: {action: hold}}]}\n", "used by an earlier case"},
		{"unknown step key", "cases:\n  - {name: a, steps: [{at: 0s, gps: ok, expect: {action: hold}}]}\n", `unknown key "gps"`},
		{"bad level", "cases:\n  - {name: a, steps: [{at: 0s, assessment: {position: lost}, expect: {action: hold}}]}\n", `position = "lost"`},
		{"bad std", "cases:\n  - {name: a, steps: [{at: 0s, assessment: {std: {position_x: high}}, expect: {action: hold}}]}\n", "want a number"},
		{"bad kind", "cases:\n  - {name: a, steps: [{at: 0s, expect: {action: fly}}]}\n", `action = "fly"`},
		{"duplicate key", "cases:\n  - {name: a, steps: [{at: 0s, armed: true, armed: false, expect: {action: hold}}]}\n", `duplicate key "armed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunCases(p, "c.yaml", []byte(tt.src))
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "c.yaml:") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a ParseError saying %q", err, tt.want)
			}
		})
	}
}

// A step's actions set the count of an episode's commands; a rule on it
// fires from the step that reaches the bound.
func TestRunCasesCommands(t *testing.T) {
	p, err := Parse("p.yaml", []byte(policyWith(`  - name: rtl_refused_thrice
    when: {action: {kind: engage_rtl, outcome: refused, commands: {ge: 3}}}
    action: engage_land
    reason: rtl_refused
`)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunCases(p, "c.yaml", []byte(`cases:
  - name: refused_three_times
    steps:
      - {at: 0s, actions: {engage_rtl: denied}, expect: {action: proceed}}
      - {at: 5s, actions: {engage_rtl: {commands: 2}}, expect: {action: proceed}}
      - {at: 10s, actions: {engage_rtl: {outcome: denied, commands: 3}}, expect: {action: engage_land, reason: rtl_refused}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass {
			t.Error(r)
		}
	}
}

// A step's actions set kinds' outcomes and enables; later steps inherit
// them, and an outcome that changes is seen from its step on (for).
func TestRunCasesActions(t *testing.T) {
	src := policyWith(`  - name: land_failed
    when: {action: {kind: engage_land, outcome: {in: [denied, not_reached]}}}
    action: engage_kill
    reason: land_failed
  - name: hold_slow
    when: {action: {kind: hold, outcome: pending}}
    for: 2s
    action: engage_land
    reason: hold_not_reached
  - name: kill_off
    when: {action: {kind: engage_kill, enabled: false}}
    action: hold
    reason: kill_off
`)
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cases := `cases:
  - name: advisory
    steps:
      - {at: 0s, expect: {action: hold, reason: kill_off}}
  - name: escalates
    steps:
      - {at: 0s, actions: {hold: sent, engage_kill: {enabled: true}, engage_land: none}, expect: {action: proceed}}
      - {at: 1s, actions: {hold: accepted}, expect: {action: proceed}}
      - {at: 2s, expect: {action: engage_land, reason: hold_not_reached}}
      - {at: 3s, actions: {hold: superseded, engage_land: {outcome: denied}}, expect: {action: engage_kill, reason: land_failed}}
      - {at: 4s, actions: {engage_kill: {enabled: false}}, expect: {action: engage_kill}}
      - {at: 5s, actions: {engage_land: reached}, expect: {action: hold, reason: kill_off}}
`
	res, err := RunCases(p, "c.yaml", []byte(cases))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass {
			t.Error(r)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: {commands: 256}}, expect: {action: hold}}]}\n", "count from 0 to 255"},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: {commands: two}}, expect: {action: hold}}]}\n", "count from 0 to 255"},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {descend: sent}, expect: {action: hold}}]}\n", `unknown key "descend"`},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: lost}, expect: {action: hold}}]}\n", `hold = "lost"`},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: any_failure}, expect: {action: hold}}]}\n", `hold = "any_failure"`},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: rejected}, expect: {action: hold}}]}\n", `hold = "rejected"`},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: {outcome: sent, since: 1s}}, expect: {action: hold}}]}\n", `unknown key "since"`},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: {enabled: 1}}, expect: {action: hold}}]}\n", "want true or false"},
		{"cases:\n  - {name: a, steps: [{at: 0s, actions: [hold], expect: {action: hold}}]}\n", "want a mapping"},
	} {
		if _, err := RunCases(p, "c.yaml", []byte(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
}
