package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimRecommand: the escalating policy on a simulated PX4 that denies
// every land and return. The return it escalates to stays decided, and is
// commanded again at the interval, up to the bound (3 here); verify re-derives
// every re-command and fails when it is told re-commanding was off;
// replay reproduces the recording; the report names the span of
// "decided engage_rtl, vehicle in offboard" with its commands. With
// re-commanding off the same flight sends fewer commands and verifies
// with the same flag.
func TestSimRecommand(t *testing.T) {
	dir := t.TempDir()
	flight := func(name string, extra ...string) string {
		out := filepath.Join(dir, name+".mcap")
		args := append([]string{"sim", "--out", out, "--duration", "60s", "--rate", "10", "--quiet", "--policy-file", escalatingPolicy,
			"--executor", "px4", "--px4-script", "accept", "--px4-deny", "engage_rtl,engage_land"}, extra...)
		if code, _, stderr := cli(t, args...); code != exitOK {
			t.Fatalf("sim %s: exit %d %s", name, code, stderr)
		}
		return out
	}
	on := flight("on", "--max-recommands", "3")
	sentOn := verifiedActions(t, on, "--policy-file", escalatingPolicy, "--executor", "px4", "--max-recommands", "3")["sent"]
	off := flight("off", "--recommand-interval", "0")
	sentOff := verifiedActions(t, off, "--policy-file", escalatingPolicy, "--executor", "px4", "--recommand-interval", "0")["sent"]
	if sentOn != sentOff+3 {
		t.Fatalf("sent %d commands with re-commands, %d without: want 3 re-commands", sentOn, sentOff)
	}
	if code, stdout, _ := cli(t, "verify", on, "--quiet", "--policy-file", escalatingPolicy, "--executor", "px4", "--max-recommands", "0"); code != exitFindings ||
		!strings.Contains(stdout, "action_diverged") {
		t.Errorf("verify with re-commanding off: exit %d, want %d with action_diverged\n%s", code, exitFindings, stdout)
	}
	if code, _, _ := cli(t, "verify", on, "--quiet", "--policy-file", escalatingPolicy, "--executor", "px4"); code != exitFindings {
		t.Errorf("verify with another bound: exit %d, want %d", code, exitFindings)
	}
	if code, _, _ := cli(t, "verify", off, "--quiet", "--policy-file", escalatingPolicy, "--executor", "px4"); code != exitFindings {
		t.Errorf("verify of the flight without re-commands, re-commanding on: exit %d, want %d", code, exitFindings)
	}

	replayed := filepath.Join(dir, "replayed.mcap")
	if code, _, stderr := cli(t, "replay", "--in", on, "--out", replayed, "--quiet", "--policy-file", escalatingPolicy, "--executor", "px4", "--max-recommands", "3"); code != exitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(on)
	b, _ := os.ReadFile(replayed)
	if !bytes.Equal(a, b) {
		t.Fatal("replaying the recording with re-commands changed its bytes")
	}

	code, stdout, stderr := cli(t, "report", on, "--out", filepath.Join(dir, "on.html"), "--policy-file", escalatingPolicy, "--executor", "px4", "--max-recommands", "3")
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	for _, w := range []string{"decided X, vehicle in Y: ", "decided engage_rtl for", "while the vehicle was in offboard, 4 commands sent in it",
		"not re-commanded: the episode sent 4 commands, the first and 3 re-commands (the bound)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("report's summary does not say %q:\n%s", w, stdout)
		}
	}
}

// TestEscalationOnCommands: a rule on the count of an episode's commands
// sees the re-commands: a return refused three times lands, in sim and in
// verify alike.
func TestEscalationOnCommands(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "p.yaml")
	src := `name: rtl_commands
version: 1
default: {action: proceed, reason: nominal}
rules:
  - name: rtl_refused_thrice
    when: {all: [{armed: true}, {action: {kind: engage_rtl, outcome: refused, commands: {ge: 3}}}]}
    action: engage_land
    reason: rtl_refused_thrice
    clear: on_mode_change
  - name: uncertain
    when: {effective_level: {at_least: uncertain}}
    action: engage_rtl
    reason: belief_uncertain
`
	if err := os.WriteFile(policy, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		interval string
		fires    bool
	}{{"2s", true}, {"0", false}} {
		flight := filepath.Join(dir, "f"+tc.interval+".mcap")
		if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "60s", "--rate", "10", "--quiet", "--policy-file", policy,
			"--executor", "px4", "--px4-script", "accept", "--px4-deny", "engage_rtl", "--recommand-interval", tc.interval); code != exitOK {
			t.Fatalf("sim: exit %d %s", code, stderr)
		}
		code, stdout, stderr := cli(t, "verify", flight, "--policy-file", policy, "--executor", "px4", "--recommand-interval", tc.interval)
		if code != exitOK {
			t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
		}
		if fired := strings.Contains(stdout, "rtl_refused_thrice "); fired != tc.fires {
			t.Errorf("interval %s: the rule on three commands fired %t, want %t\n%s", tc.interval, fired, tc.fires, stdout)
		}
	}
}
