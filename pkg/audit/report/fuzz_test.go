package report

import (
	"io"
	"testing"
)

// FuzzCollectorMessage feeds arbitrary bytes on every topic, at arbitrary
// log times: the collector and the renderer must never panic, and the
// report must stay self-contained.
func FuzzCollectorMessage(f *testing.F) {
	topics := []string{"/state/nav", "/self_assessment", "/perception/mode", "/decisions", "/decisions/actions", "/decisions/evidence", "/other"}
	for _, m := range append(everyKind(&testing.T{}), actingRecording(&testing.T{})...) {
		for i, tp := range topics {
			if tp == m.topic {
				f.Add(uint8(i), m.log, m.data, m.data)
			}
		}
	}
	f.Add(uint8(3), int64(-1<<63), []byte{0, 1, 0, 0}, []byte{})
	f.Fuzz(func(t *testing.T, topic uint8, log int64, a, b []byte) {
		c, err := NewCollector(Options{MaxBuckets: 16, MaxEpisodes: 4, MaxMarks: 4, MaxActions: 2})
		if err != nil {
			t.Fatal(err)
		}
		tp := topics[int(topic)%len(topics)]
		c.Message(tp, "x", log, a)
		c.Message(tp, "x", log^0x5555, b)
		c.Message(topics[(int(topic)+3)%len(topics)], "x", -log, a)
		fl := c.Finish()
		if len(fl.Buckets) > 16 || len(fl.Episodes) > 4 || len(fl.Marks) > 4 || len(fl.Actions.Trail) > 2 {
			t.Fatalf("bounds exceeded: %d buckets, %d episodes, %d marks, %d actions", len(fl.Buckets), len(fl.Episodes), len(fl.Marks), len(fl.Actions.Trail))
		}
		for _, a := range fl.Actions.Trail {
			if len(a.Steps) > maxSteps {
				t.Fatalf("action %d keeps %d steps", a.ID, len(a.Steps))
			}
		}
		if err := Render(io.Discard, fl, Audit{Verdict: string(a), Problems: []Problem{{StampNs: log, Text: string(b)}}}); err != nil {
			t.Fatal(err)
		}
	})
}
