package audit

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var enabled = []decisions.Kind{decisions.KindHold, decisions.KindYieldToPilot, decisions.KindEngageRTL, decisions.KindEngageLand}

// actionFlight simulates a flight decided by the reference policy acting
// through the px4 executor on the simulated PX4.
func actionFlight(t *testing.T) []byte {
	t.Helper()
	ex := executor.NewPX4(executor.PX4Options{Transport: px4sim.New(px4sim.Options{})})
	out, res, err := replayBytes(t, simSource(t, 30*time.Second, 20), ReplayOptions{Session: session.SessionOptions{
		Executors: []session.Executor{ex}, Enable: enabled, TargetVehicle: 1,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counters.Actions.Sent == 0 || res.Counters.Actions.EvidenceAccepted == 0 {
		t.Fatalf("no action acted: %+v", res.Counters.Actions)
	}
	return out
}

func verifyActions(t *testing.T, data []byte, execs []session.Executor) *AuditReport {
	t.Helper()
	opts := VerifyOptions{Session: session.SessionOptions{Executors: execs, TargetVehicle: 1}}
	if execs != nil {
		opts.Session.Enable = enabled
	}
	r, err := Verify(openBytes(t, data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rewrite copies a recording, changing each action receipt with edit
// (false drops it).
func rewrite(t *testing.T, data []byte, edit func(i int, rc *session.ActionReceipt) bool) []byte {
	t.Helper()
	n := 0
	return rewriteMessages(t, data, func(m *bag.Message) bool {
		if m.Topic != "/decisions/actions" {
			return true
		}
		var w ros2msg.ActionReceipt
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		rc := session.ReceiptFromWire(&w)
		keep := edit(n, &rc)
		n++
		if !keep {
			return false
		}
		w = session.ReceiptToWire(&rc)
		payload, err := w.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Data = payload
		return true
	})
}

// rewriteMessages copies a recording message by message through keep,
// which may change a message or drop it (false).
func rewriteMessages(t *testing.T, data []byte, keep func(m *bag.Message) bool) []byte {
	t.Helper()
	r := openBytes(t, data)
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chans := map[string]bag.ChannelID{}
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ch, ok := chans[m.Topic]
		if !ok {
			if ch, err = copyChannel(rec, r, &m); err != nil {
				t.Fatal(err)
			}
			chans[m.Topic] = ch
		}
		if !keep(&m) {
			continue
		}
		if err := rec.Write(ch, m.LogTime, m.PublishTime, m.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestVerifyActionTrail(t *testing.T) {
	data := actionFlight(t)
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	if r := verifyActions(t, data, execs); !r.Passed() || r.Actions["sent"] == 0 {
		t.Fatalf("the recorded trail does not verify: %v %v %v", r.Reasons, r.Actions, r.Notes)
	}
	if r := verifyActions(t, data, nil); r.Passed() || r.FindingCount(FindingActionUntraced) == 0 {
		t.Fatalf("verified without the executor: %v", r.Reasons)
	}
	firstOf := func(ev session.ReceiptEvent, f func(rc *session.ActionReceipt)) func(int, *session.ActionReceipt) bool {
		done := false
		return func(_ int, rc *session.ActionReceipt) bool {
			if !done && rc.Event == ev {
				done = true
				f(rc)
			}
			return true
		}
	}
	tests := []struct {
		name string
		edit func(int, *session.ActionReceipt) bool
		want Finding
	}{
		{"another command", firstOf(session.ReceiptSent, func(rc *session.ActionReceipt) { rc.Command.Params[2] = 5 }), FindingActionCommand},
		{"evidence of another vehicle", firstOf(session.ReceiptEvidenceAccepted, func(rc *session.ActionReceipt) { rc.Evidence[0].Vehicle = 7 }), FindingActionEvidence},
		{"an outcome the evidence does not give", firstOf(session.ReceiptAccepted, func(rc *session.ActionReceipt) { rc.Event = session.ReceiptReached }), FindingActionDiverged},
		{"a decision that was not taken", firstOf(session.ReceiptSent, func(rc *session.ActionReceipt) { rc.Stamp++ }), FindingActionUntraced},
		{"a receipt dropped", func(i int, _ *session.ActionReceipt) bool { return i != 1 }, FindingActionDiverged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := verifyActions(t, rewrite(t, data, tc.edit), execs)
			if r.Passed() || r.FindingCount(tc.want) == 0 {
				t.Fatalf("verdict %s, findings %v, want %s", r.Verdict, r.Findings, tc.want)
			}
		})
	}
}

func TestReplayWithActionsIsByteIdentical(t *testing.T) {
	data := actionFlight(t)
	opts := ReplayOptions{Session: session.SessionOptions{
		Executors: []session.Executor{executor.NewPX4(executor.PX4Options{})}, Enable: enabled, TargetVehicle: 1,
	}}
	again, _, err := replayBytes(t, openBytes(t, data), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Fatal("replaying a recording with actions changed its bytes")
	}
}

// TestVerifyReceiptTimeSkew: a recorder that logs at its own receive time
// shifts every receipt's re-derived time; within the accepted skew the
// trail verifies and the report says by how much, beyond it it diverges.
func TestVerifyReceiptTimeSkew(t *testing.T) {
	data := actionFlight(t)
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	shift := func(d time.Duration) []byte {
		return rewrite(t, data, func(_ int, rc *session.ActionReceipt) bool { rc.TimeNs += int64(d); return true })
	}
	tests := []struct {
		name   string
		data   []byte
		skew   time.Duration
		pass   bool
		skewed bool
	}{
		{"exact, no skew accepted", data, 0, true, false},
		{"5 ms late, no skew accepted", shift(5 * time.Millisecond), 0, false, false},
		{"5 ms late, a recorder's skew", shift(5 * time.Millisecond), RecorderTimeSkew, true, true},
		{"2 s late, a recorder's skew", shift(2 * time.Second), RecorderTimeSkew, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Verify(openBytes(t, tc.data), VerifyOptions{ReceiptTimeSkew: tc.skew,
				Session: session.SessionOptions{Executors: execs, Enable: enabled, TargetVehicle: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed() != tc.pass {
				t.Fatalf("passed %v, want %v: %v %v", r.Passed(), tc.pass, r.Findings, r.Notes)
			}
			if !tc.pass && r.FindingCount(FindingActionDiverged) == 0 {
				t.Fatalf("findings %v, want %s", r.Findings, FindingActionDiverged)
			}
			if got := r.ReceiptTimeSkewed > 0; got != tc.skewed {
				t.Fatalf("receipts matched with skew: %d", r.ReceiptTimeSkewed)
			}
			if tc.skewed && r.ReceiptTimeSkewMaxNs != int64(5*time.Millisecond) {
				t.Fatalf("largest skew %d ns, want 5 ms", r.ReceiptTimeSkewMaxNs)
			}
		})
	}
}

// TestVerifyEvidenceWithNoActionOutstanding: evidence refused while no
// action was outstanding is recorded with no action to trace; the trail
// still verifies, and a forged such receipt still diverges.
func TestVerifyEvidenceWithNoActionOutstanding(t *testing.T) {
	// The PX4-like policy on a short flight: a scripted late
	// acknowledgement arrives after its action concluded.
	policy, err := rules.ParseFile("../../config/policies/px4_failsafe_like.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ex := executor.NewPX4(executor.PX4Options{Transport: px4sim.New(px4sim.Options{})})
	data, _, err := replayBytes(t, simSource(t, 60*time.Second, 10), ReplayOptions{Session: session.SessionOptions{
		Loop:      engine.LoopOptions{Policy: policy},
		Executors: []session.Executor{ex}, Enable: enabled, TargetVehicle: 1,
	}})
	if err != nil {
		t.Fatal(err)
	}
	unattachedN := 0
	rewrite(t, data, func(_ int, rc *session.ActionReceipt) bool {
		if unattached(rc) {
			unattachedN++
		}
		return true
	})
	if unattachedN == 0 {
		t.Fatal("the flight has no evidence refused with no action outstanding: the test needs another flight")
	}
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	verify := func(data []byte) *AuditReport {
		r, err := Verify(openBytes(t, data), VerifyOptions{Policies: []decisions.Policy{policy},
			Session: session.SessionOptions{Executors: execs, Enable: enabled, TargetVehicle: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := verify(data); !r.Passed() {
		t.Fatalf("the trail does not verify: %v %v", r.Findings, r.Notes)
	}
	forged := rewrite(t, data, func(_ int, rc *session.ActionReceipt) bool {
		if unattached(rc) {
			rc.Detail = "forged"
		}
		return true
	})
	if r := verify(forged); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
		t.Fatalf("a forged receipt verified: %v", r.Findings)
	}
}

// The remembered verdicts answer as a map bounded to the newest max stamps
// would, whether the stamps rise (the ordered fast path), repeat, or go back
// (the map it falls back to).
func TestActionAuditRemembersLikeABoundedMap(t *testing.T) {
	tests := []struct {
		name   string
		stamps []int64
		max    int
	}{
		{"rising", []int64{1, 2, 3, 5, 8, 13}, 10},
		{"rising beyond the bound", []int64{1, 2, 3, 5, 8, 13}, 3},
		{"a repeat", []int64{1, 2, 2, 3}, 10},
		{"a repeat at the bound", []int64{1, 2, 3, 3, 4}, 2},
		{"back in time", []int64{1, 5, 3, 7}, 10},
		{"back in time beyond the bound", []int64{10, 20, 30, 15, 40, 50}, 3},
		{"back to a known stamp", []int64{1, 2, 3, 2, 4}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a actionAudit
			want := map[int64]decidedVerdict{}
			var order []int64
			for i, s := range tt.stamps {
				d := decidedVerdict{kind: decisions.Kind(i % 3), ok: i%2 == 0}
				a.remember(s, d, tt.max)
				if _, ok := want[s]; !ok {
					order = append(order, s)
				}
				want[s] = d
				for len(order) > tt.max {
					delete(want, order[0])
					order = order[1:]
				}
				for probe := int64(0); probe <= 60; probe++ {
					got, ok := a.verdict(probe)
					w, wok := want[probe]
					if ok != wok || got != w {
						t.Fatalf("after %v: verdict(%d) = %v, %v; want %v, %v", tt.stamps[:i+1], probe, got, ok, w, wok)
					}
				}
			}
		})
	}
}
