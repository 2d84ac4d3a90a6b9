package rosbridge

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/msg"
)

// TestReadSampleFlight reads the sample recording written by independent
// tools (mcap-typescript, uncompressed chunks, channel IDs from 0, empty
// offered_qos_profiles, log times up to 2^63-1) and checks what it holds.
func TestReadSampleFlight(t *testing.T) {
	dir := filepath.Join(goldenDir(t), "bags")
	path := filepath.Join(dir, "sample_flight.mcap")
	expected := beliefStamps(t, filepath.Join(dir, "sample_flight.expected.jsonl"))

	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "indexed", true: "stream"}[stream], func(t *testing.T) {
			r, err := OpenRecording(path, ReaderOptions{
				Stream: stream,
				Schemas: map[string]string{
					"/state/nav":       "ghost/msg/VehicleState",
					"/self_assessment": "ghost/msg/BeliefSelfAssessment",
					"/perception/mode": "ghost/msg/PerceptionMode",
					"/decisions":       "ghost/msg/DecisionRationale",
				},
				CheckSchema: msg.CheckSchema,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Indexed() == stream || r.Profile() != "ros2" {
				t.Fatalf("indexed %v, profile %q", r.Indexed(), r.Profile())
			}
			counts := map[string]int{}
			var last uint64
			navStamps := map[int64]bool{}
			for m, err := range r.Messages() {
				if err != nil {
					t.Fatal(err)
				}
				counts[m.Topic]++
				if m.LogTime < last {
					t.Fatalf("log time %d after %d", m.LogTime, last)
				}
				last = m.LogTime
				if len(m.Data) < 12 || m.Data[0] != 0 || m.Data[1] != 1 {
					t.Fatalf("%s: not little-endian CDR: % x", m.Topic, m.Data[:min(len(m.Data), 8)])
				}
				if m.Topic == "/state/nav" {
					// stamp_sim_ns is the first field, right after the
					// encapsulation header.
					navStamps[int64(binary.LittleEndian.Uint64(m.Data[4:]))] = true
				}
			}
			want := map[string]int{"/state/nav": 104, "/self_assessment": 102, "/perception/mode": 3}
			if len(counts) != len(want) {
				t.Errorf("topics %v, want %v (no /decisions in this recording)", counts, want)
			}
			for topic, n := range want {
				if counts[topic] != n {
					t.Errorf("%s: %d messages, want %d", topic, counts[topic], n)
				}
			}
			if p := r.Problems(); len(p) != 0 {
				t.Errorf("problems: %+v", p)
			}
			for _, ch := range r.Channels() {
				if ch.SchemaEncoding != "ros2msg" || ch.MessageEncoding != "cdr" || ch.QoSErr != nil || ch.QoS != nil {
					t.Errorf("channel %+v", ch)
				}
			}
			// Every expected decision refers to a belief in the recording.
			if len(navStamps) != len(expected) {
				t.Errorf("%d distinct belief stamps, expected file has %d", len(navStamps), len(expected))
			}
			for s := range expected {
				if !navStamps[s] {
					t.Errorf("expected decision for stamp %d has no belief", s)
				}
			}
		})
	}
}

func beliefStamps(t *testing.T, path string) map[int64]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Stamp string `json:"stamp"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		s, err := strconv.ParseInt(line.Stamp, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = true
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return out
}
