package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// cli runs the command in-process and returns its exit status and output.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func simulate(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "flight.mcap")
	if code, _, stderr := cli(t, "sim", "--out", out, "--duration", "20s", "--rate", "20"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	return out
}

func TestSimThenVerify(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	report := filepath.Join(dir, "report.json")
	code, stdout, stderr := cli(t, "verify", flight, "--json", report)
	if code != exitOK {
		t.Fatalf("verify exit %d: %s %s", code, stdout, stderr)
	}
	for _, want := range []string{"proceed", "hold", "abstain_uncertain", "verified", "no_assessment_claimed", "verdict: PASS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify summary lacks %q:\n%s", want, stdout)
		}
	}
	var r struct {
		Decisions uint64            `json:"decisions"`
		ByKind    map[string]uint64 `json:"by_kind"`
		ByChain   map[string]uint64 `json:"by_chain_status"`
		ByReason  map[string]uint64 `json:"by_reason"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Decisions == 0 || r.ByKind["proceed"] == 0 || r.ByChain["verified"] == 0 || r.ByReason["no_assessment"] == 0 {
		t.Fatalf("report %s", data)
	}
	// Simulating again gives the same bytes.
	again := filepath.Join(dir, "again.mcap")
	if code, _, stderr := cli(t, "sim", "--out", again, "--duration", "20s", "--rate", "20", "--quiet"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(flight)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Fatal("sim twice gave different files")
	}
}

func TestReplay(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	out := filepath.Join(dir, "replayed.mcap")
	code, _, stderr := cli(t, "replay", "--in", flight, "--out", out)
	if code != exitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	for _, want := range []string{"decisions", "decided without assessment", "rejected inputs", out} {
		if !strings.Contains(stderr, want) {
			t.Errorf("replay summary lacks %q:\n%s", want, stderr)
		}
	}
	if code, _, stderr := cli(t, "replay", "--in", flight, "--out", out); code != exitIO || !strings.Contains(stderr, "--force") {
		t.Errorf("replay over an existing file: exit %d, %s", code, stderr)
	}
	if code, _, _ := cli(t, "replay", "--in", flight, "--out", out, "--force", "--quiet"); code != exitOK {
		t.Errorf("replay --force: exit %d", code)
	}
	if code, _, stderr := cli(t, "replay", "--in", flight, "--out", flight, "--force"); code != exitIO || !strings.Contains(stderr, "is the input") {
		t.Errorf("replay onto its input: exit %d, %s", code, stderr)
	}
	if code, _, _ := cli(t, "verify", out, "--quiet"); code != exitOK {
		t.Errorf("verify of the replay: exit %d", code)
	}
}

func TestTruncatedInput(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	data, err := os.ReadFile(flight)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mcap")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.mcap")
	code, _, stderr := cli(t, "replay", "--in", cut, "--out", out)
	if code != exitFindings || !strings.Contains(stderr, "the writer stopped without closing the file at byte") {
		t.Fatalf("replay of a truncated file: exit %d, %s", code, stderr)
	}
	// The output is complete and indexed, and verifies.
	r, err := bag.OpenRecording(out, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	indexed := r.Indexed()
	r.Close()
	if !indexed {
		t.Fatal("output of a truncated replay is not indexed")
	}
	if code, stdout, _ := cli(t, "verify", out, "--quiet"); code != exitOK {
		t.Fatalf("verify of the output: exit %d %s", code, stdout)
	}
	// A file cut as a killed writer leaves it: verified up to the cut,
	// exit 1 (not 3, unusable), the cause named in plain words.
	code, stdout, _ := cli(t, "verify", cut)
	if code != exitFindings {
		t.Fatalf("verify of a truncated file: exit %d, want %d", code, exitFindings)
	}
	for _, want := range []string{"read_incomplete", "the writer stopped without closing the file at byte",
		"last complete chunk ends at byte", "matched"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify of a truncated file says nothing of %q:\n%s", want, stdout)
		}
	}
}

func TestErrorsAndUsage(t *testing.T) {
	dir := t.TempDir()
	notMCAP := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notMCAP, []byte("not a recording at all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		want   string // in stderr
		stdout string // in stdout
	}{
		{"no command", nil, exitUsage, "Usage", ""},
		{"unknown command", []string{"fly"}, exitUsage, `unknown command "fly"`, ""},
		{"help", []string{"-h"}, exitOK, "", "Usage"},
		{"sim help", []string{"sim", "-h"}, exitOK, "", "Example"},
		{"replay help", []string{"replay", "-h"}, exitOK, "", "Example"},
		{"verify help", []string{"verify", "-h"}, exitOK, "", "Example"},
		{"replay without flags", []string{"replay"}, exitUsage, "replay needs --in and --out", ""},
		{"bad flag", []string{"sim", "--nope"}, exitUsage, "unknown flag --nope", ""},
		{"missing file", []string{"verify", filepath.Join(dir, "absent.mcap")}, exitIO, "no such file", ""},
		{"not mcap", []string{"verify", notMCAP}, exitIO, "not an MCAP recording", ""},
		{"verify two unreadable files", []string{"verify", notMCAP, notMCAP}, exitIO, "2 unreadable", ""},
		{"verify nothing", []string{"verify", "--quiet"}, exitUsage, "needs a recording", ""},
		{"unknown policy", []string{"sim", "--out", filepath.Join(dir, "x.mcap"), "--policy", "yolo_v1"}, exitUsage, "yolo_v1", ""},
		{"bad compression", []string{"sim", "--out", filepath.Join(dir, "x.mcap"), "--compression", "gzip"}, exitUsage, "gzip", ""},
		{"missing config", []string{"sim", "--out", filepath.Join(dir, "x.mcap"), "--config", filepath.Join(dir, "none.yaml")}, exitIO, "none.yaml", ""},
		{"bad duration", []string{"sim", "--duration", "-1s"}, exitUsage, "duration", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.args) == 0 && rosBuild {
				t.Skip("the ROS 2 build runs the node when no command is given")
			}
			code, stdout, stderr := cli(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) || !strings.Contains(stdout, tt.stdout) {
				t.Fatalf("exit %d (want %d), stdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
		})
	}
}

func TestVerifyFailsOnATamperedRecording(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	in, err := bag.OpenRecording(flight, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	tampered := filepath.Join(dir, "tampered.mcap")
	rec, err := bag.CreateRecording(tampered, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	channels := map[string]bag.ChannelID{}
	edited := false
	for m, err := range in.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		ch, ok := channels[m.Topic]
		if !ok {
			if ch, err = rec.AddMessageChannel(m.Topic, m.SchemaName); err != nil {
				t.Fatal(err)
			}
			channels[m.Topic] = ch
		}
		data := m.Data
		if m.Topic == "/decisions" && !edited {
			var w ros2msg.DecisionRationale
			if err := w.UnmarshalCDR(data); err != nil {
				t.Fatal(err)
			}
			w.Decision.Kind = ros2msg.DecisionKindProceed
			w.Decision.Reason = "looked_fine"
			if data, err = w.MarshalCDR(); err != nil {
				t.Fatal(err)
			}
			edited = true
		}
		if err := rec.Write(ch, m.LogTime, m.PublishTime, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := cli(t, "verify", tampered, "--quiet")
	if code != exitFindings || !strings.Contains(stdout, "verdict: FAIL") || !strings.Contains(stdout, "looked_fine") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

func TestVerifyWithRenamedTopics(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "drone1.yaml")
	yaml := "/**:\n  ros__parameters:\n    topics:\n      state: /drone1/state/nav\n      self_assessment: /drone1/self_assessment\n      perception_mode: /drone1/perception/mode\n      decisions: /drone1/decisions\n"
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	flight := filepath.Join(dir, "drone1.mcap")
	if code, _, stderr := cli(t, "sim", "--out", flight, "--duration", "5s", "--config", config, "--quiet"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	code, stdout, _ := cli(t, "verify", flight, "--config", config, "--quiet")
	if code != exitOK || !strings.Contains(stdout, "verdict: PASS") || auditedNone(stdout) {
		t.Fatalf("verify with the config: exit %d\n%s", code, stdout)
	}
	// With the default topic names nothing is found to audit.
	if _, stdout, _ := cli(t, "verify", flight, "--quiet"); !auditedNone(stdout) {
		t.Fatalf("verify without the config found decisions on other topics:\n%s", stdout)
	}
}

// auditedNone reports whether a verify summary counts zero decisions.
func auditedNone(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "decisions" {
			return f[1] == "0"
		}
	}
	return false
}

func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatalf("%s taken for a terminal: the progress bar would be drawn there", os.DevNull)
	}
}
