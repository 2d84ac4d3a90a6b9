package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// splitBag writes the messages of the recording at flight into a rosbag2
// bag directory of parts files, as ros2 bag record --max-bag-duration
// would: in log-time order, each file starting just after a belief, so
// that a belief's assessment and decision are in the next file. It
// returns the bag directory and its files.
func splitBag(t *testing.T, flight, dir string, parts int) (string, []string) {
	t.Helper()
	return splitBagSchema(t, flight, dir, parts, "")
}

// splitBagSchema is splitBag with the last file's decisions recorded under
// decisionsSchema instead, when it is not "".
func splitBagSchema(t *testing.T, flight, dir string, parts int, decisionsSchema string) (string, []string) {
	t.Helper()
	bagDir := filepath.Join(dir, "split")
	if err := os.Mkdir(bagDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var names []string
	files := splitParts(t, flight, parts, func(p int) (string, bag.RecorderOptions) {
		names = append(names, fmt.Sprintf("split_%d.mcap", p))
		return filepath.Join(bagDir, names[p]), bag.RecorderOptions{}
	}, func(p int, rec *bag.Recorder, m bag.Message, c bag.Channel) (bag.ChannelID, error) {
		if p == parts-1 && m.Topic == "/decisions" && decisionsSchema != "" {
			return rec.AddChannel(m.Topic, decisionsSchema, "int32 x\n")
		}
		return rec.AddChannel(m.Topic, c.SchemaName, c.SchemaText, c.QoS...)
	})
	meta := "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:\n"
	for _, n := range names {
		meta += "    - " + n + "\n"
	}
	if err := os.WriteFile(filepath.Join(bagDir, bag.BagMetadataFile), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	return bagDir, files
}

// splitParts writes the messages of the recording at flight into parts
// files, each cut after a belief when the recording has beliefs (a ghost
// recorder splits so) and anywhere otherwise. Part p goes to the path and
// options open(p) gives, its channels declared by declare with the
// channel they were recorded on. It returns the files in order.
func splitParts(t *testing.T, flight string, parts int, open func(p int) (string, bag.RecorderOptions),
	declare func(p int, rec *bag.Recorder, m bag.Message, c bag.Channel) (bag.ChannelID, error)) []string {
	t.Helper()
	in, err := bag.OpenRecording(flight, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	recorded := map[uint16]bag.Channel{}
	for _, c := range in.Channels() {
		recorded[c.ID] = c
	}
	var msgs []bag.Message
	for m, err := range in.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		m.Data = append([]byte(nil), m.Data...)
		msgs = append(msgs, m)
	}
	hasNav := slices.ContainsFunc(msgs, func(m bag.Message) bool { return m.Topic == "/state/nav" })
	var files []string
	start := 0
	for p := range parts {
		end := len(msgs)
		if p < parts-1 {
			end = (p + 1) * len(msgs) / parts
			for hasNav && msgs[end-1].Topic != "/state/nav" {
				end++
			}
		}
		path, opts := open(p)
		rec, err := bag.CreateRecording(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		channels := map[string]bag.ChannelID{}
		for _, m := range msgs[start:end] {
			ch, ok := channels[m.Topic]
			if !ok {
				if ch, err = declare(p, rec, m, recorded[m.ChannelID]); err != nil {
					t.Fatal(err)
				}
				channels[m.Topic] = ch
			}
			if err := rec.Write(ch, m.LogTime, m.PublishTime, m.Data); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		files, start = append(files, path), end
	}
	return files
}

var decisionsLine = regexp.MustCompile(`(?m)^decisions\s+(\d+)`)

// A rosbag2 bag split into several files is one recording: verify of the
// bag directory reads its files as one stream and decides as verify of the
// unsplit recording does, while each file alone lacks what the one before
// it held.
func TestVerifySplitBag(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	code, whole, _ := cli(t, "verify", flight, "--quiet")
	if code != exitOK {
		t.Fatalf("the unsplit recording: exit %d\n%s", code, whole)
	}
	bagDir, files := splitBag(t, flight, dir, 3)

	code, stdout, stderr := cli(t, "verify", bagDir, "--quiet")
	if code != exitOK || !strings.Contains(stdout, "a rosbag2 bag of 3 files read as one") || !strings.Contains(stdout, "verdict: PASS") {
		t.Fatalf("the bag: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := decisionsLine.FindStringSubmatch(stdout), decisionsLine.FindStringSubmatch(whole); got == nil || want == nil || got[1] != want[1] {
		t.Fatalf("the bag's decisions %v, the unsplit recording's %v", got, want)
	}

	// report reads the bag as verify does: the whole flight, and its audit.
	html := filepath.Join(dir, "split.html")
	code, stdout, stderr = cli(t, "report", bagDir, "--out", html)
	if want := decisionsLine.FindStringSubmatch(whole)[1] + " decisions in"; code != exitOK || !strings.Contains(stdout, want) {
		t.Fatalf("report of the bag: exit %d, want %q:\n%s%s", code, want, stdout, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "split (a rosbag2 bag of 3 files)") || !strings.Contains(string(page), `PASS">PASS<`) {
		t.Fatalf("the bag's report does not name the bag or a passed audit")
	}

	code, stdout, _ = cli(t, append([]string{"verify"}, files...)...)
	if code != exitFindings || !strings.Contains(stdout, "1 passed, 2 failed") {
		t.Fatalf("the files one by one: exit %d, want the later ones to fail:\n%s", code, stdout)
	}

	// In a fleet's directory a bag is one row; a bag whose metadata cannot
	// be used is an unreadable row, and the others are still audited.
	fleet := filepath.Join(dir, "fleet")
	broken := filepath.Join(fleet, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, bag.BagMetadataFile), []byte("rosbag2_bagfile_information:\n  storage_identifier: sqlite3\n  relative_file_paths: [broken_0.db3]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bagDir, filepath.Join(fleet, "split")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(flight)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fleet, "flight.mcap"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = cli(t, "verify", fleet)
	rows := []string{filepath.Join(fleet, "broken") + " ", filepath.Join(fleet, "flight.mcap") + " ", filepath.Join(fleet, "split") + " "}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitIO || len(lines) != len(rows)+2 || !strings.Contains(stdout, "2 passed, 0 failed, 1 unreadable") || !strings.Contains(lines[1], `storage_identifier "sqlite3"`) {
		t.Fatalf("the fleet: exit %d\n%s", code, stdout)
	}
	for i, r := range rows {
		if !strings.HasPrefix(lines[i+1], r) {
			t.Fatalf("row %d is not %s:\n%s", i, r, stdout)
		}
	}

	// A damaged file stops the read there: the rest cannot be re-decided
	// without what the damage lost, and the report names the file.
	split := filepath.Join(fleet, "split")
	middle := filepath.Join(split, "split_1.mcap")
	data, err = os.ReadFile(middle)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(middle, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = cli(t, "verify", split, "--quiet")
	if code != exitFindings || !strings.Contains(stdout, "read_incomplete") || !strings.Contains(stdout, "split_1.mcap") {
		t.Fatalf("a damaged middle file: exit %d\n%s", code, stdout)
	}

	if code, _, stderr := cli(t, "verify", split, "--format", "reference", "--json", "-"); code != exitUsage || !strings.Contains(stderr, "a bag of 3 files") {
		t.Fatalf("--format reference of a split bag: exit %d %s", code, stderr)
	}
}

// TestReplaySplitBag: replay reads a rosbag2 bag directory as one
// recording, as verify does: the output is byte for byte the replay of the
// unsplit recording. A directory that is not a bag, and an output that is
// one of the bag's files, are refused.
func TestReplaySplitBag(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	bagDir, files := splitBag(t, flight, dir, 3)
	whole, split := filepath.Join(dir, "whole.mcap"), filepath.Join(dir, "split.mcap")
	for _, args := range [][]string{
		{"replay", "--in", flight, "--out", whole, "--quiet"},
		{"replay", "--in", bagDir, "--out", split, "--quiet"},
	} {
		if code, _, stderr := cli(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	a, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(split)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || len(decisionsIn(t, split)) == 0 {
		t.Fatalf("the bag's replay (%d bytes) differs from the unsplit recording's (%d bytes)", len(b), len(a))
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--in", dir, "--out", filepath.Join(dir, "o.mcap")}, exitIO, "not a rosbag2 bag"},
		{[]string{"--in", bagDir, "--out", files[1], "--force"}, exitIO, "is the input " + files[1]},
	} {
		code, _, stderr := cli(t, append([]string{"replay", "--quiet"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("replay %v: exit %d, want %d and %q:\n%s", tt.args, code, tt.code, tt.want, stderr)
		}
	}
}

// TestVerifySplitBagChannelProblems: a channel that one file of a split bag
// holds and verify cannot read (the decisions under another schema) is a
// finding, as it is in a single file: the audit cannot pass decisions it
// skipped.
func TestVerifySplitBagChannelProblems(t *testing.T) {
	dir := t.TempDir()
	bagDir, files := splitBagSchema(t, simulate(t, dir), dir, 3, "other_msgs/msg/Thing")
	last, err := bag.OpenRecording(files[2], bag.ReaderOptions{Topics: []string{"/decisions"}})
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	skipped := 0
	for _, err := range last.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		skipped++
	}
	code, stdout, stderr := cli(t, "verify", bagDir, "--quiet")
	want := []string{"unreadable_decisions_channel: 1", fmt.Sprintf("undecodable_decision: %d", skipped),
		"split_2.mcap: unexpected schema", "other_msgs/msg/Thing"}
	for _, w := range want {
		if skipped == 0 || code != exitFindings || !strings.Contains(stdout, w) {
			t.Fatalf("exit %d, want %q (the last file's %d decisions are skipped):\n%s\n%s", code, w, skipped, stdout, stderr)
		}
	}
}

// splitNode writes the messages of the recording at flight as the node's
// recorder splits one (recording.max_duration_s): node.mcap, node_001.mcap,
// ... in dir, each continuation starting with its bag.MetadataSplit record,
// each cut after a belief. It returns the files in order.
func splitNode(t *testing.T, flight, dir string, parts int) []string {
	t.Helper()
	var files []string
	return splitParts(t, flight, parts, func(p int) (string, bag.RecorderOptions) {
		name, opts := "node.mcap", bag.RecorderOptions{}
		if p > 0 {
			name = fmt.Sprintf("node_%03d.mcap", p)
			opts.Metadata = map[string]map[string]string{bag.MetadataSplit: {"previous": filepath.Base(files[p-1]), "part": fmt.Sprint(p)}}
		}
		files = append(files, filepath.Join(dir, name))
		return files[p], opts
	}, func(_ int, rec *bag.Recorder, m bag.Message, c bag.Channel) (bag.ChannelID, error) {
		return rec.AddChannel(m.Topic, c.SchemaName, c.SchemaText, c.QoS...)
	})
}

// The node's split recording is one flight: verify of its directory, or of
// its files in order, reads them as one stream and decides as verify of
// the unsplit recording does. Files out of order, or a part alone, are
// recordings of their own.
func TestVerifyNodeSplitRecording(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	code, whole, _ := cli(t, "verify", flight, "--quiet")
	if code != exitOK {
		t.Fatalf("the unsplit recording: exit %d\n%s", code, whole)
	}
	recDir := filepath.Join(dir, "rec")
	if err := os.Mkdir(recDir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := splitNode(t, flight, recDir, 3)
	for _, args := range [][]string{{recDir}, files} {
		code, stdout, stderr := cli(t, append(append([]string{"verify"}, args...), "--quiet")...)
		if code != exitOK || !strings.Contains(stdout, "a recording split into 3 files read as one") || !strings.Contains(stdout, "verdict: PASS") {
			t.Fatalf("verify %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		if got, want := decisionsLine.FindStringSubmatch(stdout), decisionsLine.FindStringSubmatch(whole); got == nil || want == nil || got[1] != want[1] {
			t.Fatalf("verify %v: decisions %v, the unsplit recording's %v", args, got, want)
		}
	}
	for _, args := range [][]string{{files[1], files[0], files[2]}, {files[0], files[2]}} {
		code, stdout, _ := cli(t, append([]string{"verify"}, args...)...)
		if code == exitOK || strings.Contains(stdout, "(3 files)") || strings.Contains(stdout, "(2 files)") {
			t.Fatalf("verify %v: exit %d, joined files not in order:\n%s", args, code, stdout)
		}
	}
}
