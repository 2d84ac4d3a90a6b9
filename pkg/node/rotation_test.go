package node

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

func TestSplitPath(t *testing.T) {
	tests := []struct {
		first string
		k     int
		want  string
	}{
		{"d/node.mcap", 1, "d/node_001.mcap"},
		{"d/node.mcap", 999, "d/node_999.mcap"},
		{"d/node_restart002.mcap", 3, "d/node_restart002_003.mcap"},
		{"flight", 12, "flight_012"},
	}
	for _, tt := range tests {
		if got := splitPath(tt.first, tt.k); got != tt.want {
			t.Errorf("splitPath(%q, %d) = %q, want %q", tt.first, tt.k, got, tt.want)
		}
	}
	// The order the files are written in is their sort order, and a
	// restart's files sort after every part of the run before.
	order := []string{"node.mcap", "node_001.mcap", "node_002.mcap", "node_999.mcap",
		"node_restart001.mcap", "node_restart001_001.mcap", "node_restart002.mcap"}
	if !slices.IsSorted(order) {
		t.Errorf("%v does not sort in recording order", order)
	}
}

// readParts reads the recording's files in order and returns, per file, the
// messages by topic, and every message's (topic, log time, data) digest.
func readParts(t *testing.T, files []string) (perFile []map[string]int, digests [][32]byte) {
	t.Helper()
	for _, f := range files {
		r, err := bag.OpenRecording(f, bag.ReaderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !r.Indexed() {
			t.Errorf("%s has no index: it was not finished", f)
		}
		topics := map[string]int{}
		for m, err := range r.Messages() {
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			topics[m.Topic]++
			h := sha256.New()
			h.Write([]byte(m.Topic))
			h.Write([]byte{byte(m.LogTime >> 56), byte(m.LogTime >> 48), byte(m.LogTime >> 40), byte(m.LogTime >> 32),
				byte(m.LogTime >> 24), byte(m.LogTime >> 16), byte(m.LogTime >> 8), byte(m.LogTime)})
			h.Write(m.Data)
			digests = append(digests, [32]byte(h.Sum(nil)))
		}
		r.Close()
		perFile = append(perFile, topics)
	}
	return perFile, digests
}

// A recording split by time continues in NAME_001.mcap, NAME_002.mcap, ...:
// every file is finished and readable on its own, each after the first
// names the one it continues, and together they hold every message once.
func TestRunRecordingSplitsByDuration(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(dir, "node.mcap")
	cfg.Recording.MaxDurationS = 1
	h := startNode(t, cfg)
	const n = 35 // 3.4 s of log time: four files
	feedBeliefs(t, h, cfg, base, n)
	d := h.sync(base.Add(ms(100 * n)))
	if got := count(t, d, "recording.files"); got != 4 {
		t.Errorf("recording.files = %d, want 4", got)
	}
	if got := count(t, d, "recording.messages"); got != 3*n {
		t.Errorf("recording.messages = %d, want %d", got, 3*n)
	}
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node.mcap", "node_001.mcap", "node_002.mcap", "node_003.mcap"}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	perFile, digests := readParts(t, files)
	total := map[string]int{}
	for i, topics := range perFile {
		if topics[cfg.Topics.Decisions()] == 0 {
			t.Errorf("%s holds no decision: %v", names[i], topics)
		}
		for k, v := range topics {
			total[k] += v
		}
	}
	for _, topic := range []string{cfg.Topics[session.KeyState], cfg.Topics[session.KeySelfAssessment], cfg.Topics.Decisions()} {
		if total[topic] != n {
			t.Errorf("%s: %d messages in all files, want %d", topic, total[topic], n)
		}
	}
	seen := map[[32]byte]bool{}
	for _, d := range digests {
		if seen[d] {
			t.Errorf("a message is recorded twice")
		}
		seen[d] = true
	}
	for i, f := range files[1:] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{bag.MetadataSplit, names[i]} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s does not say %q", names[i+1], want)
			}
		}
	}
	if !strings.Contains(h.logs.String(), "recording continues in a new file") {
		t.Errorf("log does not say the recording continued:\n%s", h.logs)
	}
}

// A recording split by size: each file holds about max bytes, the channels
// keep their IDs in every file, nothing is lost or repeated.
func TestRecordingSplitsBySize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.mcap")
	opts := bag.RecorderOptions{Compression: bag.CompressionNone, ChunkSize: 2048, WaitChunks: true}
	rec, err := bag.CreateRecording(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var splits []string
	s := &recording{rec: rec, path: path, split: splitting{
		create: bag.CreateRecording, opts: opts, first: path, maxBytes: 8192,
		onSplit: func(p string, err error) {
			if err != nil {
				t.Errorf("split to %s: %v", p, err)
			}
			splits = append(splits, filepath.Base(p))
		},
	}}
	ids := make([]bag.ChannelID, 2)
	for i, topic := range []string{"/a", "/b"} {
		if ids[i], err = s.addChannel(func(r *bag.Recorder) (bag.ChannelID, error) {
			return r.AddChannel(topic, "std_msgs/msg/String", "string data\n")
		}); err != nil {
			t.Fatal(err)
		}
	}
	const n = 200
	for i := range n {
		data := bytes.Repeat([]byte{byte(i)}, 100)
		if err := s.write(ids[i%2], uint64(i+1)*1000, 0, data); err != nil {
			t.Fatal(err)
		}
	}
	st := s.stats()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(splits) < 2 || st.files != len(splits)+1 || st.messages != n {
		t.Fatalf("split into %v; stats %+v", splits, st)
	}
	files := []string{path}
	for _, name := range splits {
		files = append(files, filepath.Join(dir, name))
	}
	perFile, digests := readParts(t, files)
	var total int
	for i, topics := range perFile {
		total += topics["/a"] + topics["/b"]
		if fi, err := os.Stat(files[i]); err != nil || fi.Size() > 3*8192 {
			t.Errorf("%s: %v bytes, more than the bound allows", files[i], fi.Size())
		}
	}
	if total != n || len(digests) != n {
		t.Errorf("%d messages in %d files, want %d", total, len(files), n)
	}
}

// A recording that cannot continue in a new file stays in the current one
// and says so: no message is lost.
func TestRecordingSplitFailureKeepsRecording(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(dir, "node.mcap")
	cfg.Recording.MaxDurationS = 1
	cfg.Recording.Compression = config.CompressionNone
	// The first part's name is taken.
	if err := os.WriteFile(filepath.Join(dir, "node_001.mcap"), []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startNode(t, cfg)
	const n = 25
	feedBeliefs(t, h, cfg, base, n)
	d := h.sync(base.Add(ms(100 * n)))
	if !strings.Contains(d.Status[0].Message, "recording not split") {
		t.Errorf("diagnostics %q do not say the recording was not split", d.Status[0].Message)
	}
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	perFile, _ := readParts(t, []string{cfg.Recording.Path})
	if got := perFile[0][cfg.Topics.Decisions()]; got != n {
		t.Errorf("%d decisions recorded, want %d", got, n)
	}
	if !strings.Contains(h.logs.String(), "cannot continue the recording in a new file") {
		t.Errorf("log does not say the split failed:\n%s", h.logs)
	}
}

// feedBeliefs delivers n beliefs, each with its assessment, one every
// 100 ms of log time from base, and lets the node take each.
func feedBeliefs(t *testing.T, h *harness, cfg config.Config, base time.Time, n int) {
	t.Helper()
	for i := range n {
		b := testBelief(int64(i+1) * 10_000_000)
		at := base.Add(ms(100 * i))
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), at)
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), at.Add(ms(1)))
		h.sync(at.Add(ms(2)))
	}
}
