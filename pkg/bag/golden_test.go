package bag

import (
	"encoding/binary"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/msg"
)

// TestReadSampleFlight reads the sample recording written by independent
// tools (mcap-typescript, uncompressed chunks, channel IDs from 0, empty
// offered_qos_profiles, log times up to 2^63-1) and checks what it holds.
func TestReadSampleFlight(t *testing.T) {
	path, decisions := golden.SampleFlight(t)

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
			if len(navStamps) != len(decisions) {
				t.Errorf("%d distinct belief stamps, expected file has %d decisions", len(navStamps), len(decisions))
			}
			for _, d := range decisions {
				if !navStamps[d.Stamp] {
					t.Errorf("expected decision for stamp %d has no belief", d.Stamp)
				}
			}
		})
	}
}
