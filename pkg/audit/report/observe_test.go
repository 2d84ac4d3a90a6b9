package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var _ audit.Observer = (*Collector)(nil)

// TestObservedFlight: a Collector observing verify's one read of a
// recording draws the flight a read of its own draws, whatever decodes
// where (decode workers or none), with undecodable, invalid and damaged
// input.
func TestObservedFlight(t *testing.T) {
	tests := []struct {
		name     string
		msgs     func(t *testing.T) []recMsg
		truncate bool
	}{
		{"every kind", everyKind, false},
		{"undecodable and invalid messages", oddMessages, false},
		{"truncated", everyKind, true},
	}
	for _, tc := range tests {
		path := writeRecording(t, tc.msgs(t))
		if tc.truncate {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, werr := Collect(path, Options{})
		if want == nil {
			t.Fatalf("%s: Collect: %v", tc.name, werr)
		}
		if tc.name == "undecodable and invalid messages" {
			if c, a := want.Counts, want.Actions; c.Undecodable != 4 || c.Rejected < 5 || a.EvidenceBatches != 2 || a.EvidenceUndecodable != 1 || a.Undecodable != 1 {
				t.Fatalf("counts %+v, actions %+v: the recording lacks the odd messages it is built with", c, a)
			}
		}
		for _, workers := range []int{-1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				got, gerr := observe(t, path, workers)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("error %v, want %v", gerr, werr)
				}
				// Printed, so that the buckets' NaNs (no value) compare equal.
				if g, w := fmt.Sprintf("%+v", *got), fmt.Sprintf("%+v", *want); g != w {
					t.Errorf("observed flight differs from the collected one:\n%s\n%s", g, w)
				}
			})
		}
	}
}

// oddMessages is a flight with a message of each kind that does not decode,
// an invalid belief and decision, and evidence batches.
func oddMessages(t *testing.T) []recMsg {
	b0, b1 := belief(0, 0.01, true, decisions.FlightModeOffboard, 0.8), belief(20*ms, 0.01, true, decisions.FlightModeOffboard, 0.8)
	a0 := assess(t, b0)
	bad := b1
	bad.Covariance = bad.Covariance[:3]
	invalid := rationale(20*ms, decisions.KindHold, "overall_uncertain", "not a hash")
	var ev ros2msg.ActionEvidence
	return []recMsg{
		beliefMsg(t, b0, 1*ms), assessmentMsg(t, a0, 2*ms),
		decisionMsg(t, rationale(0, decisions.KindProceed, "overall_known", a0.SHA256()), 2*ms),
		beliefMsg(t, bad, 21*ms),
		decisionMsg(t, invalid, 22*ms),
		{"/state/nav", 30 * ms, []byte{0, 1, 0, 0, 7}},
		{"/self_assessment", 31 * ms, []byte{0, 1, 0, 0, 7}},
		{"/perception/mode", 32 * ms, []byte{0, 1, 0, 0}},
		{"/decisions", 33 * ms, []byte{0, 1, 0, 0, 7}},
		{"/decisions/actions", 34 * ms, []byte{0, 1, 0, 0, 1}},
		{"/decisions/evidence", 35 * ms, cdr(t, &ev)},
		{"/decisions/evidence", 36 * ms, []byte{0, 1, 0, 0, 1}},
	}
}

// observe draws the recording at path from verify's read of it.
func observe(t *testing.T, path string, workers int) (*Flight, error) {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, verr := audit.Verify(r, audit.VerifyOptions{Observer: c, DecodeWorkers: workers})
	read := Read{Name: filepath.Base(path), Path: path, Library: r.Library(), Profile: r.Profile(), Problems: r.Problems()}
	if ie := (*audit.IncompleteReadError)(nil); errors.As(verr, &ie) {
		read.Err = ie.Err
	} else if verr != nil {
		t.Fatalf("Verify: %v", verr)
	}
	return c.FinishRead(read)
}
