package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify names each cause once with its fix, instead of one line per
// decision or receipt, and its JSON carries the causes.
func TestVerifyNamesTheFixOnce(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "30s", "--rate", "20", "--quiet",
		"--policy-file", px4Policy, "--executor", "px4"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	report := filepath.Join(dir, "report.json")
	code, stdout, _ := cli(t, "verify", flight, "--quiet", "--json", report)
	if code != exitFindings {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	var problems []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "problem: ") {
			problems = append(problems, line)
		}
	}
	if len(problems) != 2 ||
		!strings.Contains(problems[0], " decisions name policy px4_failsafe_like_") || !strings.Contains(problems[0], "which was not supplied: pass --policy-file") ||
		!strings.Contains(problems[1], "the recording holds actions by executor px4, which was not supplied: pass --executor px4") {
		t.Fatalf("problems:\n%s", strings.Join(problems, "\n"))
	}
	if n := strings.Count(stdout, "\n  e.g. "); n != 2 {
		t.Errorf("%d examples, want one per cause:\n%s", n, stdout)
	}
	var r struct {
		Decisions uint64 `json:"decisions"`
		Causes    []struct {
			Cause   string `json:"cause"`
			Subject string `json:"subject"`
			Count   uint64 `json:"count"`
		} `json:"causes"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Causes) != 2 || r.Causes[0].Cause != "policy_not_supplied" || r.Causes[0].Count != r.Decisions ||
		r.Causes[1].Cause != "executor_not_supplied" || r.Causes[1].Subject != "px4" {
		t.Fatalf("causes %+v of %d decisions", r.Causes, r.Decisions)
	}
	// Given what it names, verify passes.
	if code, stdout, _ := cli(t, "verify", flight, "--quiet", "--policy-file", px4Policy, "--executor", "px4"); code != exitOK {
		t.Fatalf("with the fix: exit %d\n%s", code, lastLines(stdout, 5))
	}
}
