package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every error is one line naming the file, flag or value at fault, and
// short whatever the input; a usage error (exit 2) is followed by the
// command's synopsis and where its help is, nothing more.
func TestErrorsAreOneClearLine(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mcap")
	twoDocs := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(twoDocs, []byte("/**:\n  ros__parameters:\n    policy: uncertainty_aware_reference_v1\n---\n/**:\n  ros__parameters:\n    polciy: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	longPolicy := strings.Repeat("p", 1<<20)
	tests := []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"replay of a directory", []string{"replay", "--in", dir, "--out", out}, exitIO, []string{dir, "is a directory"}},
		{"verify of a directory without recordings", []string{"verify", dir}, exitIO, []string{dir, "no .mcap recordings"}},
		{"config is a directory", []string{"sim", "--out", out, "--config", dir}, exitIO, []string{dir, "is a directory"}},
		{"rate 0", []string{"sim", "--out", out, "--rate", "0"}, exitUsage, []string{"--rate 0", "must be > 0"}},
		{"rate negative", []string{"sim", "--out", out, "--rate", "-5"}, exitUsage, []string{"--rate -5", "must be > 0"}},
		{"rate NaN", []string{"sim", "--out", out, "--rate", "NaN"}, exitUsage, []string{"--rate NaN"}},
		{"rate too high", []string{"sim", "--out", out, "--rate", "1e9"}, exitUsage, []string{"--rate 1e+09", "10000 Hz"}},
		{"rate too low for the duration", []string{"sim", "--out", out, "--rate", "1e-300"}, exitUsage, []string{"--rate 1e-300", "--duration 2m0s"}},
		{"a second YAML document", []string{"sim", "--out", out, "--config", twoDocs}, exitIO, []string{twoDocs, "second YAML document"}},
		{"a 1 MB policy id", []string{"sim", "--out", out, "--policy", longPolicy}, exitUsage, []string{`"policy"`, "bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, tt.args...)
			msg, rest, _ := strings.Cut(stderr, "\n")
			if code == exitUsage {
				want := fmt.Sprintf("usage: decision_node %s %s\nrun 'decision_node %[1]s -h' for help\n", tt.args[0], lookupCommand(tt.args[0]).synopsis)
				if rest != want {
					t.Errorf("after the error:\n%s\nwant:\n%s", rest, want)
				}
			} else if rest != "" {
				t.Errorf("more than one line:\n%s", stderr)
			}
			if code != tt.code || len(msg) > 1200 {
				t.Fatalf("exit %d (want %d), %d bytes of stderr:\n%.600s", code, tt.code, len(stderr), stderr)
			}
			for _, s := range tt.says {
				if !strings.Contains(msg, s) {
					t.Errorf("%q does not say %q", msg, s)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output was written")
			}
		})
	}
}
