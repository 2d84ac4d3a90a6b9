package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSimExecutorPX4 is the executors' end to end: the simulated flight,
// decided by px4_failsafe_like and acting through the px4 executor on the
// simulated PX4, shows every outcome; verify passes with the same
// executor supplied and fails without it or with a receipt altered; a
// replay reproduces the recording byte for byte; and without --executor
// nothing acts. Re-commands are off: the default script's cycle gives the
// flight's actions every outcome as it is (TestSimRecommand covers them).
func TestSimExecutorPX4(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--rate", "20", "--quiet", "--policy-file", px4Policy, "--executor", "px4", "--recommand-interval", "0"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	actions := verifiedActions(t, flight, "--policy-file", px4Policy, "--executor", "px4", "--recommand-interval", "0")
	for _, ev := range []string{"sent", "retried", "evidence_accepted", "evidence_rejected", "accepted", "reached",
		"failed_not_applicable", "failed_blocked_by_policy", "failed_transport", "failed_executor"} {
		if actions[ev] == 0 {
			t.Errorf("no %s receipt: %v", ev, actions)
		}
	}
	if code, _, _ := cli(t, "verify", flight, "--quiet", "--policy-file", px4Policy); code != exitFindings {
		t.Errorf("verify without the executor: exit %d, want %d", code, exitFindings)
	}
	if code, _, _ := cli(t, "verify", flight, "--quiet", "--policy-file", px4Policy, "--executor", "px4", "--recommand-interval", "0", "--enable-kill"); code != exitFindings {
		t.Errorf("verify with another enable: exit %d, want %d", code, exitFindings)
	}

	replayed := filepath.Join(dir, "replayed.mcap")
	if code, _, stderr := cli(t, "replay", "--in", flight, "--out", replayed, "--quiet", "--policy-file", px4Policy, "--executor", "px4", "--recommand-interval", "0"); code != exitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(flight)
	b, _ := os.ReadFile(replayed)
	if !bytes.Equal(a, b) {
		t.Fatal("replaying the recording with actions changed its bytes")
	}

	plain := filepath.Join(dir, "plain.mcap")
	if code, _, stderr := cli(t, "sim", "--out", plain, "--rate", "20", "--quiet", "--policy-file", px4Policy); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	if actions := verifiedActions(t, plain, "--policy-file", px4Policy); len(actions) != 0 {
		t.Fatalf("without --executor: actions %v", actions)
	}
}

func TestExecutorFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--executor", "mavlink"},
		{"--enable", "hold"},
		{"--executor", "px4", "--enable", "engage_kill"},
		{"--executor", "px4", "--enable", "fly"},
		{"--executor", "px4", "--enable", "proceed"},
		{"--executor", "px4", "--target-vehicle", "0"},
	} {
		out := filepath.Join(dir, "x.mcap")
		if code, _, _ := cli(t, append([]string{"sim", "--out", out, "--duration", "2s", "--quiet"}, args...)...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestEnableNone: --enable none enables no kind, so every action the
// executor serves fails as blocked_by_policy and none is sent.
func TestEnableNone(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--rate", "10", "--duration", "60s", "--quiet", "--policy-file", px4Policy,
		"--executor", "px4", "--enable", "none"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	actions := verifiedActions(t, flight, "--policy-file", px4Policy, "--executor", "px4", "--enable", "none")
	if actions["sent"] != 0 || actions["failed_blocked_by_policy"] == 0 {
		t.Fatalf("actions with --enable none: %v", actions)
	}
}

// verifiedActions verifies flight with the flags, which must pass, and
// returns the report's receipt counts.
func verifiedActions(t *testing.T, flight string, flags ...string) map[string]uint64 {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	args := append([]string{"verify", flight, "--quiet", "--json", report}, flags...)
	if code, stdout, stderr := cli(t, args...); code != exitOK {
		t.Fatalf("verify exit %d: %s %s", code, stdout, stderr)
	}
	var r struct {
		Actions map[string]uint64 `json:"actions"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r.Actions
}
