package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// receipt is one action receipt of a test recording, recorded at atMs
// (plus the 1 ms every test decision also takes to be logged, so that the
// report places it at atMs).
type receipt struct {
	atMs    int64
	id      uint64
	kind    decisions.Kind
	stampMs int64
	event   ActionEvent
	attempt uint8
	failure uint8
	ack     int // acknowledgement result in the evidence, -1 for none
	state   int // observed nav_state in the evidence, -1 for none
	detail  string
}

func receiptMsg(t testing.TB, r receipt) recMsg {
	m := ros2msg.NewActionReceipt()
	m.ActionID, m.DecisionStampSimNs, m.Kind = r.id, r.stampMs*ms, uint8(r.kind)
	m.ExecutorID, m.VehicleID, m.Event, m.Attempt, m.Failure = "px4", 1, uint8(r.event), r.attempt, r.failure
	m.Command, m.Detail, m.TimeNs = 176, r.detail, (r.atMs+1)*ms
	if r.ack >= 0 {
		m.Evidence = append(m.Evidence, ros2msg.ActionEvidenceItem{Kind: evidenceAck, ActionID: r.id, ExecutorID: "px4", VehicleID: 1, Command: 176, Result: uint8(r.ack)})
	}
	if r.state >= 0 {
		m.Evidence = append(m.Evidence, ros2msg.ActionEvidenceItem{Kind: evidenceState, ActionID: r.id, ExecutorID: "px4", VehicleID: 1, Mode: uint8(r.state), Armed: true})
	}
	return recMsg{"/decisions/actions", (r.atMs + 1) * ms, cdr(t, &m)}
}

// actingRecording is a flight written by hand in which every kind of
// action trail occurs: not reached, no acknowledgement, not applicable,
// reached, denied, superseded, open at the end; three of its changes of
// kind are escalations (at 3, 6 and 10.5 s) and two are not (7 s: less
// severe; 8 s: after a reached hold). Its decisions are logged 1 ms after
// their stamp, one every 100 ms.
func actingRecording(t testing.TB) []recMsg {
	h, land, kill, rtl := decisions.KindHold, decisions.KindEngageLand, decisions.KindEngageKill, decisions.KindEngageRTL
	episodes := []struct {
		fromMs int64
		kind   decisions.Kind
	}{{0, decisions.KindProceed}, {1000, h}, {3000, land}, {6000, kill}, {7000, h}, {8000, rtl}, {9000, decisions.KindProceed}, {10000, h}, {10500, land}}
	rs := []receipt{
		{1010, 1, h, 1000, EventSent, 1, 0, -1, -1, "the decided kind changed to hold"},
		{1040, 1, h, 1000, EventEvidenceAccepted, 0, 0, 0, -1, "1 of 1 items new"},
		{1040, 1, h, 1000, EventAccepted, 1, 0, 0, -1, "acknowledged ACCEPTED"},
		{2000, 1, h, 1000, EventFailed, 1, FailureExecutor, -1, -1, "accepted, but not observed in mode 4 within 1s"},
		{3010, 2, land, 3000, EventSent, 1, 0, -1, -1, "the decided kind changed to engage_land"},
		{4010, 2, land, 3000, EventRetried, 2, 0, -1, -1, "no acknowledgement 1s after send 1"},
		{5010, 2, land, 3000, EventFailed, 2, FailureTransport, -1, -1, "no acknowledgement 1s after the last of 2 sends"},
		{6010, 3, kill, 6000, EventFailed, 0, FailureNotApplicable, -1, -1, "the vehicle's flight mode is already kill"},
		{7010, 4, h, 7000, EventSent, 1, 0, -1, -1, "the decided kind changed to hold"},
		{7020, 4, h, 7000, EventEvidenceRejected, 0, 0, -1, 4, "evidence item 0: vehicle_id = 2, but the target vehicle is 1; batch rejected whole"},
		{7040, 4, h, 7000, EventEvidenceAccepted, 0, 0, 0, -1, "1 of 1 items new"},
		{7040, 4, h, 7000, EventAccepted, 1, 0, 0, -1, "acknowledged ACCEPTED"},
		{7200, 4, h, 7000, EventEvidenceAccepted, 0, 0, -1, 4, "1 of 1 items new"},
		{7200, 4, h, 7000, EventReached, 1, 0, -1, 4, "observed mode 4"},
		{8010, 5, rtl, 8000, EventSent, 1, 0, -1, -1, "the decided kind changed to engage_rtl"},
		{8050, 5, rtl, 8000, EventEvidenceAccepted, 0, 0, 2, -1, "1 of 1 items new"},
		{8050, 5, rtl, 8000, EventFailed, 1, FailureExecutor, 2, -1, "the vehicle acknowledged command 20 with DENIED"},
		// Evidence for no action the Runner knows: counted, no row.
		{9500, 0, decisions.KindProceed, 0, EventEvidenceRejected, 0, 0, 0, -1, "evidence item 0: action_id = 9 is no outstanding action; batch rejected whole"},
		{10010, 6, h, 10000, EventSent, 1, 0, -1, -1, "the decided kind changed to hold"},
		{10040, 6, h, 10000, EventEvidenceAccepted, 0, 0, 0, -1, "1 of 1 items new"},
		{10040, 6, h, 10000, EventAccepted, 1, 0, 0, -1, "acknowledged ACCEPTED"},
		{10500, 6, h, 10000, EventSuperseded, 1, 0, -1, -1, "decision 10500000000 (engage_land) superseded it"},
		{10500, 7, land, 10500, EventSent, 1, 0, -1, -1, "the decided kind changed to engage_land"},
	}
	var msgs []recMsg
	ri, ei := 0, 0
	for stamp := int64(0); stamp <= 11000; stamp += 100 {
		for ri < len(rs) && rs[ri].atMs < stamp {
			msgs = append(msgs, receiptMsg(t, rs[ri]))
			ri++
		}
		if ei+1 < len(episodes) && stamp >= episodes[ei+1].fromMs {
			ei++
		}
		b := belief(stamp*ms, 0.01, true, decisions.FlightModeOffboard, 1-float64(stamp)/11000)
		a := assess(t, b)
		k := episodes[ei].kind
		msgs = append(msgs, beliefMsg(t, b, stamp*ms+ms/2), assessmentMsg(t, a, stamp*ms+ms/2),
			decisionMsg(t, rationale(stamp*ms, k, "because_"+k.String(), a.SHA256()), stamp*ms+ms))
		for ri < len(rs) && rs[ri].atMs == stamp {
			msgs = append(msgs, receiptMsg(t, rs[ri]))
			ri++
		}
	}
	return msgs
}

// TestActionTrailGolden reads the hand-written acting flight: the action
// table (testdata/actions.golden, written by hand from the receipts) and
// the escalations follow from the receipts, and the report draws them.
func TestActionTrailGolden(t *testing.T) {
	f, err := Collect(writeRecording(t, actingRecording(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# action\tkind\tdecided\tsends\tacknowledged\toutcome\tat\tdetail\n")
	for _, r := range ActionRows(f) {
		b.WriteString(strings.Join([]string{r.ID, r.Kind, r.Decided, r.Sends, r.Ack, r.Outcome, r.At, r.Detail}, "\t") + "\n")
	}
	path := filepath.Join("testdata", "actions.golden")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("action table differs from %s:\ngot:\n%s\nwant:\n%s", path, b.String(), want)
	}
	a := f.Actions
	if a.Messages != 23 || a.Undecodable != 0 || a.ByEvent[EventSent] != 6 || a.ByEvent[EventRetried] != 1 ||
		a.ByEvent[EventEvidenceRejected] != 2 || len(a.Trail) != 7 || a.Trail[0].ID == 0 ||
		a.ByFailure[FailureExecutor] != 2 || a.ByAck[0] != 3 || a.ByAck[2] != 1 {
		t.Errorf("counts: %+v", a)
	}
	type escal struct {
		atMs     int64
		from, to decisions.Kind
		action   uint64
	}
	wantEsc := []escal{
		{3000, decisions.KindHold, decisions.KindEngageLand, 1},
		{6000, decisions.KindEngageLand, decisions.KindEngageKill, 2},
		{10500, decisions.KindHold, decisions.KindEngageLand, 6},
	}
	if len(a.Escalations) != len(wantEsc) {
		t.Fatalf("escalations %+v, want %d", a.Escalations, len(wantEsc))
	}
	for i, w := range wantEsc {
		if e := a.Escalations[i]; e.StampNs != w.atMs*ms || e.From != w.from || e.To != w.to || e.ActionID != w.action {
			t.Errorf("escalation %d: %+v, want %+v", i, e, w)
		}
	}
	html := string(render(t, f, NotAudited()))
	if !strings.Contains(html, `<tr id="action-5"`) || !strings.Contains(html, `<a href="#action-5"><rect`) {
		t.Error("the action lane does not link to the action table")
	}
	for _, s := range []string{
		"failed: executor (DENIED)", "8.050 s: action 5 failed (attempt 1) executor, ack DENIED",
		"7.020 s: action 4 evidence_rejected", "observed AUTO_LOITER (nav_state 4)",
		"(command DO_SET_MODE, 176)",
		"escalation at 3.000 s: hold → engage_land (reason because_engage_land) after action 1 (hold) failed (executor)",
		"10.500 s: hold → ", "was acknowledged ACCEPTED but had not reached its state",
		"7 actions from 23 receipts on /decisions/actions", "acknowledged 3 ACCEPTED, 1 DENIED", "3 escalations",
	} {
		if !strings.Contains(html, esc(s)) {
			t.Errorf("report lacks %q", s)
		}
	}
	// With the policy known, only the changes its outcome-reading rules
	// made are escalations: here the kill; the lands were made by a rule
	// that reads no action, whatever became of the hold before them.
	aud := NotAudited()
	aud.Escalating = map[string][]string{"test_policy_v1": {"because_engage_kill"}}
	html = string(render(t, f, aud))
	for _, s := range []string{
		"escalation at 6.000 s: engage_land → engage_kill (reason because_engage_kill)", "1 escalations",
		"2 changes to a more severe kind came after an action that had not reached its state, but were made by rules that do not read what actions achieved (reasons because_engage_land): not escalations.",
	} {
		if !strings.Contains(html, esc(s)) {
			t.Errorf("report lacks %q", s)
		}
	}
	if strings.Contains(html, esc("escalation at 3.000 s")) {
		t.Error("the land a rule without actions made is drawn as an escalation")
	}
}

// TestEscalationRule checks the escalation rule on hand-made trails.
func TestEscalationRule(t *testing.T) {
	h, land, kill := decisions.KindHold, decisions.KindEngageLand, decisions.KindEngageKill
	failed := func(class uint8) *ActionStep { return &ActionStep{Event: EventFailed, Failure: class} }
	tests := []struct {
		name     string
		from, to decisions.Kind
		act      decisions.Kind // kind of the previous episode's action; 0xff for none
		outcome  *ActionStep    // nil: still open
		acked    bool
		escalate bool
	}{
		{"executor failure", h, land, h, failed(FailureExecutor), true, true},
		{"transport failure", land, kill, land, failed(FailureTransport), false, true},
		{"blocked by policy", h, decisions.KindEngageRTL, h, failed(FailureBlockedByPolicy), false, true},
		{"refused", h, land, h, &ActionStep{Event: EventRefused, Failure: FailureTransport}, false, true},
		{"not applicable", land, kill, land, failed(FailureNotApplicable), false, false},
		{"reached", h, land, h, &ActionStep{Event: EventReached}, true, false},
		{"superseded before reaching", h, land, h, &ActionStep{Event: EventSuperseded}, true, true},
		{"still open", h, kill, h, nil, false, true},
		{"less severe", land, h, land, failed(FailureExecutor), false, false},
		{"same severity order but from proceed", decisions.KindProceed, h, decisions.KindProceed, failed(FailureExecutor), false, false},
		{"from abstain", decisions.KindAbstainUncertain, land, decisions.KindAbstainUncertain, nil, false, false},
		{"no action in the episode", h, land, 0xff, nil, false, false},
		{"action of another kind", h, land, land, failed(FailureExecutor), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &Flight{Episodes: []Episode{
				{N: 1, Kind: tc.from, StartNs: 0, EndNs: 10 * ms},
				{N: 2, Kind: tc.to, StartNs: 10 * ms, EndNs: 20 * ms},
			}}
			if tc.act != 0xff {
				a := Action{ID: 7, Kind: tc.act, DecisionNs: 0, Steps: []ActionStep{{Event: EventSent}}, Sends: 1, HasAck: tc.acked}
				if tc.outcome != nil {
					a.Outcome, a.HasOutcome = *tc.outcome, true
				}
				// An earlier action of the same kind in an older episode
				// never counts.
				old := Action{ID: 3, Kind: tc.act, DecisionNs: -5 * ms, Outcome: ActionStep{Event: EventReached}, HasOutcome: true}
				f.Actions.Trail = []Action{old, a}
			}
			got := escalations(f)
			if (len(got) == 1) != tc.escalate || len(got) > 1 {
				t.Fatalf("escalations %+v, want escalate=%v", got, tc.escalate)
			}
			if tc.escalate && (got[0].ActionID != 7 || got[0].Episode != 2 || got[0].From != tc.from || got[0].To != tc.to || got[0].Why == "") {
				t.Errorf("escalation %+v", got[0])
			}
		})
	}
}
