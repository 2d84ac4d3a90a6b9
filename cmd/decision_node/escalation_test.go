package main

import (
	"path/filepath"
	"strings"
	"testing"
)

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
