package rules

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// policyWith wraps rule YAML (indented as list items under rules:) in a
// valid policy.
func policyWith(rules string) string {
	return "name: test\nversion: 1\ndefault: {action: proceed, reason: nominal}\nrules:\n" + rules
}

const oneRule = "  - name: r\n    when: {armed: true}\n    action: hold\n    reason: armed\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		want      string // substring of the message
	}{
		{"empty", "", 1, 1, "empty file"},
		{"syntax", "name: [\n", 1, 1, "yaml"},
		{"not a mapping", "- a\n", 1, 1, "want a mapping"},
		{"unknown top key", policyWith(oneRule) + "extra: 1\n", 9, 1, `unknown key "extra"`},
		{"duplicate top key", "name: a\nname: b\nversion: 1\n", 2, 1, `duplicate key "name" (first at line 1)`},
		{"missing default", "name: a\nversion: 1\nrules: []\n", 1, 1, `missing key "default"`},
		{"bad name", strings.Replace(policyWith(oneRule), "name: test", "name: Test", 1), 1, 7, `name = "Test"`},
		{"name too long", strings.Replace(policyWith(oneRule), "name: test", "name: "+strings.Repeat("a", 52), 1), 1, 7, "1 to 51 characters"},
		{"version string", strings.Replace(policyWith(oneRule), "version: 1", "version: one", 1), 2, 10, "want an integer"},
		{"version zero", strings.Replace(policyWith(oneRule), "version: 1", "version: 0", 1), 2, 10, "must be >= 1"},
		{"bad default kind", strings.Replace(policyWith(oneRule), "action: proceed", "action: go", 1), 3, 19, `default.action = "go"`},
		{"reserved reason", strings.Replace(policyWith(oneRule), "reason: nominal", "reason: missing_x", 1), 3, 36, "reserved"},
		{"no rules", "name: a\nversion: 1\ndefault: {action: proceed, reason: n}\nrules: []\n", 4, 8, "want 1 to 256 rules"},
		{"unknown rule key", policyWith(oneRule + "    when_: 1\n"), 9, 5, `unknown key "when_"`},
		{"duplicate rule key", policyWith(oneRule + "    action: hold\n"), 9, 5, `duplicate key "action" (first at line 7)`},
		{"rule missing when", policyWith("  - name: r\n    action: hold\n    reason: x\n"), 5, 5, `missing key "when"`},
		{"bad action", policyWith(strings.Replace(oneRule, "action: hold", "action: hover", 1)), 7, 13, `rules[0].action = "hover"`},
		{"bad reason", policyWith(strings.Replace(oneRule, "reason: armed", "reason: Armed!", 1)), 8, 13, `rules[0].reason = "Armed!"`},
		{"reason too long", policyWith(strings.Replace(oneRule, "reason: armed", "reason: "+strings.Repeat("r", 65), 1)), 8, 13, "1 to 64"},
		{"duplicate rule names", policyWith(oneRule + oneRule), 9, 5, "already the name of rules[0]"},
		{"negative for", policyWith(oneRule + "    for: -1s\n"), 9, 10, "must not be negative"},
		{"for without unit", policyWith(oneRule + "    for: 2\n"), 9, 10, "want a duration"},
		{"bad clear", policyWith(oneRule + "    clear: sometimes\n"), 9, 12, `clear = "sometimes"`},
		{"clear unknown key", policyWith(oneRule + "    clear: {before: 1s}\n"), 9, 13, `unknown key "before"`},
		{"negative clear", policyWith(oneRule + "    clear: {after: -5ms}\n"), 9, 20, "must not be negative"},
		{"unknown condition", policyWith(strings.Replace(oneRule, "armed: true", "altitude: 3", 1)), 6, 12, `unknown condition "altitude"`},
		{"two keys in condition", policyWith(strings.Replace(oneRule, "{armed: true}", "{armed: true, missing: assessment}", 1)), 6, 11, "exactly one key"},
		{"armed not bool", policyWith(strings.Replace(oneRule, "armed: true", "armed: yes", 1)), 6, 19, "want true or false"},
		{"bad block", policyWith(strings.Replace(oneRule, "{armed: true}", "{level: {block: altitude, is: known}}", 1)), 6, 27, `block = "altitude"`},
		{"bad level", policyWith(strings.Replace(oneRule, "{armed: true}", "{level: {block: position, is: lost}}", 1)), 6, 41, `is = "lost"`},
		{"level without operator", policyWith(strings.Replace(oneRule, "{armed: true}", "{level: {block: position}}", 1)), 6, 19, "want at least one of"},
		{"level unknown operator", policyWith(strings.Replace(oneRule, "{armed: true}", "{level: {block: position, above: known}}", 1)), 6, 37, `unknown key "above"`},
		{"bad axis", policyWith(strings.Replace(oneRule, "{armed: true}", "{axis: {name: position_w, is: known}}", 1)), 6, 25, `name = "position_w"`},
		{"std not number", policyWith(strings.Replace(oneRule, "{armed: true}", "{std: {axis: position_x, gt: high}}", 1)), 6, 40, "want a number"},
		{"std nan", policyWith(strings.Replace(oneRule, "{armed: true}", "{std: {axis: position_x, gt: .nan}}", 1)), 6, 40, "finite"},
		{"battery inf", policyWith(strings.Replace(oneRule, "{armed: true}", "{battery_pct: {lt: .inf}}", 1)), 6, 30, "finite"},
		{"battery without op", policyWith(strings.Replace(oneRule, "{armed: true}", "{battery_v: {}}", 1)), 6, 23, "want at least one of"},
		{"bad flight mode", policyWith(strings.Replace(oneRule, "{armed: true}", "{flight_mode: acro}", 1)), 6, 25, `flight_mode = "acro"`},
		{"flight mode twice", policyWith(strings.Replace(oneRule, "{armed: true}", "{flight_mode: {in: [manual, manual]}}", 1)), 6, 39, "listed twice"},
		{"empty in", policyWith(strings.Replace(oneRule, "{armed: true}", "{mission_mode: {in: []}}", 1)), 6, 31, "at least one name"},
		{"bad mission mode", policyWith(strings.Replace(oneRule, "{armed: true}", "{mission_mode: {is: explore}}", 1)), 6, 27, `unknown key "is"`},
		{"bad perception mode", policyWith(strings.Replace(oneRule, "{armed: true}", "{perception_mode: dark}", 1)), 6, 29, `perception_mode = "dark"`},
		{"bad missing field", policyWith(strings.Replace(oneRule, "{armed: true}", "{missing: gps}", 1)), 6, 21, `missing = "gps"`},
		{"empty all", policyWith(strings.Replace(oneRule, "{armed: true}", "{all: []}", 1)), 6, 17, "at least one condition"},
		{"any not list", policyWith(strings.Replace(oneRule, "{armed: true}", "{any: {armed: true}}", 1)), 6, 17, "want a list"},
		{"alias", "name: &n test\nversion: 1\ndefault: {action: proceed, reason: *n}\nrules: []\n", 3, 36, "aliases are not supported"},
		{"merge key", policyWith(oneRule) + "<<: {x: 1}\n", 9, 1, `got !!merge "<<"`},
		{"two documents", policyWith(oneRule) + "---\nname: b\n", 9, 1, "more than one YAML document"},
		{"nested too deep", policyWith(strings.Replace(oneRule, "{armed: true}", strings.Repeat("{not: ", 20)+"{armed: true}"+strings.Repeat("}", 20), 1)), 6, 0, "nest deeper than 16"},
		{"non-string key", policyWith(oneRule) + "1: x\n", 9, 1, "keys must be plain strings"},
	}
	loc := regexp.MustCompile(`^policy\.yaml:(\d+):(\d+): `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("policy.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("accepted: %s", p.ID())
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T, want *ParseError", err)
			}
			if !loc.MatchString(err.Error()) {
				t.Errorf("error %q does not start with file:line:column", err)
			}
			if pe.Line != tt.line || (tt.col != 0 && pe.Column != tt.col) {
				t.Errorf("at %d:%d, want %d:%d (%v)", pe.Line, pe.Column, tt.line, tt.col, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < maxRules+1; i++ {
		b.WriteString("  - {name: r" + strings.Repeat("x", i%3) + itoa(i) + ", when: {armed: true}, action: hold, reason: a}\n")
	}
	if _, err := Parse("p.yaml", []byte(policyWith(b.String()))); err == nil || !strings.Contains(err.Error(), "want 1 to 256 rules") {
		t.Fatalf("257 rules: %v", err)
	}
	big := policyWith(oneRule) + "description: \"" + strings.Repeat("x", maxFileBytes) + "\"\n"
	if _, err := Parse("p.yaml", []byte(big)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("huge file: %v", err)
	}
	// Long values are quoted with a cap, so messages stay one short line.
	_, err := Parse("p.yaml", []byte(strings.Replace(policyWith(oneRule), "action: hold", "action: "+strings.Repeat("h", 500), 1)))
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("long value: %d-byte error %v", len(err.Error()), err)
	}
}

func itoa(i int) string {
	return strings.TrimLeft(string(rune('a'+i/26%26))+string(rune('a'+i%26)), "")
}

// The id names the rule set: formatting, comments, key order, descriptions
// and equivalent spellings do not change it; anything that can change a
// decision does.
func TestIdentity(t *testing.T) {
	base := policyWith(oneRule)
	p, err := Parse("a.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`^test_[0-9a-f]{12}$`)
	if !id.MatchString(p.ID()) {
		t.Fatalf("id %q", p.ID())
	}
	same := []string{
		"# comment\n" + base,
		"version: 1\nname: test\nrules:\n- reason: armed\n  action: hold\n  when:\n    armed: true\n  name: r\ndefault:\n  reason: nominal\n  action: proceed\n",
		strings.Replace(base, "version: 1", "version: 1\ndescription: words", 1),
		policyWith(oneRule + "    for: 0s\n    clear: {after: 0ms}\n"),
	}
	for i, src := range same {
		q, err := Parse("b.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if q.ID() != p.ID() {
			t.Errorf("variant %d: id %s, want %s\n%s", i, q.ID(), p.ID(), q.Canonical())
		}
		if string(q.Text()) != src {
			t.Errorf("variant %d: Text is not the file", i)
		}
	}
	// Equivalent condition spellings hash the same.
	pairs := [][2]string{
		{"{level: {block: position, is: unknown}}", "{level: {block: position, at_least: unknown}}"},
		{"{effective_level: uncertain}", "{effective_level: {in: [uncertain]}}"},
		{"{flight_mode: manual}", "{flight_mode: {in: [manual]}}"},
		{"{battery_pct: {lt: 0.0}}", "{battery_pct: {lt: -0.0}}"},
		{"{battery_v: {gt: 1, ge: 2}}", "{battery_v: {ge: 2}}"},
	}
	for _, pr := range pairs {
		a, err1 := Parse("a", []byte(policyWith(strings.Replace(oneRule, "{armed: true}", pr[0], 1))))
		b, err2 := Parse("b", []byte(policyWith(strings.Replace(oneRule, "{armed: true}", pr[1], 1))))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a.ID() != b.ID() {
			t.Errorf("%s and %s hash differently:\n%s\n%s", pr[0], pr[1], a.Canonical(), b.Canonical())
		}
	}
	different := []string{
		strings.Replace(base, "version: 1", "version: 2", 1),
		strings.Replace(base, "reason: nominal", "reason: nominal2", 1),
		policyWith(strings.Replace(oneRule, "action: hold", "action: engage_rtl", 1)),
		policyWith(strings.Replace(oneRule, "reason: armed", "reason: armed2", 1)),
		policyWith(strings.Replace(oneRule, "name: r", "name: r2", 1)),
		policyWith(strings.Replace(oneRule, "armed: true", "armed: false", 1)),
		policyWith(oneRule + "    for: 1ns\n"),
		policyWith(oneRule + "    clear: never\n"),
		policyWith(oneRule + "    clear: on_disarm\n"),
		policyWith(oneRule + "    clear: {after: 1ns}\n"),
		policyWith(oneRule + strings.Replace(oneRule, "name: r", "name: s", 1)),
	}
	for i, src := range different {
		q, err := Parse("c.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if q.ID() == p.ID() {
			t.Errorf("variant %d has the same id", i)
		}
	}
	// The canonical form is what the id hashes, and it is stable.
	want := `{"default":{"action":"proceed","reason":"nominal"},"name":"test","rules":[{"action":"hold","clear":{"after_ns":0},"for_ns":0,"name":"r","reason":"armed","when":{"armed":true}}],"version":1}`
	if got := string(p.Canonical()); got != want {
		t.Fatalf("canonical\n got %s\nwant %s", got, want)
	}
}
