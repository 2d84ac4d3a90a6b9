package node

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// setParameter calls the node's set_parameters service and returns the
// event it published.
func (h *harness) setParameter(p ros2msg.Parameter) (ros2msg.SetParametersResult, []byte) {
	h.t.Helper()
	topic := h.cfg.Topics[session.KeyParameterEvents]
	before := len(h.ft.Published(topic))
	req, err := (&ros2msg.SetParametersRequest{Parameters: []ros2msg.Parameter{p}}).MarshalCDR()
	if err != nil {
		h.t.Fatal(err)
	}
	data, err := h.ft.Call(h.ctx, "~/set_parameters", req)
	if err != nil {
		h.t.Fatal(err)
	}
	var resp ros2msg.SetParametersResponse
	if err := resp.UnmarshalCDR(data); err != nil || len(resp.Results) != 1 {
		h.t.Fatalf("set_parameters answered %x: %v", data, err)
	}
	var ev []byte
	if pub := h.ft.Published(topic); len(pub) > before {
		ev = pub[before]
	}
	return resp.Results[0], ev
}

// TestRunParameterChangeIsARecordedInput: `ros2 param set` on the
// assessment timeout takes effect when the node's own ParameterEvent comes
// back on /parameter_events; the recording holds it among the inputs, and
// verify re-decides the recording identically only with it.
func TestRunParameterChangeIsARecordedInput(t *testing.T) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	h := startNode(t, cfg)
	h.sync(base) // the node is up
	for _, s := range []string{"~/list_parameters", "~/get_parameters", "~/get_parameter_types",
		"~/set_parameters", "~/set_parameters_atomically", "~/describe_parameters"} {
		if _, ok := h.ft.Service(s); !ok {
			t.Errorf("%s is not served", s)
		}
	}

	first := testBelief(4_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, first), base)
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, first.StampSimNs, 0.1)), base)
	b := testBelief(5_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base)

	// Refused: read-only, with the reason; nothing is published.
	res, ev := h.setParameter(ros2msg.Parameter{Name: "max_pending_beliefs", Value: ros2msg.ParameterValue{Type: engine.ParameterInteger, IntegerValue: 3}})
	if res.Successful || !strings.Contains(res.Reason, "read-only") || ev != nil {
		t.Fatalf("read-only set: %+v, event %x", res, ev)
	}
	res, ev = h.setParameter(ros2msg.Parameter{Name: engine.ParameterAssessmentTimeout, Value: ros2msg.ParameterValue{Type: engine.ParameterDouble, DoubleValue: 0.05}})
	if !res.Successful || ev == nil {
		t.Fatalf("set: %+v, event %x", res, ev)
	}
	// Accepted but not in force until the event comes back: a tick past
	// the new timeout decides nothing.
	h.tickAt(base.Add(ms(55)))
	h.sync(base.Add(ms(55)))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions before the event came back, want 1", n)
	}
	h.deliver(cfg.Topics[session.KeyParameterEvents], ev, base.Add(ms(60)))
	h.sync(base.Add(ms(60)))
	got := h.decisionsOut()
	if len(got) != 2 || got[1] != expected(t, b, nil, nil) {
		t.Fatalf("after the event: %+v", got)
	}
	// b's assessment comes within the old timeout, too late for the new.
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), base.Add(ms(70)))
	h.clock.set(base.Add(ms(80)))
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(h.logs.Bytes(), []byte("assessment_timeout_s=0.05")) {
		t.Errorf("the change was not logged:\n%s", h.logs.Bytes())
	}

	msgs := readAll(t, cfg.Recording.Path)
	var events int
	for _, m := range msgs {
		if m.Topic == "/parameter_events" {
			events++
			if m.SchemaName != "rcl_interfaces/msg/ParameterEvent" || m.LogTime != uint64(base.Add(ms(60)).UnixNano()) {
				t.Errorf("recorded event %s at %d", m.SchemaName, m.LogTime)
			}
		}
	}
	if events != 1 {
		t.Fatalf("%d parameter events recorded, want 1", events)
	}
	sopts, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	verify := func(msgs []bag.Message) *audit.AuditReport {
		r, err := audit.Verify(&listSource{msgs: msgs}, audit.VerifyOptions{Session: session.SessionOptions{Inputs: sopts.Inputs, Loop: sopts.Loop}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := verify(msgs); !r.Passed() || r.Decisions != 2 {
		t.Errorf("verify: %s %v %+v", r.Verdict, r.Reasons, r.Problems)
	}
	// Without the event the recording does not verify: the second
	// belief would have waited for its assessment.
	var without []bag.Message
	for _, m := range msgs {
		if m.Topic != "/parameter_events" {
			without = append(without, m)
		}
	}
	if r := verify(without); r.Passed() {
		t.Error("the recording verifies without its parameter event")
	}
}

// TestRunLogLevelParameter: log_level changes what is logged once its
// event comes back.
func TestRunLogLevelParameter(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)
	h.sync(base)
	res, ev := h.setParameter(ros2msg.Parameter{Name: "log_level", Value: ros2msg.ParameterValue{Type: engine.ParameterString, StringValue: "error"}})
	if !res.Successful {
		t.Fatalf("set: %+v", res)
	}
	h.deliver(cfg.Topics[session.KeyParameterEvents], ev, base)
	h.sync(base)
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(h.logs.Bytes(), []byte("log_level=")) {
		t.Errorf("the change was not logged")
	}
}

type listSource struct{ msgs []bag.Message }

func (s *listSource) Next() (bag.Message, error) {
	if len(s.msgs) == 0 {
		return bag.Message{}, io.EOF
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func readAll(t *testing.T, path string) []bag.Message {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []bag.Message
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		m.Data = append([]byte(nil), m.Data...)
		out = append(out, m)
	}
	return out
}
