package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTargetVehicleFromTheRecording: a flight that commanded vehicle 2
// (PX4 instance 1) is audited against vehicle 2 without --target-vehicle,
// whether it is a file, an unclosed file or a rosbag2 bag; --target-vehicle
// 1 still wins, and fails with the trail's findings under one cause; a
// recording without receipts takes the configuration's vehicle. Each
// output says where the vehicle came from.
func TestTargetVehicleFromTheRecording(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "vehicle2.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--rate", "20", "--duration", "30s", "--quiet", "--policy-file", px4Policy,
		"--executor", "px4", "--target-vehicle", "2"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	plain := filepath.Join(dir, "plain.mcap")
	if code, _, stderr := cli(t, "sim", "--out", plain, "--rate", "20", "--duration", "20s", "--quiet", "--policy-file", px4Policy); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(flight)
	if err != nil {
		t.Fatal(err)
	}
	// As a writer that stopped before its summary leaves it: the footer
	// (a 9-byte record header, then where the summary starts) says where
	// the data section ends.
	unclosed := filepath.Join(dir, "vehicle2-unclosed.mcap")
	end := binary.LittleEndian.Uint64(data[len(data)-8-20:])
	if end == 0 || end >= uint64(len(data)) {
		t.Fatalf("summary start %d of %d bytes", end, len(data))
	}
	if err := os.WriteFile(unclosed, data[:end], 0o644); err != nil {
		t.Fatal(err)
	}
	bagDir, _ := splitBag(t, flight, dir, 2)
	params := filepath.Join(dir, "vehicle5.yaml")
	if err := os.WriteFile(params, []byte("/**:\n  ros__parameters:\n    executors:\n      executor: px4\n      target_vehicle: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	px4 := []string{"--policy-file", px4Policy, "--executor", "px4"}
	tests := []struct {
		name     string
		args     []string
		code     int
		target   string   // the summary's target vehicle line
		findings []string // in the verdict's reasons
		cause    string   // in the problems
	}{
		{"receipts for vehicle 2", append([]string{flight}, px4...), exitOK, "2 (from the recording's receipts)", nil, ""},
		{"--target-vehicle 1 wins", append([]string{flight, "--target-vehicle", "1"}, px4...), exitFindings, "1 (--target-vehicle)",
			[]string{"action_diverged", "action_evidence"}, "the recording's receipts name vehicle 2, not the target vehicle 1 this host gave: drop --target-vehicle"},
		{"--target-vehicle 2", append([]string{flight, "--target-vehicle", "2"}, px4...), exitOK, "2 (--target-vehicle)", nil, ""},
		{"unclosed", append([]string{unclosed}, px4...), exitFindings, "2 (from the recording's receipts)", []string{"read_incomplete"}, ""},
		{"a bag", append([]string{bagDir}, px4...), exitOK, "2 (from the recording's receipts)", nil, ""},
		{"no receipt", append([]string{plain}, px4...), exitFindings, "1 (default; the recording has no receipt)", []string{"action_diverged"}, "the recording holds no action receipt"},
		{"no receipt, the configuration's", []string{plain, "--policy-file", px4Policy, "--config", params}, exitFindings,
			"5 (the --config file's executors.target_vehicle; the recording has no receipt)", []string{"action_diverged"}, ""},
		{"receipts, the configuration's executor", []string{flight, "--policy-file", px4Policy, "--config", params}, exitOK,
			"2 (from the recording's receipts)", nil, ""},
		{"no executor", []string{flight, "--policy-file", px4Policy}, exitFindings, "", []string{"action_untraced"}, "pass --executor px4 (action"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "report.json")
			code, stdout, stderr := cli(t, append([]string{"verify", "--quiet", "--json", report}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, stdout, stderr)
			}
			line := "target vehicle\t" + tc.target + "\n"
			if tc.target == "" && strings.Contains(stdout, "target vehicle") || tc.target != "" && !strings.Contains(stdout, line) {
				t.Fatalf("want the line %q:\n%s", line, stdout)
			}
			verdict := stdout[strings.LastIndex(stdout, "verdict:"):]
			for _, f := range tc.findings {
				if !strings.Contains(verdict, f+":") {
					t.Errorf("no %s in %q", f, verdict)
				}
			}
			if !strings.Contains(strings.Join(tc.findings, " "), "action_") && strings.Contains(verdict, "action_") {
				t.Errorf("verdict %q: the action trail does not hold", verdict)
			}
			if !strings.Contains(stdout, tc.cause) {
				t.Errorf("no %q in the problems:\n%s", tc.cause, stdout)
			}
			var r struct {
				Target *struct {
					Vehicle uint32 `json:"vehicle"`
					From    string `json:"from"`
				} `json:"target_vehicle"`
			}
			raw, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if (r.Target == nil) != (tc.target == "") || r.Target != nil && !strings.HasPrefix(tc.target, fmt.Sprintf("%d (", r.Target.Vehicle)) {
				t.Fatalf("JSON target_vehicle %+v, want %q", r.Target, tc.target)
			}
		})
	}

	// report and replay take the vehicle as verify does: the report says
	// so, and the replay reproduces the recording byte for byte.
	html := filepath.Join(dir, "vehicle2.html")
	code, stdout, stderr := cli(t, append([]string{"report", flight, "--out", html}, px4...)...)
	if code != exitOK || !strings.Contains(stdout, "target vehicle: 2 (from the recording's receipts)\n") {
		t.Fatalf("report: exit %d:\n%s%s", code, stdout, stderr)
	}
	if page, err := os.ReadFile(html); err != nil || !bytes.Contains(page, []byte("2 (from the recording&#39;s receipts)")) {
		t.Fatalf("the report page does not name the target vehicle (%v)", err)
	}
	replayed := filepath.Join(dir, "replayed.mcap")
	code, _, stderr = cli(t, append([]string{"replay", "--in", flight, "--out", replayed}, px4...)...)
	if code != exitOK || !strings.Contains(stderr, "target vehicle: 2 (from the recording's receipts)\n") {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	again, err := os.ReadFile(replayed)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("the replay of vehicle 2's flight changed its bytes (%v)", err)
	}
}
