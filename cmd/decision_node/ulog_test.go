package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// distinctSamples counts the distinct timestamps of instance 0 of
// vehicle_local_position in a log, read directly.
func distinctSamples(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ulog.NewReader(f, ulog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := m.(*ulog.Data); ok && d.Name() == "vehicle_local_position" && d.MultiID() == 0 {
			ts, ok := d.Uint("timestamp")
			if !ok {
				t.Fatal("vehicle_local_position without timestamp")
			}
			seen[ts] = true
		}
	}
	return len(seen)
}

// TestULogThenVerify is issue 10's done criterion: a real PX4 log becomes
// a recording that verify passes, with one decision per distinct
// vehicle_local_position sample.
func TestULogThenVerify(t *testing.T) {
	logs := []string{"../../pkg/vehicle/ulog/testdata/px4_v1.11_excerpt.ulg"}
	if g, ok := golden.Find(); ok {
		logs = append(logs, filepath.Join(g, "ulog", "px4_v1.11_cubeorange.ulg"))
	}
	for _, log := range logs {
		t.Run(filepath.Base(log), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "flight.mcap")
			code, _, stderr := cli(t, "ulog", "--in", log, "--out", out)
			if code != exitOK {
				t.Fatalf("ulog exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, "samples rejected by the mapping: 0") {
				t.Errorf("summary: %s", stderr)
			}
			report := filepath.Join(dir, "report.json")
			code, stdout, stderr := cli(t, "verify", out, "--quiet", "--json", report)
			if code != exitOK {
				t.Fatalf("verify exit %d: %s %s", code, stdout, stderr)
			}
			var r struct {
				Decisions uint64            `json:"decisions"`
				ByChain   map[string]uint64 `json:"by_chain_status"`
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			want := distinctSamples(t, log)
			if want == 0 || r.Decisions != uint64(want) || r.ByChain["verified"] != r.Decisions {
				t.Fatalf("%d decisions (%v), want one per distinct sample: %d", r.Decisions, r.ByChain, want)
			}
		})
	}
}

func TestULogRejectsWhatIsNotALog(t *testing.T) {
	dir := t.TempDir()
	notLog := filepath.Join(dir, "x.ulg")
	if err := os.WriteFile(notLog, []byte("not a log at all, just text"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in   string
		want string
	}{
		{notLog, "not a PX4 ULog file"},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing.ulg"), "no such file"},
	} {
		code, _, stderr := cli(t, "ulog", "--in", tt.in, "--out", filepath.Join(dir, "o.mcap"))
		if code != exitIO || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", tt.in, code, stderr, tt.want)
		}
	}
}

// TestULogAsPX4TopicsReplaysToTheSameDecisions is the PX4 input path
// without ROS 2: a log written out as PX4's DDS topics (as ros2 bag record
// of a PX4 vehicle holds them) and replayed with input.source px4 gives
// the decisions 'decision_node ulog' gives for the same log.
func TestULogAsPX4TopicsReplaysToTheSameDecisions(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "ws")
	msgs := filepath.Join(prefix, "share", "px4_msgs", "msg")
	if err := os.MkdirAll(msgs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range px4fixture.Texts(t, "1.15") {
		if err := os.WriteFile(filepath.Join(msgs, name+".msg"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	params := filepath.Join(dir, "px4.yaml")
	if err := os.WriteFile(params, []byte("/**:\n  ros__parameters:\n    input:\n      source: px4\n    px4:\n      position: local_position\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := "../../pkg/vehicle/ulog/testdata/px4_v1.11_excerpt.ulg"
	direct, topics, replayed := filepath.Join(dir, "direct.mcap"), filepath.Join(dir, "px4.mcap"), filepath.Join(dir, "replayed.mcap")
	for _, args := range [][]string{
		{"ulog", "--in", log, "--out", direct, "--quiet"},
		{"ulog", "--in", log, "--out", topics, "--emit", "px4", "--px4-msgs", prefix, "--quiet"},
		{"replay", "--in", topics, "--out", replayed, "--config", params, "--quiet"},
	} {
		if code, _, stderr := cli(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	a, b := decisionsIn(t, direct), decisionsIn(t, replayed)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d decisions from the log, %d from its PX4 topics", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("decision %d: %+v from the log, %+v from its PX4 topics", i, a[i], b[i])
		}
	}
	if code, stdout, _ := cli(t, "verify", replayed, "--quiet"); code != exitOK {
		t.Fatalf("verify of the replay: exit %d\n%s", code, lastLines(stdout, 3))
	}

	// The PX4 topics as ros2 bag record splits them: one recording.
	bagDir, _ := splitBag(t, topics, dir, 3)
	fromBag := filepath.Join(dir, "from-bag.mcap")
	if code, _, stderr := cli(t, "replay", "--in", bagDir, "--out", fromBag, "--config", params, "--quiet"); code != exitOK {
		t.Fatalf("replay of the split bag: exit %d: %s", code, stderr)
	}
	if c := decisionsIn(t, fromBag); !slices.Equal(c, a) {
		t.Fatalf("%d decisions from the split bag, %d from the log", len(c), len(a))
	}
}

func decisionsIn(t *testing.T, path string) []ros2msg.DecisionRationale {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{"/decisions"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []ros2msg.DecisionRationale
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		var d ros2msg.DecisionRationale
		if err := d.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}
