package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/ulog"
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
	logs := []string{"../../pkg/ulog/testdata/px4_v1.11_excerpt.ulg"}
	if g, ok := golden.Find(); ok && !golden.Subset() {
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
