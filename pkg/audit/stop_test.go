package audit

import (
	"testing"
	"time"
)

func TestReplayStopsEarlyWithACompleteOutput(t *testing.T) {
	for _, ahead := range []int8{-1, 1} {
		t.Run(map[int8]string{-1: "one goroutine", 1: "read ahead"}[ahead], func(t *testing.T) { testReplayStopsEarly(t, ahead) })
	}
}

func testReplayStopsEarly(t *testing.T, readAhead int8) {
	full, fullRes, err := replayBytes(t, simSource(t, 10*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	const at = 600
	out, res, err := replayBytes(t, simSource(t, 10*time.Second, 50), ReplayOptions{
		Stop:          stop,
		readAhead:     readAhead,
		ProgressEvery: at,
		OnProgress: func(p Progress) {
			if p.Messages == at && !p.Done {
				close(stop)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Messages != at || fullRes.Stopped || fullRes.Messages <= at {
		t.Fatalf("stopped %v after %d messages (full run: %d)", res.Stopped, res.Messages, fullRes.Messages)
	}
	// Everything read was decided: the decisions are the full run's up to
	// the stop, except the last few, decided at the end without waiting
	// for assessments that were never read.
	got, want := recordedDecisions(t, out), recordedDecisions(t, full)
	if len(got) == 0 || len(got) >= len(want) {
		t.Fatalf("%d decisions, full run %d", len(got), len(want))
	}
	same := 0
	for same < len(got) && got[same] == want[same] {
		same++
	}
	if same < len(got)-2 {
		t.Fatalf("decision %d differs from the full run's: %+v vs %+v", same, got[same], want[same])
	}
	if uint64(len(got)) != res.Counters.DecisionsTotal() {
		t.Fatalf("%d decisions recorded, %d counted", len(got), res.Counters.DecisionsTotal())
	}
	report, err := Verify(openBytes(t, out), VerifyOptions{})
	if err != nil || !report.Passed() {
		t.Fatalf("the stopped replay's output does not verify: %v %v", err, report.Reasons)
	}
}
