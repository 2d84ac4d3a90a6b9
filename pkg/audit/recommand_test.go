package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
)

// rtlWhileUncertain decides engage_rtl while the belief is uncertain or
// worse, and never escalates: the vehicle's refusals leave the decision
// as it is, so only re-commands act on it.
const rtlWhileUncertain = `name: rtl_while_uncertain
version: 1
default: {action: proceed, reason: nominal}
rules:
  - name: uncertain
    when: {effective_level: {at_least: uncertain}}
    action: engage_rtl
    reason: belief_uncertain
`

// recommandFlight simulates a minute of flight decided by
// rtlWhileUncertain on a simulated PX4 that denies every return, with
// actions a's re-command settings; it returns the recording and the
// options that re-check it.
func recommandFlight(t *testing.T, a engine.ActionOptions) ([]byte, VerifyOptions) {
	t.Helper()
	p, err := rules.Parse("rtl_while_uncertain.yaml", []byte(rtlWhileUncertain))
	if err != nil {
		t.Fatal(err)
	}
	px := px4sim.New(px4sim.Options{Script: []px4sim.Behaviour{px4sim.Accept},
		ByKind: []px4sim.KindBehaviour{{Kind: decisions.KindEngageRTL, Behaviour: px4sim.Deny}}})
	opts := session.SessionOptions{Loop: engine.LoopOptions{Policy: p, Actions: a}, Enable: enabled, TargetVehicle: 1}
	live := opts
	live.Executors = []session.Executor{executor.NewPX4(executor.PX4Options{Transport: px})}
	data, _, err := replayBytes(t, simSource(t, 60*time.Second, 20), ReplayOptions{Session: live})
	if err != nil {
		t.Fatal(err)
	}
	opts.Executors = []session.Executor{executor.NewPX4(executor.PX4Options{})}
	return data, VerifyOptions{Policies: []decisions.Policy{p}, Session: opts}
}

// TestVerifyRederivesRecommands: the returns the vehicle denies are
// commanded again while the policy still decides them, verify derives
// every re-command from the recording, and a recording whose re-commands
// differ (one dropped, one moved, one more, or checked with re-commanding
// off) fails as action_diverged.
func TestVerifyRederivesRecommands(t *testing.T) {
	data, vopts := recommandFlight(t, engine.ActionOptions{RecommandInterval: 2 * time.Second})
	var recommands []int
	said := false
	rewrite(t, data, func(i int, rc *session.ActionReceipt) bool {
		if rc.Event == session.ReceiptSent && strings.HasPrefix(rc.Detail, "re-command ") {
			recommands = append(recommands, i)
		}
		said = said || rc.Event == session.ReceiptFailed && strings.Contains(rc.Detail, "; re-command ")
		return true
	})
	if len(recommands) < 2 || !said {
		t.Fatalf("the flight has %d re-commands (want 2 or more) and a failure that says when the next is due: %t", len(recommands), said)
	}
	verify := func(data []byte, o VerifyOptions) *AuditReport {
		t.Helper()
		r, err := Verify(openBytes(t, data), o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := verify(data, vopts); !r.Passed() {
		t.Fatalf("the recording with re-commands does not verify: %v %v", r.Reasons, r.Problems)
	}
	first := recommands[0]
	tampered := map[string][]byte{
		"a re-command dropped": rewrite(t, data, func(i int, _ *session.ActionReceipt) bool { return i != first }),
		"a re-command moved": rewrite(t, data, func(i int, rc *session.ActionReceipt) bool {
			if i == first {
				rc.TimeNs += int64(time.Second)
			}
			return true
		}),
		"a re-command's detail changed": rewrite(t, data, func(i int, rc *session.ActionReceipt) bool {
			if i == first {
				rc.Detail = strings.Replace(rc.Detail, "re-command 1", "re-command 2", 1)
			}
			return true
		}),
	}
	for name, d := range tampered {
		if r := verify(d, vopts); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
			t.Errorf("%s: verifies (%v)", name, r.Reasons)
		}
	}
	off := vopts
	off.Session.Loop.Actions.RecommandInterval = -1
	if r := verify(data, off); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
		t.Errorf("checked with re-commanding off: verifies (%v)", r.Reasons)
	}
	// Without re-commands the recording shows none, says why, and verifies.
	data, vopts = recommandFlight(t, engine.ActionOptions{RecommandInterval: -1})
	n, why := 0, false
	rewrite(t, data, func(i int, rc *session.ActionReceipt) bool {
		if rc.Event == session.ReceiptSent && strings.HasPrefix(rc.Detail, "re-command ") {
			n++
		}
		why = why || strings.Contains(rc.Detail, "not re-commanded: re-commanding is off")
		return true
	})
	if n != 0 || !why {
		t.Errorf("re-commanding off: %d re-commands, the failure says why: %t", n, why)
	}
	if r := verify(data, vopts); !r.Passed() {
		t.Errorf("re-commanding off: does not verify: %v", r.Reasons)
	}
}
