package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/testkeys"
)

const testKeys = "../../pkg/seal/testdata/"

// TestSealedSimVerify: sim and replay seal with --signing-key; verify
// trusts only --trust-key; a replay is a new claim, by its own key.
func TestSealedSimVerify(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "sealed.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "10s", "--rate", "20", "--quiet",
		"--signing-key", testkeys.Private(t, testKeys+"node.key")); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	replayed := filepath.Join(dir, "replayed.mcap")
	if code, _, stderr := cli(t, "replay", "--in", flight, "--out", replayed, "--quiet",
		"--signing-key", testkeys.Private(t, testKeys+"other.key")); code != exitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		output []string
	}{
		{"trusted", []string{flight, "--trust-key", testKeys + "node.pub"}, exitOK,
			[]string{"trusted from seal 0 to seal 10", "the final seal", "verdict: PASS"}},
		{"not trusted", []string{flight}, exitOK, []string{"11 seals, keys 2681bccb68d99822", "not checked", "verdict: PASS"}},
		{"wrong key", []string{flight, "--trust-key", testKeys + "other.pub"}, exitFindings,
			[]string{"untrusted_key", "verdict: FAIL: seal_broken"}},
		{"either key", []string{flight, "--trust-key", testKeys + "other.pub", "--trust-key", testKeys + "node.pub"}, exitOK,
			[]string{"verdict: PASS"}},
		{"a replay is the replayer's claim", []string{replayed, "--trust-key", testKeys + "node.pub"}, exitFindings,
			[]string{"signed by key 5dc6d5bf1e1dc021, which is not trusted"}},
		{"trusting the replayer", []string{replayed, "--trust-key", testKeys + "other.pub"}, exitOK, []string{"verdict: PASS"}},
		{"several files", []string{flight, replayed, "--trust-key", testKeys + "node.pub"}, exitFindings, []string{"seal_broken"}},
		{"a private key to trust", []string{flight, "--trust-key", testKeys + "node.key"}, exitIO,
			[]string{"a private key where the public key is needed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append(append([]string{"verify"}, tc.args...), "--quiet")...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, stdout, stderr)
			}
			for _, want := range tc.output {
				if !strings.Contains(stdout+stderr, want) {
					t.Errorf("output lacks %q:\n%s%s", want, stdout, stderr)
				}
			}
		})
	}
	for _, key := range []string{testKeys + "node.pub", testkeys.Private(t, testKeys+"p256.key"), filepath.Join(dir, "absent.key")} {
		code, _, stderr := cli(t, "sim", "--out", filepath.Join(dir, "x.mcap"), "--duration", "1s", "--signing-key", key)
		if code != exitIO || !strings.Contains(stderr, "--signing-key") { // an unusable file it names
			t.Errorf("sim --signing-key %s: exit %d, %s", filepath.Base(key), code, stderr)
		}
	}
}
