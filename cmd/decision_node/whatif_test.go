package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/internal/ulogtest"
)

// shipped is a shipped policy file, relative to this package.
func shipped(name string) string { return filepath.Join("..", "..", "config", "policies", name) }

// whatifLines runs whatif with --json and returns its exit status, the
// flights' lines and the summary line, decoded.
func whatifLines(t *testing.T, args ...string) (int, []map[string]any, map[string]any, string) {
	t.Helper()
	code, stdout, stderr := cli(t, append([]string{"whatif", "--json"}, args...)...)
	var flights []map[string]any
	var summary map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if line == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a line is not JSON: %v\n%s\nstderr: %s", err, line, stderr)
		}
		if v["type"] == "summary" {
			summary = v
		} else {
			flights = append(flights, v)
		}
	}
	if summary == nil {
		t.Fatalf("no summary line (exit %d)\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	return code, flights, summary, stderr
}

func paths(flights []map[string]any) []string {
	var out []string
	for _, f := range flights {
		out = append(out, f["path"].(string))
	}
	return out
}

// A directory of a ghost recording, a PX4 log, a file that is no
// recording and one that is ignored: each recording is compared, sorted by
// path, the unreadable one named, and the exit status is the worst.
func TestWhatifDirectory(t *testing.T) {
	dir := t.TempDir()
	fleet := filepath.Join(dir, "fleet")
	if err := os.MkdirAll(filepath.Join(fleet, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	like, tight := shipped("px4_failsafe_like.yaml"), shipped("px4_failsafe_tight_position.yaml")
	flight := filepath.Join(fleet, "z_flight.mcap")
	if code, _, stderr := cli(t, "sim", "--policy-file", like, "--out", flight, "--duration", "30s", "--rate", "10", "--quiet"); code != exitOK {
		t.Fatalf("sim: exit %d: %s", code, stderr)
	}
	split, _ := splitBag(t, flight, fleet, 3) // fleet/split: a rosbag2 bag of 3 files, one flight
	ulg := filepath.Join(fleet, "logs", "a.ulg")
	junk := filepath.Join(fleet, "m_junk.mcap")
	for p, b := range map[string][]byte{ulg: ulogtest.TruthFlight(40, true), junk: []byte("not a recording"), filepath.Join(fleet, "notes.txt"): []byte("x")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "whatif.html")
	code, flights, summary, stderr := whatifLines(t, "--policy-file", tight, fleet, "--html", page)
	if code != exitIO || summary["exit_status"] != float64(exitIO) || !strings.Contains(stderr, "1 unreadable") {
		t.Errorf("exit %d, summary %v, stderr %s", code, summary["exit_status"], stderr)
	}
	if got, want := paths(flights), []string{ulg, junk, split, flight}; !slices.Equal(got, want) {
		t.Fatalf("flights %q, want %q", got, want)
	}
	// The bag is the same flight as the file it was split from.
	same := func(f map[string]any) string {
		return fmt.Sprint(f["compared"], f["kind_changed"], f["first_divergence"], f["kind_pairs"], f["onsets"])
	}
	if same(flights[2]) != same(flights[3]) {
		t.Errorf("the bag %v and the flight %v differ", same(flights[2]), same(flights[3]))
	}
	for _, f := range flights {
		switch f["path"] {
		case flight:
			if f["status"] != "compared" || f["kind_changed"].(float64) == 0 || f["baseline"] != "recorded" {
				t.Errorf("the px4_failsafe_like flight: %v", f)
			}
		case ulg:
			// A log holds no decisions: its baseline is the configuration's policy.
			if f["status"] != "compared" || f["compared"].(float64) == 0 || f["baseline"] != "uncertainty_aware_reference_v1" {
				t.Errorf("the log: %v", f)
			}
		case junk:
			if f["status"] != "unreadable" || !strings.Contains(f["error"].(string), "not an MCAP") {
				t.Errorf("the junk: %v", f)
			}
		}
	}
	if fs := summary["failures"].([]any); len(fs) != 1 || fs[0].(map[string]any)["path"] != junk {
		t.Errorf("failures %v", summary["failures"])
	}
	if c := summary["cases"].(map[string]any); c["failed"] != float64(0) || c["passed"].(float64) == 0 {
		t.Errorf("cases %v", c)
	}
	data, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(data), "<svg") || !strings.HasSuffix(string(data), "</html>\n") {
		t.Errorf("the page: %v, %d bytes", err, len(data))
	}

	// Without the junk: exit 0, and the text names every flight.
	code, stdout, stderr := cli(t, "whatif", "--policy-file", tight, flight, ulg, "--baseline", like)
	if code != exitOK || !strings.Contains(stdout, "flight "+flight+": ") || !strings.Contains(stdout, "flight "+ulg+": ") ||
		!strings.Contains(stdout, "\nsummary\n") || stderr != "" {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestWhatifErrors(t *testing.T) {
	dir := t.TempDir()
	tight := shipped("px4_failsafe_tight_position.yaml")
	flight := simulate(t, dir)
	badCases := filepath.Join(dir, "bad.cases.yaml")
	if err := os.WriteFile(badCases, []byte("cases:\n  - name: wrong\n    steps:\n      - {at: 0s, armed: true, flight_mode: offboard, battery_pct: 0.9, assessment: {level: known}, expect: {action: hold}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no recording", []string{"--policy-file", tight}, exitUsage, "whatif needs a recording"},
		{"no candidate", []string{flight}, exitUsage, "whatif needs --policy-file"},
		{"bad workers", []string{"--policy-file", tight, "--workers", "-1", flight}, exitUsage, "--workers -1"},
		{"bad position", []string{"--policy-file", tight, "--position", "gps", flight}, exitUsage, "--position \"gps\""},
		{"missing candidate", []string{"--policy-file", filepath.Join(dir, "absent.yaml"), flight}, exitIO, "--policy-file"},
		{"unknown baseline", []string{"--policy-file", tight, "--baseline", "nonesuch", flight}, exitIO, "neither a built-in policy"},
		{"empty directory", []string{"--policy-file", tight, t.TempDir()}, exitIO, "no .mcap recordings, rosbag2 bags or .ulg logs"},
		{"page over a recording", []string{"--policy-file", tight, flight, "--html", flight}, exitIO, "is the input"},
		{"failing case", []string{"--policy-file", tight, "--cases", badCases, flight}, exitFindings, "1 of 1 cases fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, append([]string{"whatif"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
		})
	}
	t.Run("no decisions to compare", func(t *testing.T) {
		inputsOnly := golden.Path(t, "bags", "sample_flight.mcap")
		code, stdout, stderr := cli(t, "whatif", "--policy-file", tight, inputsOnly)
		if code != exitFindings || !strings.Contains(stderr, "1 with nothing to compare") || !strings.Contains(stdout, "NOT COMPARED: the recording holds no decisions") {
			t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	})
}

// On the shared recordings and logs: the tightened candidate against
// px4_failsafe_like can only land where px4_failsafe_like did not, and
// never on the Python reference's flights, whose unknown threshold (0.5 m)
// is already tighter; reference_v1.yaml, the reference policy as a rule
// policy, re-decides the Python reference's recordings decision for
// decision.
func TestWhatifSharedGolden(t *testing.T) {
	g := golden.Dir(t)
	sets := []string{filepath.Join(g, "bags"), filepath.Join(g, "python"), filepath.Join(g, "ulog")}
	code, flights, summary, stderr := whatifLines(t, append([]string{"--policy-file", shipped("px4_failsafe_tight_position.yaml"),
		"--baseline", shipped("px4_failsafe_like.yaml")}, sets...)...)
	if code != exitOK || len(flights) != 6 || summary["unreadable"] != float64(0) {
		t.Fatalf("exit %d, %d flights, summary %v\n%s", code, len(flights), summary, stderr)
	}
	for _, f := range flights {
		p := f["path"].(string)
		if f["status"] != "compared" || f["compared"].(float64) == 0 {
			t.Errorf("%s: %v", p, f)
		}
		for _, kp := range f["kind_pairs"].([]any) {
			if kp.(map[string]any)["to"] != "engage_land" {
				t.Errorf("%s: a change the tighter threshold cannot make: %v", p, kp)
			}
		}
		if strings.Contains(p, "python") && f["changed"] != float64(0) {
			t.Errorf("%s: changed %v", p, f["changed"])
		}
	}

	code, flights, _, stderr = whatifLines(t, "--policy-file", shipped("reference_v1.yaml"), sets[1])
	if code != exitOK || len(flights) != 3 {
		t.Fatalf("exit %d, %d flights\n%s", code, len(flights), stderr)
	}
	for _, f := range flights {
		if f["changed"] != float64(0) || f["compared"].(float64) < 50 || f["only_baseline"] != float64(0) {
			t.Errorf("%s: %v", f["path"], f)
		}
	}
}
