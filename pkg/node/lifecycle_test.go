package node

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/ros2/lifecycle"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// transition calls change_state by label and delivers the events the node
// published back on its transition events input, as DDS would.
func (h *harness) transition(label string, at int) bool {
	h.t.Helper()
	topic := h.cfg.Topics[session.KeyTransitionEvent]
	before := len(h.ft.Published(topic))
	req, err := (&ros2msg.LifecycleChangeStateRequest{Transition: ros2msg.LifecycleTransition{Label: label}}).MarshalCDR()
	if err != nil {
		h.t.Fatal(err)
	}
	data, err := h.ft.Call(h.ctx, "~/change_state", req)
	if err != nil {
		h.t.Fatal(err)
	}
	var resp ros2msg.LifecycleChangeStateResponse
	if err := resp.UnmarshalCDR(data); err != nil {
		h.t.Fatal(err)
	}
	for _, ev := range h.ft.Published(topic)[before:] {
		h.deliver(topic, ev, base.Add(ms(at)))
	}
	return resp.Success
}

func (h *harness) state() uint8 {
	h.t.Helper()
	data, err := h.ft.Call(h.ctx, "~/get_state", nil)
	if err != nil {
		h.t.Fatal(err)
	}
	var resp ros2msg.LifecycleGetStateResponse
	if err := resp.UnmarshalCDR(data); err != nil {
		h.t.Fatal(err)
	}
	return resp.CurrentState.ID
}

// TestRunLifecycle: with lifecycle true the node decides only while
// active; inputs before activation and after deactivation are counted.
func TestRunLifecycle(t *testing.T) {
	cfg := testConfig()
	cfg.Lifecycle = true
	h := startNode(t, cfg)
	h.sync(base)
	if s := h.state(); s != lifecycle.StateUnconfigured {
		t.Fatalf("starts %s", lifecycle.Label(s))
	}
	decide := func(stamp int64, at int) {
		b := testBelief(stamp)
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base.Add(ms(at)))
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, stamp, 0.1)), base.Add(ms(at)))
	}
	decide(1_000_000, 1)
	if h.transition("activate", 2) {
		t.Fatal("activate from unconfigured succeeded")
	}
	if !h.transition("configure", 3) || h.state() != lifecycle.StateInactive {
		t.Fatal("configure failed")
	}
	decide(2_000_000, 4)
	h.sync(base.Add(ms(4)))
	if n := len(h.decisionsOut()); n != 0 {
		t.Fatalf("%d decisions while not active", n)
	}
	if !h.transition("activate", 5) || h.state() != lifecycle.StateActive {
		t.Fatal("activate failed")
	}
	decide(3_000_000, 6)
	h.sync(base.Add(ms(6)))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions while active, want 1", n)
	}
	if !h.transition("deactivate", 7) {
		t.Fatal("deactivate failed")
	}
	decide(4_000_000, 8)
	d := h.sync(base.Add(ms(8)))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions after deactivate, want 1", n)
	}
	if value(t, d, "lifecycle") != "inactive" || count(t, d, "ignored_inactive") != 6 {
		t.Errorf("diagnostics: lifecycle %s, ignored_inactive %s; want inactive, 6",
			value(t, d, "lifecycle"), value(t, d, "ignored_inactive"))
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}

// TestRunUnmanagedServesNoLifecycle: the default node starts active and
// has no lifecycle services.
func TestRunUnmanagedServesNoLifecycle(t *testing.T) {
	h := startNode(t, testConfig())
	h.sync(base)
	if _, ok := h.ft.Service("~/change_state"); ok {
		t.Error("lifecycle served without the lifecycle parameter")
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}
