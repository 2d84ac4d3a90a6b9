package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unusable input exits 3 from every command, with one line naming the
// file, before any output is written: a policy file that is missing,
// malformed, a directory or endless, and parameters files alike.
func TestUnusableInputExitsThree(t *testing.T) {
	dir := t.TempDir()
	flight := simulateShort(t, dir)
	malformed := filepath.Join(dir, "malformed.yaml")
	if err := os.WriteFile(malformed, []byte("name: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	namesMissing := filepath.Join(dir, "names-missing.yaml")
	if err := os.WriteFile(namesMissing, []byte("/**:\n  ros__parameters:\n    policy_file: "+missing+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []string{malformed, missing, dir}
	if _, err := os.Stat("/dev/zero"); err == nil {
		bad = append(bad, "/dev/zero")
	}
	out := filepath.Join(dir, "out")
	for _, file := range bad {
		for _, args := range [][]string{
			{"sim", "--out", out, "--duration", "2s", "--policy-file", file},
			{"replay", "--in", flight, "--out", out, "--policy-file", file},
			{"ulog", "--in", "../../pkg/vehicle/ulog/testdata/px4_v1.11_excerpt.ulg", "--out", out, "--policy-file", file},
			{"verify", flight, "--policy-file", file},
			{"report", flight, "--out", out, "--policy-file", file},
			{"policy", "check", file},
			{"policy", "test", px4Policy, file},
			{"sim", "--out", out, "--duration", "2s", "--config", file},
			{"verify", flight, "--config", file},
		} {
			if file == malformed && args[len(args)-2] == "--config" {
				continue // "name: [" is no parameters file either, but says so differently
			}
			code, _, stderr := cli(t, args...)
			if code != exitIO || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, file) {
				t.Errorf("%q: exit %d, want %d with one line naming the file:\n%.600s", args, code, exitIO, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%q wrote %s", args, out)
			}
		}
	}
	if code, _, stderr := cli(t, "sim", "--out", out, "--duration", "2s", "--config", namesMissing); code != exitIO || !strings.Contains(stderr, missing) {
		t.Errorf("a parameters file naming a missing policy file: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, _, stderr := cli(t, "policy", "check", "/dev/zero")
		if !strings.Contains(stderr, "a character device, not a regular file") {
			t.Errorf("/dev/zero as a policy file: %s", stderr)
		}
	}
}

// simulateShort writes a five-second simulated flight.
func simulateShort(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "short.mcap")
	if code, _, stderr := cli(t, "sim", "--out", out, "--duration", "5s", "--quiet"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	return out
}

// The verify command sim suggests is the one that passes: with the
// policy file, the executor flags and the parameters file it decided with.
func TestSimSuggestsAVerifyThatPasses(t *testing.T) {
	dir := t.TempDir()
	renamed := filepath.Join(dir, "drone 1.yaml")
	if err := os.WriteFile(renamed, []byte("/**:\n  ros__parameters:\n    topics:\n      state: /drone1/state/nav\n      self_assessment: /drone1/self_assessment\n      decisions: /drone1/decisions\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flags []string
		want  string // in the suggestion
	}{
		{nil, ""},
		{[]string{"--policy-file", px4Policy}, "--policy-file " + px4Policy},
		{[]string{"--policy-file", px4Policy, "--executor", "px4", "--enable", "hold,engage_land", "--target-vehicle", "7"},
			"--executor px4 --enable hold,engage_land --target-vehicle 7"},
		{[]string{"--config", renamed}, "--config '" + renamed + "'"},
		{[]string{"--policy", "uncertainty_aware_reference_v1", "--executor", "log", "--enable-kill"}, "--executor log --enable-kill"},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, "flight "+string(rune('a'+i))+".mcap")
		args := append([]string{"sim", "--out", out, "--duration", "20s", "--rate", "20"}, tt.flags...)
		code, _, stderr := cli(t, args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		_, suggestion, ok := strings.Cut(stderr, "verify it with: ")
		if !ok || !strings.Contains(suggestion, tt.want) {
			t.Fatalf("%q: suggestion %q, want %q in it", args, suggestion, tt.want)
		}
		words := shellWords(t, strings.TrimSpace(suggestion))
		if words[0] != "decision_node" || words[1] != "verify" || words[2] != out {
			t.Fatalf("%q: suggestion %q", args, words)
		}
		if code, stdout, stderr := cli(t, append(words[1:], "--quiet")...); code != exitOK {
			t.Errorf("%q: the suggested %q exits %d:\n%s%s", args, words, code, lastLines(stdout, 5), stderr)
		}
	}
}

// shellWords splits a command line as a POSIX shell does for the quoting
// shellQuote writes (single quotes).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in, started := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, started = !in, true
		case r == ' ' && !in:
			if started {
				words = append(words, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if in {
		t.Fatalf("unbalanced quotes in %q", s)
	}
	if started {
		words = append(words, cur.String())
	}
	return words
}
