package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

const px4Policy = "../../config/policies/px4_failsafe_like.yaml"

// TestRulePolicyFlightDecidesEveryKindAndVerifies is the rule policies'
// end to end: the simulated flight decided by px4_failsafe_like reaches
// every decision kind, verify passes with the policy file supplied, reports
// every decision unknown_policy without it or with an edited file, and a
// replay of the recording is byte-identical to a second replay.
func TestRulePolicyFlightDecidesEveryKindAndVerifies(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "60s", "--rate", "20", "--quiet", "--policy-file", px4Policy); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	report := filepath.Join(dir, "report.json")
	code, stdout, stderr := cli(t, "verify", flight, "--quiet", "--json", report, "--policy-file", px4Policy)
	if code != exitOK {
		t.Fatalf("verify exit %d: %s %s", code, stdout, stderr)
	}
	var r struct {
		Decisions uint64            `json:"decisions"`
		ByKind    map[string]uint64 `json:"by_kind"`
		ByRerun   map[string]uint64 `json:"by_rerun_status"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range decisions.Kinds() {
		if r.ByKind[k.String()] == 0 {
			t.Errorf("the flight never decides %s: %v", k, r.ByKind)
		}
	}
	if r.ByRerun["matched"] != r.Decisions {
		t.Errorf("re-run %v of %d", r.ByRerun, r.Decisions)
	}

	// Without the file, and with an edited one, nothing is re-run.
	edited := filepath.Join(dir, "edited.yaml")
	text, err := os.ReadFile(px4Policy)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(text, []byte("lt: 0.15"), []byte("lt: 0.16"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--policy-file", edited}} {
		code, stdout, _ := cli(t, append([]string{"verify", flight, "--quiet"}, args...)...)
		if code != exitFindings || !strings.Contains(stdout, "verdict: FAIL: unknown_policy:") {
			t.Errorf("verify %v: exit %d, want 1 with unknown_policy:\n%s", args, code, lastLines(stdout, 3))
		}
	}

	// Replaying a rule-policy recording twice gives the same bytes.
	var outs [2][]byte
	for i := range outs {
		out := filepath.Join(dir, "replay"+string(rune('a'+i))+".mcap")
		if code, _, stderr := cli(t, "replay", "--in", flight, "--out", out, "--quiet", "--policy-file", px4Policy); code != exitOK {
			t.Fatalf("replay exit %d: %s", code, stderr)
		}
		if outs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("two replays of the same recording differ")
	}
}

func TestPolicyCommand(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, "dead.yaml")
	if err := os.WriteFile(dead, []byte(`name: dead
version: 1
default: {action: proceed, reason: nominal}
rules:
  - name: never
    when: {battery_pct: {lt: 0}}
    action: hold
    reason: impossible
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"policy", "check", px4Policy}, exitOK, "ok: every rule can fire"},
		{[]string{"policy", "check", dead}, exitFindings, "never"},
		{[]string{"policy", "test", px4Policy, "../../config/policies/px4_failsafe_like.cases.yaml"}, exitOK, " passed, 0 failed"},
		{[]string{"policy", "check", filepath.Join(dir, "missing.yaml")}, exitIO, ""},
		{[]string{"policy", "frobnicate"}, exitUsage, ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := cli(t, tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s", tt.args, code, tt.code, stdout, stderr)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
