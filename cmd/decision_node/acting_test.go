package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failsafePolicy decides RTL, land and hold in the simulated flight. The
// tests fly sim's default flight: shorter ones currently show evidence
// rejected while no action is outstanding, whose receipt (action 0, no
// executor) verify cannot trace.
const failsafePolicy = "../../config/policies/px4_failsafe_like.yaml"

// report audits the action trail with the executor flags, as verify does:
// without them the recorded receipts cannot be re-checked.
func TestReportAuditsActions(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "f.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--policy-file", failsafePolicy, "--executor", "px4", "--quiet"); code != exitOK {
		t.Fatalf("sim: %d %s", code, stderr)
	}
	code, _, stderr := cli(t, "report", flight, "--out", filepath.Join(dir, "a.html"), "--policy-file", failsafePolicy, "--executor", "px4", "--quiet")
	if code != exitOK {
		t.Fatalf("report with --executor: exit %d %s", code, stderr)
	}
	if code, _, _ := cli(t, "report", flight, "--out", filepath.Join(dir, "b.html"), "--policy-file", failsafePolicy, "--quiet"); code != exitFindings {
		t.Fatalf("report without the executor: exit %d, want %d", code, exitFindings)
	}
}

// executors.* in a parameters file act in sim (through the simulated
// PX4) and are re-checked by verify, like the flags.
func TestConfigExecutors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "acting.yaml")
	if err := os.WriteFile(cfg, []byte("/**:\n  ros__parameters:\n    executors:\n      executor: px4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	flight := filepath.Join(dir, "f.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--policy-file", failsafePolicy, "--config", cfg, "--quiet"); code != exitOK {
		t.Fatalf("sim: %d %s", code, stderr)
	}
	code, stdout, stderr := cli(t, "verify", flight, "--policy-file", failsafePolicy, "--config", cfg, "--quiet")
	if code != exitOK || !strings.Contains(stdout, "reached") {
		t.Fatalf("verify --config: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, _ := cli(t, "verify", flight, "--policy-file", failsafePolicy, "--quiet"); code != exitFindings {
		t.Fatalf("verify without the executors: exit %d", code)
	}
}
