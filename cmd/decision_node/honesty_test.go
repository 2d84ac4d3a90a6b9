package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/internal/ulogtest"
	"github.com/ghost-robotics/ghost/pkg/audit/honesty"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// recordedDecisions are a recording's decisions, action receipts and
// evidence as recorded: topic, log time and bytes.
func recordedDecisions(t *testing.T, path string) []string {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{"/decisions", "/decisions/actions", "/decisions/evidence"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %x", m.Topic, m.LogTime, m.Data))
	}
	return out
}

// verifyJSON is verify's JSON report of a recording, and its exit status.
func verifyJSON(t *testing.T, path string, extra ...string) (string, int) {
	t.Helper()
	out := path + ".verify.json"
	code, _, stderr := cli(t, append([]string{"verify", path, "--json", out, "--quiet"}, extra...)...)
	if code > exitFindings {
		t.Fatalf("verify %s: exit %d: %s", path, code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), code
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := cli(t, args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s%s", args, code, stderr, lastLines(stdout, 5))
	}
	return stdout
}

// sameDecisionsAndVerdict checks that two recordings, one with the truth
// and one without, hold the same decisions and verify the same.
func sameDecisionsAndVerdict(t *testing.T, with, without string, verifyArgs ...string) {
	t.Helper()
	a, b := recordedDecisions(t, with), recordedDecisions(t, without)
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("%d decisions with the truth, %d without, or they differ", len(a), len(b))
	}
	ja, ca := verifyJSON(t, with, verifyArgs...)
	jb, cb := verifyJSON(t, without, verifyArgs...)
	if ja != jb || ca != cb || ca != exitOK {
		t.Fatalf("verify differs with the truth (exit %d, %d):\n%s\n%s", ca, cb, ja, jb)
	}
}

// writeTruthLog writes ulogtest's simulated flight with ground truth.
func writeTruthLog(t *testing.T, dir string, n int, both bool) string {
	t.Helper()
	path := filepath.Join(dir, "sitl.ulg")
	if err := os.WriteFile(path, ulogtest.TruthFlight(n, both), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTruthIsNeverADecisionInput: the same flight recorded with and without
// its truth holds the same decisions and verifies the same, for sim, ulog
// and a replay of either.
func TestTruthIsNeverADecisionInput(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, "sim", "--out", p("plain.mcap"), "--duration", "30s", "--rate", "20", "--quiet")
	mustRun(t, "sim", "--out", p("truth.mcap"), "--duration", "30s", "--rate", "20", "--truth", "--quiet")
	sameDecisionsAndVerdict(t, p("truth.mcap"), p("plain.mcap"))
	mustRun(t, "replay", "--in", p("truth.mcap"), "--out", p("replayed.mcap"), "--quiet")
	sameDecisionsAndVerdict(t, p("replayed.mcap"), p("plain.mcap"))
	// Acting through the simulated PX4: the same commands and evidence.
	acting := []string{"--policy-file", "../../config/policies/px4_failsafe_like.yaml", "--executor", "px4"}
	mustRun(t, append([]string{"sim", "--out", p("acting-plain.mcap"), "--duration", "30s", "--rate", "20", "--quiet"}, acting...)...)
	mustRun(t, append([]string{"sim", "--out", p("acting-truth.mcap"), "--duration", "30s", "--rate", "20", "--quiet", "--truth"}, acting...)...)
	sameDecisionsAndVerdict(t, p("acting-truth.mcap"), p("acting-plain.mcap"), acting...)
	if !slices.ContainsFunc(recordedDecisions(t, p("acting-truth.mcap")), func(s string) bool { return strings.HasPrefix(s, "/decisions/evidence ") }) {
		t.Error("the acting flight recorded no evidence: the check above compared less than it should")
	}

	log := writeTruthLog(t, dir, 50, true)
	mustRun(t, "ulog", "--in", log, "--out", p("ulog-truth.mcap"), "--quiet")
	mustRun(t, "ulog", "--in", log, "--out", p("ulog-plain.mcap"), "--truth=false", "--quiet")
	sameDecisionsAndVerdict(t, p("ulog-truth.mcap"), p("ulog-plain.mcap"))
	// The truth is in the one and not in the other.
	for path, want := range map[string]bool{p("ulog-truth.mcap"): true, p("ulog-plain.mcap"): false, p("truth.mcap"): true, p("plain.mcap"): false} {
		r, err := bag.OpenRecording(path, bag.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		has := slices.ContainsFunc(r.Channels(), func(c bag.Channel) bool { return c.Topic == "/ground_truth/position" })
		r.Close()
		if has != want {
			t.Errorf("%s: truth channel %v, want %v", filepath.Base(path), has, want)
		}
	}
}

// honestyOf runs honesty with --json and returns the exit status, the table
// and the parsed result.
func honestyOf(t *testing.T, args ...string) (int, string, *honesty.Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "honesty.json")
	code, stdout, stderr := cli(t, append([]string{"honesty", "--json", out}, args...)...)
	if code > exitFindings {
		t.Fatalf("honesty %v: exit %d: %s", args, code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r honesty.Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return code, stdout, &r
}

// TestHonestyOfTheSimulatedFlight: sim's truth against its beliefs gives
// the numbers its scripted estimator error implies.
func TestHonestyOfTheSimulatedFlight(t *testing.T) {
	flight := filepath.Join(t.TempDir(), "flight.mcap")
	mustRun(t, "sim", "--out", flight, "--duration", "60s", "--rate", "25", "--truth", "--quiet")
	code, table, r := honestyOf(t, flight)
	// The barometer's drift as the GPS comes back makes KNOWN altitude
	// claims that were not (docs/honesty.md).
	if code != exitOK || r.Verdict != honesty.VerdictOverconfident || !strings.Contains(table, "verdict: overconfident: KNOWN claims") ||
		!strings.Contains(r.Reason, "position_z") {
		t.Fatalf("exit %d, verdict %s: %s\n%s", code, r.Verdict, r.Reason, table)
	}
	if r.Truth.Source != "simulator" || r.Truth.Frame != "ghost_sim_world" {
		t.Errorf("truth %+v", r.Truth)
	}
	// The simulator's world origin lies (-12.5, 30, 1.5) from the
	// estimator's; sim records no global position, so the offset is
	// measured: the median of the scripted error (a sum of sines) is a
	// few centimetres.
	for name, want := range map[string]float64{"position_x": 12.5, "position_y": -30, "position_z": -1.5} {
		if o := r.Alignment.Axes[name]; o.Method != honesty.MethodOffset || o.OffsetM == nil || math.Abs(float64(*o.OffsetM)-want) > 0.05 || !o.Settled {
			t.Errorf("%s alignment %+v, want an offset of %v", name, o, want)
		}
	}
	if !strings.Contains(table, "position aligned: position_x, position_y and position_z by an offset") {
		t.Errorf("the verdict does not name the alignment:\n%s", table)
	}
	// Honest in nominal flight: e/sigma RMS well below 1 horizontally...
	for _, name := range []string{"position_x", "velocity_y", "orientation_z"} {
		if a := r.Axes[name]; a.RMSNormalizedError == nil || *a.RMSNormalizedError < 0.3 || *a.RMSNormalizedError > 1 {
			t.Errorf("%s: rms e/sigma %v", name, a.RMSNormalizedError)
		}
	}
	// ... but the barometer's drift makes the known altitude overconfident,
	// and the vehicle proceeds on it.
	if a := r.Axes["position_z"]; a.KnownViolations == 0 || a.KnownViolationsS < 3 || *a.RMSNormalizedError < 1.5 {
		t.Errorf("position_z: %d violations (%v s), rms e/sigma %v", a.KnownViolations, a.KnownViolationsS, *a.RMSNormalizedError)
	}
	if k := r.Consequences.Overconfident.ByKind["proceed"]; k == nil || k.Seconds < 3 {
		t.Errorf("overconfident proceeds: %+v", r.Consequences.Overconfident)
	}
	if n := r.NEES["position"]; n.Mean == nil || *n.Mean < 3 || n.Skipped == 0 {
		t.Errorf("position NEES %+v", n)
	}
}

// TestHonestyOfASITLLog: a SITL log's truth, in ghost's form (ulog) and in
// PX4's (ulog --emit px4, replayed as a PX4 vehicle's topics), gives the
// same numbers; the estimator's reset moves the offset in both.
func TestHonestyOfASITLLog(t *testing.T) {
	dir := t.TempDir()
	log := writeTruthLog(t, dir, 60, true)
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
	ghost, topics, replayed := filepath.Join(dir, "ghost.mcap"), filepath.Join(dir, "px4.mcap"), filepath.Join(dir, "replayed.mcap")
	mustRun(t, "ulog", "--in", log, "--out", ghost, "--quiet")
	mustRun(t, "ulog", "--in", log, "--out", topics, "--emit", "px4", "--px4-msgs", prefix, "--quiet")
	mustRun(t, "replay", "--in", topics, "--out", replayed, "--config", params, "--quiet")
	var results []*honesty.Result
	for _, rec := range []string{ghost, replayed} {
		code, table, r := honestyOf(t, rec, "--config", params)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", rec, code, table)
		}
		if r.Alignment.Resets.Read != 1 || r.Beliefs.Compared == 0 || r.Alignment.Axes["position_x"].Method != honesty.MethodOffset {
			t.Errorf("%s: resets %+v, %d compared, alignment %+v", rec, r.Alignment.Resets, r.Beliefs.Compared, r.Alignment.Axes["position_x"])
		}
		for _, name := range honesty.AxisNames[:6] {
			if a := r.Axes[name]; a.MaxAbsError == nil || *a.MaxAbsError > 1e-4 {
				t.Errorf("%s: %s max error %v: the offset or the reset was counted as error", rec, name, a.MaxAbsError)
			}
		}
		results = append(results, r)
	}
	if a, b := results[0], results[1]; a.Truth.Form != "ghost" || b.Truth.Form != "px4" {
		t.Fatalf("forms %s and %s", a.Truth.Form, b.Truth.Form)
	}
	for _, name := range honesty.AxisNames {
		a, b := results[0].Axes[name], results[1].Axes[name]
		if a.Samples != b.Samples || a.KnownClaims != b.KnownClaims || a.UnknownButWithin != b.UnknownButWithin {
			t.Errorf("%s: ghost's form %+v, PX4's %+v", name, a, b)
		}
	}
	// Half a truth is none.
	half := writeTruthLog(t, t.TempDir(), 10, false)
	out := filepath.Join(dir, "half.mcap")
	code, _, stderr := cli(t, "ulog", "--in", half, "--out", out)
	if code != exitOK || !strings.Contains(stderr, "a simulator truth needs both") {
		t.Fatalf("ulog of half a truth: exit %d: %s", code, stderr)
	}
	if code, _, r := honestyOf(t, out); code != exitFindings || r.Verdict != honesty.VerdictNone {
		t.Errorf("honesty of half a truth: exit %d, %+v", code, r)
	}
}

// TestHonestyOfTheGoldenSITLLog runs on the shared SITL log, which holds
// PX4's ground truth.
func TestHonestyOfTheGoldenSITLLog(t *testing.T) {
	log := golden.Path(t, "ulog", "px4_v1.13_sitl_tagged.ulg")
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with.mcap"), filepath.Join(dir, "without.mcap")
	mustRun(t, "ulog", "--in", log, "--out", with, "--quiet")
	mustRun(t, "ulog", "--in", log, "--out", without, "--truth=false", "--quiet")
	sameDecisionsAndVerdict(t, with, without)
	code, table, r := honestyOf(t, with)
	if code != exitOK || r.Truth.Frame != "px4_groundtruth_enu" || r.Beliefs.Compared < 1000 {
		t.Fatalf("exit %d, %+v\n%s", code, r.Truth, table)
	}
	// On the ground, without GPS: centimetres of true error.
	for _, name := range honesty.AxisNames {
		if a := r.Axes[name]; a.MaxAbsError == nil || *a.MaxAbsError > 0.1 {
			t.Errorf("%s: max error %v", name, a.MaxAbsError)
		}
	}
	// The log has the global position, and the estimator declares its
	// origin 10 s in, but Gazebo classic's GNSS says 488 m where its
	// ground truth says 0: the global frame is refused for the height,
	// which is aligned by offset. x and y never claim to know.
	z := r.Alignment.Axes["position_z"]
	if z.Method != honesty.MethodOffset || !z.Settled || z.CheckM == nil || math.Abs(float64(*z.CheckM)-488) > 1 || !strings.Contains(z.Note, "do not share a datum") {
		t.Errorf("position_z alignment %+v", z)
	}
	if x := r.Alignment.Axes["position_x"]; x.Method != honesty.MethodOffset || x.Settled {
		t.Errorf("position_x alignment %+v", x)
	}
}

func TestHonestyExitStatus(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.mcap")
	mustRun(t, "sim", "--out", plain, "--duration", "5s", "--rate", "10", "--quiet")
	notMCAP := filepath.Join(dir, "x.mcap")
	if err := os.WriteFile(notMCAP, []byte("not a recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"honesty"}, exitUsage, "needs a recording"},
		{[]string{"honesty", plain, plain}, exitUsage, "takes one recording"},
		{[]string{"honesty", plain, "--max-gap", "0s"}, exitUsage, "--max-gap"},
		{[]string{"honesty", plain, "--max-global-gap", "-1s"}, exitUsage, "--max-global-gap"},
		{[]string{"honesty", plain, "--align", "first"}, exitUsage, `--align "first": want auto or offset`},
		{[]string{"honesty", "--nope", plain}, exitUsage, "unknown flag --nope"},
		{[]string{"honesty", filepath.Join(dir, "missing.mcap")}, exitIO, "no such file"},
		{[]string{"honesty", notMCAP}, exitIO, "not an MCAP"},
		{[]string{"honesty", plain}, exitFindings, "no simulator truth"},
		{[]string{"honesty", plain}, exitFindings, "'decision_node sim --truth --out FILE'"},
		{[]string{"honesty", dir}, exitIO, "is a directory but not a rosbag2 bag"},
	}
	for _, tc := range tests {
		code, stdout, stderr := cli(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s%s", tc.args, code, tc.code, tc.want, stdout, stderr)
		}
	}
	// --json - writes the JSON alone on stdout.
	truth := filepath.Join(dir, "truth.mcap")
	mustRun(t, "sim", "--out", truth, "--duration", "5s", "--rate", "10", "--truth", "--quiet")
	code, stdout, _ := cli(t, "honesty", truth, "--json", "-")
	var r honesty.Result
	if code != exitOK || json.Unmarshal([]byte(stdout), &r) != nil || !r.Given() {
		t.Errorf("--json -: exit %d:\n%s", code, stdout)
	}
}

func TestReportTruth(t *testing.T) {
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	mustRun(t, "sim", "--out", flight, "--duration", "20s", "--rate", "20", "--truth", "--quiet")
	html, figs := filepath.Join(dir, "report.html"), filepath.Join(dir, "figs")
	mustRun(t, "report", flight, "--out", html, "--figures", figs, "--truth", "--quiet")
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Beliefs against the truth", `id="fig-truth-position"`, `id="fig-truth-velocity"`, `id="fig-truth-orientation"`, "position_z",
		"position aligned: position_x, position_y and position_z by an offset", "position_x: offset: median of estimate minus truth"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, f := range []string{"truth-position.svg", "truth-velocity.svg", "truth-orientation.svg"} {
		if _, err := os.Stat(filepath.Join(figs, f)); err != nil {
			t.Error(err)
		}
	}
	// Without truth: the report is written, says why, and the exit status
	// says no verdict.
	plain := filepath.Join(dir, "plain.mcap")
	mustRun(t, "sim", "--out", plain, "--duration", "5s", "--rate", "10", "--quiet")
	code, _, stderr := cli(t, "report", plain, "--out", html, "--force", "--truth", "--quiet")
	data, _ = os.ReadFile(html)
	if code != exitFindings || !strings.Contains(string(data), "No verdict") || !strings.Contains(stderr, "no simulator truth") {
		t.Errorf("report --truth without truth: exit %d: %s", code, stderr)
	}
	// Without --truth the report compares nothing, and says how to: add
	// --truth to a recording that holds a truth, record one otherwise.
	for rec, want := range map[string]string{flight: "add --truth to compare the beliefs with it", plain: "Record one with the flight (decision_node sim --truth"} {
		mustRun(t, "report", rec, "--out", html, "--force", "--quiet")
		data, _ = os.ReadFile(html)
		if strings.Contains(string(data), "beyond known (time)") || !strings.Contains(string(data), want) {
			t.Errorf("%s without --truth: the report does not say %q", filepath.Base(rec), want)
		}
	}
}

// TestHonestyOfATruncatedRecording: a recording cut short (its recorder
// killed: no index, no summary) is read up to the damage, its truth found
// where its channels start; the figures are given and the output says the
// recording was truncated (exit status 1), never "no simulator truth".
func TestHonestyOfATruncatedRecording(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.mcap")
	mustRun(t, "sim", "--out", whole, "--duration", "20s", "--rate", "20", "--truth", "--quiet")
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mcap")
	if err := os.WriteFile(cut, data[:len(data)*3/5], 0o644); err != nil {
		t.Fatal(err)
	}
	code, table, r := honestyOf(t, cut)
	if code != exitFindings || !r.Given() || !r.Truncated || r.Beliefs.Compared == 0 {
		t.Fatalf("exit %d, verdict %s (%s), truncated %v, %d compared:\n%s", code, r.Verdict, r.Reason, r.Truncated, r.Beliefs.Compared, table)
	}
	if !strings.Contains(table, "note: the recording is truncated") || strings.Contains(table, "no simulator truth") {
		t.Errorf("the table does not say the recording was truncated:\n%s", table)
	}
	_, _, whole2 := honestyOf(t, whole)
	if r.Beliefs.Compared >= whole2.Beliefs.Compared {
		t.Errorf("the cut recording compared %d beliefs, the whole one %d", r.Beliefs.Compared, whole2.Beliefs.Compared)
	}
}

// TestHonestyInTheGlobalFrame: a SITL log with the simulator's global
// position and the estimator's declared origin is audited in the
// estimator's own frame. Its first beliefs come before the estimator's
// GNSS fusion, 4.7 m off and saying so: anchoring the offset there made
// every KNOWN claim after the fusion overconfident. In the global frame
// the drift is where the estimator doubted, and its KNOWN claims hold.
func TestHonestyInTheGlobalFrame(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "sih.ulg")
	if err := os.WriteFile(log, ulogtest.GlobalFlight(150), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "sih.mcap")
	code, _, stderr := cli(t, "ulog", "--in", log, "--out", rec)
	if code != exitOK || !strings.Contains(stderr, "global position written: 150; origins the estimator declared: 1") {
		t.Fatalf("ulog: exit %d: %s", code, stderr)
	}
	code, table, r := honestyOf(t, rec)
	if code != exitOK || r.Verdict != honesty.VerdictHonest {
		t.Fatalf("exit %d, verdict %s: %s\n%s", code, r.Verdict, r.Reason, table)
	}
	drift := map[string]float64{"position_x": math.Abs(ulogtest.DriftNED[1]), "position_y": math.Abs(ulogtest.DriftNED[0]), "position_z": 0}
	for name, d := range drift {
		al, a := r.Alignment.Axes[name], r.Axes[name]
		if al.Method != honesty.MethodGlobal || al.WithoutFrame != 0 {
			t.Errorf("%s: alignment %+v", name, al)
		}
		if a.KnownClaims == 0 || a.KnownViolations != 0 || a.MaxAbsError == nil || math.Abs(float64(*a.MaxAbsError)-d) > 1e-3 {
			t.Errorf("%s: %d of %d KNOWN claims violated, max error %v, want the drift %v", name, a.KnownViolations, a.KnownClaims, a.MaxAbsError, d)
		}
	}
	if !strings.Contains(table, "verdict: honest: every KNOWN claim had a true error within the known threshold (position aligned: position_x, position_y and position_z in the global frame") {
		t.Errorf("the verdict does not name the alignment:\n%s", table)
	}
	// By offset, on request: the reset that corrected the drift is taken
	// for a move of the frame, so the drift no longer shows.
	_, table, r = honestyOf(t, rec, "--align", "offset")
	for name := range drift {
		if al, a := r.Alignment.Axes[name], r.Axes[name]; al.Method != honesty.MethodOffset || a.MaxAbsError == nil || *a.MaxAbsError > 1e-3 {
			t.Errorf("--align offset: %s: %+v, max error %v", name, al, a.MaxAbsError)
		}
	}
	if !strings.Contains(table, "by an offset") {
		t.Errorf("--align offset: the verdict does not say so:\n%s", lastLines(table, 2))
	}
}

// TestHonestyOfSIHLogs runs on PX4 SIH flight logs: the shared golden
// ones (ulog/*sih*.ulg), and any named in GHOST_HONESTY_ULOGS (a list of
// paths). Anchored at its first belief, taken before GNSS fusion, the
// east position of such a flight carried a bias of metres for the whole
// flight; aligned in the global frame, its KNOWN claims' median error is
// centimetres, and the verdict says how the position was aligned.
func TestHonestyOfSIHLogs(t *testing.T) {
	var logs []string
	if dir, ok := golden.Find(); ok {
		found, err := filepath.Glob(filepath.Join(dir, "ulog", "*sih*.ulg"))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, found...)
	}
	for _, p := range filepath.SplitList(os.Getenv("GHOST_HONESTY_ULOGS")) {
		if p != "" {
			logs = append(logs, p)
		}
	}
	if len(logs) == 0 {
		t.Skip("no PX4 SIH flight log: none in the shared golden data (ulog/*sih*.ulg), none in GHOST_HONESTY_ULOGS")
	}
	cfgFile := filepath.Join("..", "..", "config", "px4_sitl.yaml")
	cfg, err := (&decisionFlags{config: cfgFile}).settings()
	if err != nil {
		t.Fatal(err)
	}
	for _, log := range logs {
		t.Run(filepath.Base(log), func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "sih.mcap")
			mustRun(t, "ulog", "--in", log, "--out", rec, "--config", cfgFile, "--quiet")
			opts, err := honestyOptions(cfg, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			var known []float64 // position_x errors of KNOWN claims
			opts.OnSample = func(s *honesty.Sample) {
				if s.Level[0] == decisions.LevelKnown && !math.IsNaN(s.Err[0]) {
					known = append(known, s.Err[0])
				}
			}
			r, err := auditHonesty(rec, opts, io.Discard)
			if err != nil || !r.Given() {
				t.Fatalf("%v; %+v", err, r)
			}
			if al := r.Alignment.Axes["position_x"]; al.Method != honesty.MethodGlobal {
				t.Errorf("position_x aligned by %+v, want the global frame", al)
			}
			if len(known) == 0 {
				t.Fatal("no KNOWN position_x claim compared")
			}
			slices.Sort(known)
			if m := known[len(known)/2]; math.Abs(m) > 1 {
				t.Errorf("position_x: median error of the KNOWN claims %.3f m: a bias beyond 1 m", m)
			} else {
				t.Logf("position_x: median error of %d KNOWN claims %.3f m", len(known), m)
			}
			var b strings.Builder
			if err := honesty.WriteTable(&b, r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "(position aligned: position_x, position_y and position_z in the global frame (truth projected into the estimator's origin))") {
				t.Errorf("the verdict does not name the alignment:\n%s", lastLines(b.String(), 2))
			}
		})
	}
}
