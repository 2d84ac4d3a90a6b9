package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// FuzzParse: no input panics; what parses has a valid id, a canonical form
// that parses to the same id when written back as the file, and decides
// without error on a valid context.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(shippedDir, "*.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "{}", "[]", "name: a", policyWith(oneRule), policyWith(oneRule + "    for: 1s\n    clear: never\n"),
		"name: &a x\nversion: *a\n", "a: b\n---\nc: d\n", "!!binary aGVsbG8=", "? [a]\n: b\n",
		policyWith("  - {name: r, when: {any: [{not: {missing: perception}}, {std: {axis: position_x, gt: 1e308}}]}, action: engage_kill, reason: k}\n"),
		policyWith("  - {name: r, when: {action: {kind: engage_land, outcome: {in: [executor, transport]}, enabled: true}}, unless: {action: {kind: hold, outcome: pending}}, action: engage_rtl, reason: f, clear: on_mode_change}\n"),
		policyWith("  - {name: r, when: {action: {kind: hold, outcome: failed}}, action: engage_land, reason: f, for: 5s}\n"),
		policyWith("  - {name: r, when: {action: {kind: hold, outcome: {in: [none, sent]}}}, action: hold, reason: f}\n"),
		policyWith("  - {name: r, when: {all: [{gnss: {fix: {at_least: 3d}, satellites: {lt: 6}}}, {estimator: {gps_fused: false, dead_reckoning: true}}, " +
			"{px4_failsafe: {flag: {in: [navigator_failure, attitude_invalid]}}}]}, action: hold, reason: h}\n"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if p != nil {
				t.Fatal("policy and error")
			}
			return
		}
		if !isIdentifier(p.ID(), 64) {
			t.Fatalf("id %q", p.ID())
		}
		Check(p)
		d, err := p.Decide(ctx(0, assessed(uncertain, 1)))
		if err != nil || d.Validate() != nil {
			t.Fatalf("decide: %v %v", d, err)
		}
		d, err = p.Decide(ctx(1, assessed(known, 1), armed(true), acted(decisions.KindEngageLand, decisions.ActionDenied, true)))
		if err != nil || d.Validate() != nil {
			t.Fatalf("decide with actions: %v %v", d, err)
		}
	})
}

// FuzzRunCases: no cases file panics.
func FuzzRunCases(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(shippedDir, "*.cases.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("cases:\n  - {name: a, steps: [{at: 0s, assessment: {level: known, std: {position_x: none}}, expect: {action: hold}}]}\n"))
	f.Add([]byte("cases:\n  - {name: a, steps: [{at: 0s, actions: {hold: sent, engage_kill: {enabled: false}}}, {at: 1s, actions: {hold: {outcome: denied}}, expect: {action: hold}}]}\n"))
	p, err := Parse("p.yaml", []byte(policyWith(oneRule)))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		RunCases(p, "fuzz.yaml", data)
	})
}
