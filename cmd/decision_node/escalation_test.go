package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const escalatingPolicy = "../../config/policies/px4_failsafe_escalating.yaml"

// The --px4-* flags script the simulated PX4 so an escalation runs in sim,
// and verify re-checks the recording with the executor flags alone.
func TestSimScriptsEscalations(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		flags []string
		want  string // a line of verify's summary
	}{
		{"land denied, kill enabled", []string{"--px4-script", "accept", "--px4-deny", "engage_land", "--enable-kill"}, "land_failed"},
		{"hold and land never reached", []string{"--px4-script", "accept", "--px4-never-reach", "hold, engage_land"}, "hold_not_reached"},
		{"no pilot sticks", []string{"--px4-script", "accept", "--px4-reject", "yield_to_pilot"}, "pilot_unavailable"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flight := filepath.Join(dir, "f"+string(rune('0'+i))+".mcap")
			args := append([]string{"sim", "--out", flight, "--duration", "60s", "--rate", "10", "--policy-file", escalatingPolicy, "--executor", "px4", "--quiet"}, tc.flags...)
			if code, _, stderr := cli(t, args...); code != exitOK {
				t.Fatalf("sim: exit %d %s", code, stderr)
			}
			vargs := []string{"verify", flight, "--policy-file", escalatingPolicy, "--executor", "px4", "--quiet"}
			if strings.Contains(strings.Join(tc.flags, " "), "--enable-kill") {
				vargs = append(vargs, "--enable-kill")
			}
			code, stdout, stderr := cli(t, vargs...)
			if code != exitOK || !strings.Contains(stdout, tc.want) {
				t.Fatalf("verify: exit %d, want %q in\n%s%s", code, tc.want, stdout, stderr)
			}
		})
	}
}

// Each refusal PX4 can answer reaches a policy under its own name and under
// refused; rejected, the first version's word, misses DENIED and
// TEMPORARILY_REJECTED, and policy check says so. An IN_PROGRESS answer is
// an acceptance under its own name, not accepted, and no refusal.
func TestEscalationOnEachOutcome(t *testing.T) {
	dir := t.TempDir()
	policy := func(word string) string {
		f := filepath.Join(dir, word+".yaml")
		src := "name: rtl_" + word + "\nversion: 1\ndefault: {action: proceed, reason: nominal}\nrules:\n" +
			"  - name: rtl_refused\n    when: {all: [{armed: true}, {action: {kind: engage_rtl, outcome: " + word + "}}]}\n" +
			"    action: engage_land\n    reason: rtl_" + word + "\n    clear: on_mode_change\n" +
			"  - name: uncertain\n    when: {effective_level: {at_least: uncertain}}\n    action: engage_rtl\n    reason: belief_uncertain\n"
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		behaviour, word string
		fires           bool
	}{
		{"deny", "refused", true}, {"deny", "denied", true}, {"deny", "rejected", false},
		{"reject", "refused", true}, {"reject", "temporarily_rejected", true}, {"reject", "rejected", false},
		{"unsupported", "refused", true}, {"unsupported", "unsupported", true}, {"unsupported", "rejected", true},
		{"fail", "refused", true}, {"fail", "failed", true}, {"fail", "denied", false},
		{"cancel", "refused", true}, {"cancel", "cancelled", true}, {"cancel", "executor", true},
		{"in_progress", "refused", false}, {"in_progress", "in_progress", true}, {"in_progress", "accepted", false},
		{"accept", "accepted", true}, {"accept", "refused", false},
	}
	for i, tc := range tests {
		t.Run(tc.behaviour+"/"+tc.word, func(t *testing.T) {
			p := policy(tc.word)
			flight := filepath.Join(dir, "f"+strconv.Itoa(i)+".mcap")
			if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "30s", "--rate", "10", "--policy-file", p,
				"--executor", "px4", "--px4-script", tc.behaviour, "--quiet"); code != exitOK {
				t.Fatalf("sim: exit %d %s", code, stderr)
			}
			code, stdout, stderr := cli(t, "verify", flight, "--policy-file", p, "--executor", "px4", "--quiet")
			if code != exitOK {
				t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
			if fired := strings.Contains(stdout, "rtl_"+tc.word+" "); fired != tc.fires {
				t.Fatalf("rule on outcome %s fired %t after a %s answer, want %t\n%s", tc.word, fired, tc.behaviour, tc.fires, stdout)
			}
			if tc.behaviour == "in_progress" && !strings.Contains(stdout, "reached") {
				t.Fatalf("an action acknowledged IN_PROGRESS was not reached\n%s", stdout)
			}
			code, stdout, _ = cli(t, "policy", "check", p)
			if misleading := strings.Contains(stdout, "misleading_name"); misleading != (tc.word == "rejected") || (code == exitOK) == misleading {
				t.Fatalf("policy check of outcome %s: exit %d\n%s", tc.word, code, stdout)
			}
		})
	}
}

func TestSimPX4FlagErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--px4-deny", "engage_land"}, "need --executor px4"},
		{[]string{"--executor", "log", "--px4-deny", "engage_land"}, "need --executor px4"},
		{[]string{"--executor", "px4", "--px4-deny", "descend"}, `--px4-deny "descend"`},
		{[]string{"--executor", "px4", "--px4-reject", "proceed"}, "never commands it"},
		{[]string{"--executor", "px4", "--px4-deny", "hold", "--px4-never-reach", "hold"}, "already scripted as deny"},
		{[]string{"--executor", "px4", "--px4-script", "accept,explode"}, `"explode"`},
	}
	for _, tc := range tests {
		args := append([]string{"sim", "--out", filepath.Join(dir, "x.mcap"), "--duration", "1s", "--quiet"}, tc.args...)
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q in %s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
}

// policy check reports a test of the outcome of a kind the policy never
// decides, and passes the shipped escalating policy.
func TestPolicyCheckActionConditions(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(`name: bad
version: 1
default: {action: proceed, reason: nominal}
rules:
  - name: land_failed
    when: {action: {kind: engage_land, outcome: any_failure}}
    action: engage_rtl
    reason: land_failed
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "policy", "check", bad)
	if code != exitFindings || !strings.Contains(stdout, "never_commanded") || !strings.Contains(stderr, "1 rules test the outcome of a kind the policy never decides") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := cli(t, "policy", "check", escalatingPolicy); code != exitOK || !strings.Contains(stdout, "ok: every rule can fire") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := cli(t, "policy", "test", escalatingPolicy, "../../config/policies/px4_failsafe_escalating.cases.yaml"); code != exitOK || !strings.Contains(stdout, " 0 failed") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
}

// The shipped health policy runs end to end: acting through PX4, the
// simulated vehicle reports a PX4's health, each health rule decides in the
// GPS loss, and verify re-makes every decision from the recorded beliefs.
// Without PX4 the beliefs carry no health and the policy abstains.
func TestSimHealthPolicy(t *testing.T) {
	const policy = "../../config/policies/px4_gnss_health.yaml"
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"px4", []string{"--executor", "px4"}, []string{"gnss_lost", "gnss_not_fused", "px4_position_invalid"}},
		{"advisory", nil, []string{"missing_estimator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flight := filepath.Join(dir, tc.name+".mcap")
			// 120 s: the estimator stops fusing the receiver for 16 % of
			// the flight, longer than the rule's 10 s.
			args := append([]string{"sim", "--out", flight, "--duration", "120s", "--rate", "10", "--policy-file", policy, "--quiet"}, tc.flags...)
			if code, _, stderr := cli(t, args...); code != exitOK {
				t.Fatalf("sim: exit %d %s", code, stderr)
			}
			code, stdout, stderr := cli(t, append([]string{"verify", flight, "--policy-file", policy, "--quiet"}, tc.flags...)...)
			if code != exitOK || !strings.Contains(stdout, "verdict: PASS") || !regexp.MustCompile(`\bdiverged +0\b`).MatchString(stdout) {
				t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("verify's summary lacks %q\n%s", w, stdout)
				}
			}
		})
	}
}
