package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
)

// referenceRecording is the path, without extension, of the smallest
// recording the Python reference wrote, in the shared golden data (the
// repository keeps no copy): t skips without it, or fails in CI.
func referenceRecording(t *testing.T) string {
	return strings.TrimSuffix(golden.Path(t, "python", "gps_denial.mcap"), ".mcap")
}

// TestVerifyAndReportReferenceRecording: verify and report read a
// recording the Python reference wrote; --format reference writes the
// reference's own trace report, byte for byte.
func TestVerifyAndReportReferenceRecording(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	code, stdout, stderr := cli(t, "verify", referenceRecording(t)+".mcap", "--quiet", "--format", "reference", "--json", trace)
	if code != exitOK || !strings.Contains(stdout, "Python reference recording") || !strings.Contains(stdout, "verdict: PASS") {
		t.Fatalf("verify exit %d:\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(referenceRecording(t) + ".trace.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("--format reference differs from the reference's own trace report")
	}
	html := filepath.Join(dir, "r.html")
	code, stdout, stderr = cli(t, "report", referenceRecording(t)+".mcap", "--out", html)
	if code != exitOK || !strings.Contains(stdout, "50 decisions") || !strings.Contains(stdout, "audit PASS") {
		t.Fatalf("report exit %d:\n%s%s", code, stdout, stderr)
	}
	if code, _, _ := cli(t, "verify", referenceRecording(t)+".mcap", "--format", "xml"); code != exitUsage {
		t.Fatalf("--format xml: exit %d", code)
	}
}
