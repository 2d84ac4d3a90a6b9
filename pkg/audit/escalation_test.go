package audit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TestVerifyRederivesANotApplicableRestart: the simulated flight decides
// hold on the ground, where it is not applicable, and keeps deciding it
// after arming: the Loop starts it again, and verify derives that restart
// from the recording; a trail without it fails.
func TestVerifyRederivesANotApplicableRestart(t *testing.T) {
	data := actionFlight(t)
	restart := -1
	rewrite(t, data, func(i int, rc *session.ActionReceipt) bool {
		if restart < 0 && rc.Event == session.ReceiptSent && strings.Contains(rc.Detail, "was not applicable before") {
			restart = i
		}
		return true
	})
	if restart < 0 {
		t.Fatal("the simulated flight has no action started again after not_applicable")
	}
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	if r := verifyActions(t, data, execs); !r.Passed() {
		t.Fatalf("the recorded trail does not verify: %v %v", r.Reasons, r.Problems)
	}
	dropped := rewrite(t, data, func(i int, _ *session.ActionReceipt) bool { return i != restart })
	if r := verifyActions(t, dropped, execs); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
		t.Fatalf("a trail without the restart verifies: %v", r.Reasons)
	}
}

const escalatingPolicy = "../../config/policies/px4_failsafe_escalating.yaml"

// escalationFlight simulates a minute of flight decided by the escalating
// policy through the px4 executor, on a simulated PX4 that accepts every
// action except as byKind says; kill adds engage_kill to the enabled kinds.
func escalationFlight(t *testing.T, p decisions.Policy, byKind []px4sim.KindBehaviour, kill bool) ([]byte, session.SessionOptions) {
	t.Helper()
	enable := slices.Clone(enabled)
	if kill {
		enable = append(enable, decisions.KindEngageKill)
	}
	px := px4sim.New(px4sim.Options{Script: []px4sim.Behaviour{px4sim.Accept}, ByKind: byKind})
	opts := session.SessionOptions{Loop: engine.LoopOptions{Policy: p}, Enable: enable, TargetVehicle: 1}
	live := opts
	live.Executors = []session.Executor{executor.NewPX4(executor.PX4Options{Transport: px})}
	data, _, err := replayBytes(t, simSource(t, 60*time.Second, 20), ReplayOptions{Session: live})
	if err != nil {
		t.Fatal(err)
	}
	opts.Executors = []session.Executor{executor.NewPX4(executor.PX4Options{})}
	return data, opts
}

// decidedReasons counts the recorded decisions by kind/reason.
func decidedReasons(t *testing.T, data []byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range recordedDecisions(t, data) {
		out[r.Decision.Kind.String()+"/"+r.Decision.Reason]++
	}
	return out
}

// dropEvidence copies a recording without the evidence messages holding an
// acknowledgement drop selects.
func dropEvidence(t *testing.T, data []byte, drop func(e engine.Evidence) bool) ([]byte, int) {
	t.Helper()
	n := 0
	out := rewriteMessages(t, data, func(m *bag.Message) bool {
		if m.Topic != "/decisions/evidence" {
			return true
		}
		var w ros2msg.ActionEvidence
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		for _, e := range session.EvidenceFromWire(w.Items) {
			if e.Kind == engine.EvidenceAck && drop(e) {
				n++
				return false
			}
		}
		return true
	})
	return out, n
}

// TestEscalationPaths runs every escalation of the shipped escalating
// policy in the simulator: each reaches its decision, the recording
// verifies, and the tampering families still fail verify: a receipt whose
// outcome is changed, and the acknowledgement the escalation rests on
// dropped from the evidence.
func TestEscalationPaths(t *testing.T) {
	policy, err := rules.ParseFile(escalatingPolicy)
	if err != nil {
		t.Fatal(err)
	}
	hold, land, yield := decisions.KindHold, decisions.KindEngageLand, decisions.KindYieldToPilot
	tests := []struct {
		name   string
		byKind []px4sim.KindBehaviour
		kill   bool
		want   []string
		// cause selects the acknowledgement the escalation rests on.
		cause func(e engine.Evidence) bool
	}{
		{"hold not reached: land", []px4sim.KindBehaviour{{Kind: hold, Behaviour: px4sim.NeverReach}}, false,
			[]string{"engage_land/hold_not_reached"}, ackOf(px4.CmdDoSetMode, decisions.AckAccepted)},
		{"hold refused: land", []px4sim.KindBehaviour{{Kind: hold, Behaviour: px4sim.Deny}}, false,
			[]string{"engage_land/hold_failed"}, ackOf(px4.CmdDoSetMode, decisions.AckDenied)},
		{"land denied: return", []px4sim.KindBehaviour{{Kind: land, Behaviour: px4sim.Deny}}, false,
			[]string{"engage_rtl/land_failed"}, ackOf(px4.CmdNavLand, decisions.AckDenied)},
		{"land denied, kill enabled: kill", []px4sim.KindBehaviour{{Kind: land, Behaviour: px4sim.Deny}}, true,
			[]string{"engage_kill/land_failed"}, ackOf(px4.CmdNavLand, decisions.AckDenied)},
		{"land not reached: return", []px4sim.KindBehaviour{{Kind: hold, Behaviour: px4sim.NeverReach}, {Kind: land, Behaviour: px4sim.NeverReach}}, false,
			[]string{"engage_land/hold_not_reached", "engage_rtl/land_failed"}, ackOf(px4.CmdNavLand, decisions.AckAccepted)},
		{"land not reached, kill enabled: kill", []px4sim.KindBehaviour{{Kind: hold, Behaviour: px4sim.NeverReach}, {Kind: land, Behaviour: px4sim.NeverReach}}, true,
			[]string{"engage_land/hold_not_reached", "engage_kill/land_failed"}, ackOf(px4.CmdNavLand, decisions.AckAccepted)},
		{"no pilot sticks: return", []px4sim.KindBehaviour{{Kind: yield, Behaviour: px4sim.Reject}}, false,
			[]string{"engage_rtl/pilot_unavailable"}, ackOf(px4.CmdDoSetMode, decisions.AckTemporarilyRejected)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, opts := escalationFlight(t, policy, tc.byKind, tc.kill)
			got := decidedReasons(t, data)
			for _, w := range tc.want {
				if got[w] == 0 {
					t.Fatalf("the flight never decides %s: %v", w, got)
				}
			}
			verify := func(data []byte) *AuditReport {
				t.Helper()
				r, err := Verify(openBytes(t, data), VerifyOptions{Policies: []decisions.Policy{policy}, Session: opts})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			if r := verify(data); !r.Passed() {
				t.Fatalf("the escalation does not verify: %v %v", r.Reasons, r.Problems)
			}
			// A receipt's outcome changed: the first failure or acceptance
			// reads reached.
			done := false
			forged := rewrite(t, data, func(_ int, rc *session.ActionReceipt) bool {
				if !done && (rc.Event == session.ReceiptFailed && rc.Failure >= engine.FailTransport || rc.Event == session.ReceiptAccepted) {
					done = true
					rc.Event, rc.Failure = session.ReceiptReached, engine.FailNone
				}
				return true
			})
			if r := verify(forged); !done || r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
				t.Fatalf("a changed outcome verified (%t): %v", done, r.Reasons)
			}
			// The acknowledgement the escalation rests on dropped.
			dropped, n := dropEvidence(t, data, tc.cause)
			if n == 0 {
				t.Fatal("no acknowledgement to drop")
			}
			if r := verify(dropped); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
				t.Fatalf("a dropped acknowledgement verified: %v", r.Reasons)
			}
		})
	}
}

// ackOf selects the acknowledgements of command cmd with result.
func ackOf(cmd uint32, result decisions.AckResult) func(e engine.Evidence) bool {
	return func(e engine.Evidence) bool { return e.Command == cmd && e.Result == result }
}

// TestEscalatingPolicyAdvisory: without executors the escalating policy
// sees no command, so it decides as px4_failsafe_like wherever its own
// perception rule does not fire, and verifies.
func TestEscalatingPolicyAdvisory(t *testing.T) {
	esc, err := rules.ParseFile(escalatingPolicy)
	if err != nil {
		t.Fatal(err)
	}
	like, err := rules.ParseFile("../../config/policies/px4_failsafe_like.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(p decisions.Policy) []decisions.Rationale {
		data, _, err := replayBytes(t, simSource(t, 60*time.Second, 20), ReplayOptions{Session: session.SessionOptions{Loop: engine.LoopOptions{Policy: p}}})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := Verify(openBytes(t, data), VerifyOptions{Policies: []decisions.Policy{p}}); err != nil || !r.Passed() {
			t.Fatalf("advisory flight does not verify: %v %v", err, r.Reasons)
		}
		return recordedDecisions(t, data)
	}
	a, b := run(esc), run(like)
	if len(a) != len(b) {
		t.Fatalf("%d and %d decisions", len(a), len(b))
	}
	same := 0
	for i := range a {
		switch {
		case a[i].Decision == b[i].Decision:
			same++
		case a[i].Decision.Reason != "perception_lost":
			t.Errorf("stamp %d: escalating decides %s/%s, px4_failsafe_like %s/%s", a[i].BeliefStampSimNs,
				a[i].Decision.Kind, a[i].Decision.Reason, b[i].Decision.Kind, b[i].Decision.Reason)
		}
	}
	if same == len(a) {
		t.Fatal("the perception rule never fired: the comparison shows nothing")
	}
}
