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

// TestVerifyNamesEachFix: each way a host's flags can differ from the
// recording host's gets one problem line that names the exact fix, and
// the fix passes.
func TestVerifyNamesEachFix(t *testing.T) {
	dir := t.TempDir()
	acting := filepath.Join(dir, "acting.mcap")
	mustRun(t, "sim", "--out", acting, "--rate", "10", "--quiet", "--policy-file", px4Policy, "--executor", "px4", "--enable-kill")
	advisory := filepath.Join(dir, "advisory.mcap")
	mustRun(t, "sim", "--out", advisory, "--duration", "20s", "--rate", "10", "--quiet")
	text, err := os.ReadFile(px4Policy)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(edited, []byte(strings.Replace(string(text), "lt: 0.15", "lt: 0.16", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string // in the one problem line
		fix  []string // the flags that pass
	}{
		{"kill not enabled", []string{acting, "--policy-file", px4Policy, "--executor", "px4"},
			[]string{"the recording acted on engage_kill, which this host did not enable: pass --enable-kill"},
			[]string{acting, "--policy-file", px4Policy, "--executor", "px4", "--enable-kill"}},
		{"a kind not enabled", []string{acting, "--policy-file", px4Policy, "--executor", "px4", "--enable-kill", "--enable", "hold"},
			[]string{"which this host did not enable: pass --enable with "}, nil},
		{"no executor", []string{acting, "--policy-file", px4Policy},
			[]string{"the recording holds actions by executor px4, which was not supplied: pass --executor px4 --enable-kill"}, nil},
		{"an advisory recording with an executor", []string{advisory, "--executor", "px4"},
			[]string{"it was made without an executor (advisory)", "Verify it without --executor"},
			[]string{advisory}},
		{"an edited policy", []string{acting, "--policy-file", edited, "--executor", "px4", "--enable-kill"},
			[]string{"but " + edited + " is px4_failsafe_like_", "the same policy, px4_failsafe_like, with other rules",
				"decision_node replay --in " + acting + " --out replayed.mcap --policy-file " + edited}, nil},
	}
	// report without flags says the same fixes, on stdout and in the HTML.
	t.Run("report without flags", func(t *testing.T) {
		html := filepath.Join(dir, "report.html")
		code, stdout, _ := cli(t, "report", acting, "--out", html)
		data, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"pass --policy-file", "pass --executor px4 --enable-kill"} {
			if code != exitFindings || !strings.Contains(stdout, "to fix: ") || !strings.Contains(stdout, want) || !strings.Contains(string(data), want) {
				t.Errorf("exit %d; the report does not say %q:\n%s", code, want, stdout)
			}
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, _ := cli(t, append([]string{"verify", "--quiet"}, tc.args...)...)
			var problems []string
			for _, line := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(line, "problem: ") {
					problems = append(problems, line)
				}
			}
			if code != exitFindings || len(problems) != 1 {
				t.Fatalf("exit %d, %d problem lines, want one:\n%s", code, len(problems), strings.Join(problems, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(problems[0], w) {
					t.Errorf("the problem does not say %q:\n%s", w, problems[0])
				}
			}
			if tc.fix != nil {
				if code, stdout, _ := cli(t, append([]string{"verify", "--quiet"}, tc.fix...)...); code != exitOK {
					t.Errorf("with the fix: exit %d\n%s", code, lastLines(stdout, 5))
				}
			}
		})
	}
}
