package session

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// scriptPolicy decides the kind its table gives for a stamp in ms (proceed
// otherwise).
type scriptPolicy struct{ kinds map[int64]decisions.Kind }

func (scriptPolicy) ID() string { return "script" }

func (p scriptPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	return decisions.Decision{Kind: p.kinds[c.BeliefStampSimNs/ms], DecisionStampSimNs: c.BeliefStampSimNs,
		Reason: "scripted", SchemaVersion: decisions.SchemaVersion}, nil
}

// fakeExec is the fake transport: it records what it was asked to send
// and delivers the evidence a test queues, at the times the test says.
type fakeExec struct {
	id      string
	kinds   []decisions.Kind
	sent    []ActionRequest
	queued  []engine.EvidenceEvent
	done    []uint64
	sendErr error
}

func (f *fakeExec) ID() string              { return f.id }
func (f *fakeExec) Kinds() []decisions.Kind { return f.kinds }
func (f *fakeExec) Command(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error) {
	switch k {
	case decisions.KindHold:
		return engine.VehicleCommand{ID: 176, Params: [7]float64{1, 4, 3}}, engine.Expectation{Mode: 4, HasMode: true}, nil
	case decisions.KindEngageRTL:
		return engine.VehicleCommand{ID: 20}, engine.Expectation{Mode: 5, HasMode: true}, nil
	case decisions.KindEngageLand:
		return engine.VehicleCommand{ID: 21, Params: [7]float64{3: math.NaN(), 4: math.NaN(), 5: math.NaN(), 6: math.NaN()}}, engine.Expectation{Mode: 18, HasMode: true}, nil
	case decisions.KindEngageKill:
		return engine.VehicleCommand{ID: 400, Params: [7]float64{0, 21196}}, engine.Expectation{Disarmed: true}, nil
	}
	return engine.VehicleCommand{}, engine.Expectation{}, fmt.Errorf("no mapping for %s", k)
}
func (f *fakeExec) Send(r ActionRequest) error { f.sent = append(f.sent, r); return f.sendErr }
func (f *fakeExec) Conclude(id uint64)         { f.done = append(f.done, id) }
func (f *fakeExec) Poll(upTo int64) []engine.EvidenceEvent {
	var out []engine.EvidenceEvent
	for len(f.queued) > 0 && f.queued[0].ArrivalNs <= upTo {
		out = append(out, f.queued[0])
		f.queued = f.queued[1:]
	}
	return out
}

const vehicle = 1

func ack(id uint64, cmd uint32, result decisions.AckResult) engine.Evidence {
	return engine.Evidence{Kind: engine.EvidenceAck, ActionID: id, Executor: "fake", Vehicle: vehicle, Command: cmd, Result: result}
}

func state(id uint64, mode uint8, armed bool) engine.Evidence {
	return engine.Evidence{Kind: engine.EvidenceState, ActionID: id, Executor: "fake", Vehicle: vehicle, Mode: mode, Armed: armed}
}

// harness is a session with the fake executor, fed one belief (with its
// assessment) every 100 ms.
type harness struct {
	t    *testing.T
	s    *Session
	ex   *fakeExec
	sink *memoryActionSink
	recs *memorySink
	now  int64
}

func newHarness(t *testing.T, kinds map[int64]decisions.Kind, enable ...decisions.Kind) *harness {
	t.Helper()
	return newHarnessWith(t, scriptPolicy{kinds}, enable...)
}

// newHarnessWith is newHarness deciding with p.
func newHarnessWith(t *testing.T, p decisions.Policy, enable ...decisions.Kind) *harness {
	t.Helper()
	ex := &fakeExec{id: "fake", kinds: []decisions.Kind{decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill}}
	s, err := NewSession(SessionOptions{
		Loop:      engine.LoopOptions{Policy: p, Actions: engine.ActionOptions{AckTimeout: 300 * time.Millisecond, MaxRetries: 2, ReachTimeout: time.Second}},
		Executors: []Executor{ex}, Enable: enable, TargetVehicle: vehicle,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, ex: ex, sink: &memoryActionSink{}, recs: &memorySink{}}
	if err := s.Runner().RegisterActionSink("memory", h.sink); err != nil {
		t.Fatal(err)
	}
	if err := s.Runner().Register("memory", h.recs); err != nil {
		t.Fatal(err)
	}
	return h
}

// belief feeds the belief of stamp (ms) with its assessment at that time,
// evidence due by then first.
func (h *harness) belief(stampMs int64, flight ...decisions.FlightStatus) {
	h.t.Helper()
	h.advance(stampMs * ms)
	h.beliefNow(stampMs, flight...)
}

// beliefNow feeds the belief without a tick before it: deadlines due by
// then fall in the belief's own step.
func (h *harness) beliefNow(stampMs int64, flight ...decisions.FlightStatus) {
	h.t.Helper()
	h.now = stampMs * ms
	b := belief(stampMs * ms)
	if len(flight) > 0 {
		b.Flight = flight[0]
	}
	// The assessment first: the belief's own step decides it.
	for _, ev := range []engine.Event{aEv(h.t, h.now, stampMs*ms, decisions.LevelKnown), engine.BeliefEvent{ArrivalNs: h.now, Belief: b}} {
		if err := h.s.Step(ev); err != nil {
			h.t.Fatal(err)
		}
	}
}

// advance delivers the evidence due by t and lets time pass to t.
func (h *harness) advance(t int64) {
	h.t.Helper()
	if err := h.s.Pump(t, nil); err != nil {
		h.t.Fatal(err)
	}
	h.now = t
	if err := h.s.Tick(t); err != nil {
		h.t.Fatal(err)
	}
}

// queue makes the fake transport deliver items at atMs.
func (h *harness) queue(atMs int64, items ...engine.Evidence) {
	h.ex.queued = append(h.ex.queued, engine.EvidenceEvent{ArrivalNs: atMs * ms, Items: items})
}

// trail is the receipts as "<id> <event>[/<failure>]".
func (h *harness) trail() []string {
	var out []string
	for _, rc := range h.sink.Receipts() {
		s := fmt.Sprintf("%d %s", rc.ActionID, rc.Event)
		if rc.Failure != engine.FailNone {
			s += "/" + rc.Failure.String()
		}
		out = append(out, s)
	}
	return out
}

func (h *harness) want(want ...string) {
	h.t.Helper()
	if got := h.trail(); !reflect.DeepEqual(got, want) {
		h.t.Fatalf("trail\n got %q\nwant %q\nreceipts:\n%s", got, want, h.dump())
	}
}

func (h *harness) dump() string {
	var b strings.Builder
	for _, rc := range h.sink.Receipts() {
		fmt.Fprintf(&b, "  %d %s\n", rc.TimeNs/ms, rc)
	}
	return b.String()
}

// hold decides hold from 100 ms to 1500 ms.
var hold = func() map[int64]decisions.Kind {
	m := map[int64]decisions.Kind{}
	for s := int64(100); s <= 1500; s += 100 {
		m[s] = decisions.KindHold
	}
	return m
}()

func TestActionOutcomes(t *testing.T) {
	tests := []struct {
		name  string
		kinds map[int64]decisions.Kind
		// script queues evidence on h before the flight
		script func(h *harness)
		want   []string
		sends  int
	}{
		{"accepted then reached", hold, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckAccepted))
			h.queue(250, state(1, 4, true))
		}, []string{"1 sent", "1 evidence_accepted", "1 accepted", "1 evidence_accepted", "1 reached"}, 1},
		{"state before the ack counts on acceptance", hold, func(h *harness) {
			h.queue(150, state(1, 4, true))
			h.queue(160, ack(1, 176, decisions.AckInProgress))
		}, []string{"1 sent", "1 evidence_accepted", "1 evidence_accepted", "1 accepted", "1 reached"}, 1},
		{"denied", hold, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckDenied))
		}, []string{"1 sent", "1 evidence_accepted", "1 failed/executor"}, 1},
		{"unsupported", hold, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckUnsupported))
		}, []string{"1 sent", "1 evidence_accepted", "1 failed/executor"}, 1},
		{"dropped: retries then transport", hold, func(*harness) {},
			[]string{"1 sent", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"late ack after a retry is accepted", hold, func(h *harness) {
			h.queue(450, ack(1, 176, decisions.AckAccepted))
			h.queue(460, state(1, 4, true))
		}, []string{"1 sent", "1 retried", "1 evidence_accepted", "1 accepted", "1 evidence_accepted", "1 reached"}, 2},
		{"ack after the action failed is rejected", hold, func(h *harness) {
			h.queue(1300, ack(1, 176, decisions.AckAccepted))
		}, []string{"1 sent", "1 retried", "1 retried", "1 failed/transport", "0 evidence_rejected"}, 3},
		{"accepted but the mode never comes", hold, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckAccepted))
			h.queue(250, state(1, 2, true))
		}, []string{"1 sent", "1 evidence_accepted", "1 accepted", "1 evidence_accepted", "1 failed/executor"}, 1},
		{"ack from another vehicle is rejected", hold, func(h *harness) {
			e := ack(1, 176, decisions.AckAccepted)
			e.Vehicle = 2
			h.queue(150, e)
		}, []string{"1 sent", "1 evidence_rejected", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"ack of another command is rejected", hold, func(h *harness) {
			h.queue(150, ack(1, 20, decisions.AckAccepted))
		}, []string{"1 sent", "1 evidence_rejected", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"evidence from another executor is rejected", hold, func(h *harness) {
			e := ack(1, 176, decisions.AckAccepted)
			e.Executor = "other"
			h.queue(150, e)
		}, []string{"1 sent", "1 evidence_rejected", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"evidence for another action is rejected", hold, func(h *harness) {
			h.queue(150, ack(7, 176, decisions.AckAccepted))
		}, []string{"1 sent", "1 evidence_rejected", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"a batch with one bad item is rejected whole", hold, func(h *harness) {
			bad := state(1, 4, true)
			bad.Vehicle = 9
			h.queue(150, ack(1, 176, decisions.AckAccepted), bad)
		}, []string{"1 sent", "1 evidence_rejected", "1 retried", "1 retried", "1 failed/transport"}, 3},
		{"duplicate acks are idempotent", hold, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckAccepted))
			h.queue(160, ack(1, 176, decisions.AckAccepted))
			h.queue(170, ack(1, 176, decisions.AckAccepted), ack(1, 176, decisions.AckAccepted))
			h.queue(250, state(1, 4, true))
		}, []string{"1 sent", "1 evidence_accepted", "1 accepted", "1 evidence_accepted", "1 reached"}, 1},
		{"superseded while outstanding", map[int64]decisions.Kind{100: decisions.KindHold, 200: decisions.KindEngageRTL, 300: decisions.KindEngageRTL}, func(h *harness) {
			h.queue(250, ack(1, 176, decisions.AckAccepted)) // late, for the superseded hold
			h.queue(260, ack(2, 20, decisions.AckAccepted))
			h.queue(270, state(2, 5, true))
		}, []string{"1 sent", "1 superseded", "2 sent", "2 evidence_rejected", "2 evidence_accepted", "2 accepted", "2 evidence_accepted", "2 reached"}, 2},
		{"not enabled: blocked by policy", map[int64]decisions.Kind{100: decisions.KindEngageKill}, func(*harness) {},
			[]string{"1 failed/blocked_by_policy"}, 0},
		{"proceed is advisory", map[int64]decisions.Kind{100: decisions.KindProceed, 200: decisions.KindAbstainUncertain}, func(*harness) {},
			nil, 0},
		{"a repeated kind starts nothing", map[int64]decisions.Kind{100: decisions.KindHold, 200: decisions.KindHold, 300: decisions.KindProceed, 400: decisions.KindHold}, func(h *harness) {
			h.queue(150, ack(1, 176, decisions.AckDenied))
			h.queue(450, ack(2, 176, decisions.AckAccepted), state(2, 4, true))
		}, []string{"1 sent", "1 evidence_accepted", "1 failed/executor", "2 sent", "2 evidence_accepted", "2 accepted", "2 reached"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.kinds, decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand)
			tc.script(h)
			for s := int64(100); s <= 1500; s += 100 {
				h.belief(s)
			}
			// A rejected batch's receipt names the outstanding action ("0":
			// none); the batch itself is on the receipt.
			h.want(tc.want...)
			if len(h.ex.sent) != tc.sends {
				t.Errorf("%d sends, want %d: %+v", len(h.ex.sent), tc.sends, h.ex.sent)
			}
		})
	}
}

func TestActionNotApplicable(t *testing.T) {
	kinds := map[int64]decisions.Kind{100: decisions.KindEngageLand, 200: decisions.KindEngageRTL, 300: decisions.KindHold}
	h := newHarness(t, kinds, decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand)
	h.belief(100, decisions.FlightStatus{Armed: false, Mode: decisions.FlightModeOffboard, BatteryPct: 0.5, BatteryV: math.NaN()})
	h.belief(200, decisions.FlightStatus{Armed: true, Mode: decisions.FlightModeRTL, BatteryPct: 0.5, BatteryV: math.NaN()})
	h.want("1 failed/not_applicable", "2 failed/not_applicable")
	if len(h.ex.sent) != 0 {
		t.Fatalf("sent %+v", h.ex.sent)
	}
	rc := h.sink.Receipts()[0]
	if rc.Command.ID != 21 || rc.Executor != "fake" || !strings.Contains(rc.Detail, "disarmed") {
		t.Fatalf("a failure carries the request, the executor and a diagnostic: %+v", rc)
	}
}

func TestActionRequestsCarryTheMapping(t *testing.T) {
	h := newHarness(t, hold, decisions.KindHold)
	h.belief(100)
	h.belief(500)
	if len(h.ex.sent) != 2 {
		t.Fatalf("sent %+v", h.ex.sent)
	}
	want := ActionRequest{ActionID: 1, Attempt: 1, Stamp: 100 * ms, Kind: decisions.KindHold, Vehicle: vehicle,
		Command: engine.VehicleCommand{ID: 176, Params: [7]float64{1, 4, 3}}, TimeNs: 100 * ms}
	if h.ex.sent[0] != want {
		t.Fatalf("request %+v, want %+v", h.ex.sent[0], want)
	}
	if r := h.ex.sent[1]; r.Attempt != 2 || r.TimeNs != 500*ms || r.Command != want.Command {
		t.Fatalf("retry %+v", r)
	}
}

func TestSendErrorIsRecordedNotRetriedByTheRunner(t *testing.T) {
	h := newHarness(t, hold, decisions.KindHold)
	h.ex.sendErr = errors.New("link down")
	h.belief(100)
	h.belief(200)
	rc := h.sink.Receipts()
	if len(rc) != 1 || !strings.Contains(rc[0].Detail, "send failed: link down") || len(h.ex.sent) != 1 {
		t.Fatalf("receipts %v, sends %d", rc, len(h.ex.sent))
	}
	if c := h.s.Runner().Counters(); c.Actions.SendErrors != 1 || c.Actions.Sent != 1 {
		t.Fatalf("counters %+v", c.Actions)
	}
}

// TestStaleCommandRefused: a retry the deadline asks for in the step whose
// decision supersedes the action reaches no executor.
func TestStaleCommandRefused(t *testing.T) {
	kinds := map[int64]decisions.Kind{100: decisions.KindHold, 400: decisions.KindEngageRTL}
	h := newHarness(t, kinds, decisions.KindHold, decisions.KindEngageRTL)
	h.belief(100)
	// The assessment of 400 comes just before the deadline, the belief at
	// it: its step holds both the hold's retry (300 ms without an ack) and
	// the rtl decision that supersedes the hold.
	if err := h.s.Step(aEv(t, 399*ms, 400*ms, decisions.LevelKnown)); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Step(engine.BeliefEvent{ArrivalNs: 400 * ms, Belief: belief(400 * ms)}); err != nil {
		t.Fatal(err)
	}
	h.want("1 sent", "1 refused", "1 superseded", "2 sent")
	if len(h.ex.sent) != 2 || h.ex.sent[1].ActionID != 2 {
		t.Fatalf("sent %+v", h.ex.sent)
	}
	if c := h.s.Runner().Counters(); c.Actions.Refused != 1 {
		t.Fatalf("counters %+v", c.Actions)
	}
	if !reflect.DeepEqual(h.ex.done, []uint64{1}) {
		t.Fatalf("concluded %v", h.ex.done)
	}
}

// TestRunnerRefusesUntraceableCommands hands the Runner commands no Loop
// emitted: none reaches the executor.
func TestRunnerRefusesUntraceableCommands(t *testing.T) {
	ex := &fakeExec{id: "fake", kinds: []decisions.Kind{decisions.KindHold}}
	r := NewRunner(RunnerOptions{TargetVehicle: vehicle})
	if err := r.RegisterExecutor(ex); err != nil {
		t.Fatal(err)
	}
	sink := &memoryActionSink{}
	if err := r.RegisterActionSink("m", sink); err != nil {
		t.Fatal(err)
	}
	for _, out := range []engine.Output{
		{Actions: []engine.ActionCommand{{Op: engine.ActionExecute, ID: 1, Stamp: 5, Kind: decisions.KindHold, Executor: "fake", Attempt: 1}}, ActiveAction: 1},
		{Actions: []engine.ActionCommand{{Op: engine.ActionRetry, ID: 1, Stamp: 5, Kind: decisions.KindHold, Executor: "fake", Attempt: 2}}, ActiveAction: 1},
		{Actions: []engine.ActionCommand{{Op: engine.ActionExecute, ID: 1, Stamp: 5, Kind: decisions.KindEngageRTL, Executor: "fake", Attempt: 1}}, ActiveAction: 1},
		{Actions: []engine.ActionCommand{{Op: engine.ActionExecute, ID: 1, Stamp: 5, Kind: decisions.KindHold, Executor: "nobody", Attempt: 1}}, ActiveAction: 1},
	} {
		if err := r.Handle(&out); err != nil {
			t.Fatal(err)
		}
	}
	if len(ex.sent) != 0 {
		t.Fatalf("sent %+v", ex.sent)
	}
	for _, rc := range sink.Receipts() {
		if rc.Event != ReceiptRefused {
			t.Errorf("receipt %s", rc)
		}
	}
	if n := len(sink.Receipts()); n != 4 {
		t.Fatalf("%d receipts", n)
	}
}

func TestRegistry(t *testing.T) {
	hold := []decisions.Kind{decisions.KindHold}
	tests := []struct {
		name   string
		execs  []Executor
		enable []decisions.Kind
		want   string
	}{
		{"duplicate id", []Executor{&fakeExec{id: "a", kinds: hold}, &fakeExec{id: "a", kinds: []decisions.Kind{decisions.KindEngageRTL}}}, nil, "registered twice"},
		{"two on one kind", []Executor{&fakeExec{id: "a", kinds: hold}, &fakeExec{id: "b", kinds: hold}}, nil, "both claim hold"},
		{"bad id", []Executor{&fakeExec{id: "A b", kinds: hold}}, nil, "executor id"},
		{"no kinds", []Executor{&fakeExec{id: "a"}}, nil, "declares no kinds"},
		{"unmapped kind", []Executor{&fakeExec{id: "a", kinds: []decisions.Kind{decisions.KindProceed}}}, nil, "maps it to no command"},
		{"enabled without executor", []Executor{&fakeExec{id: "a", kinds: hold}}, []decisions.Kind{decisions.KindEngageRTL}, "no executor serves it"},
		{"enabled with none at all", nil, []decisions.Kind{decisions.KindHold}, "no executor serves it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSession(SessionOptions{Executors: tc.execs, Enable: tc.enable})
			if !errors.Is(err, ErrExecutors) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDefaultExecutesNothing: without executors every kind is advisory.
func TestDefaultExecutesNothing(t *testing.T) {
	kinds := map[int64]decisions.Kind{}
	for i, k := range decisions.Kinds() {
		kinds[int64(i+1)*100] = k
	}
	s, err := NewSession(SessionOptions{Loop: engine.LoopOptions{Policy: scriptPolicy{kinds}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memoryActionSink{}
	if err := s.Runner().RegisterActionSink("m", sink); err != nil {
		t.Fatal(err)
	}
	for i := range decisions.NumKinds {
		at := int64(i+1) * 100 * ms
		if err := s.Step(engine.BeliefEvent{ArrivalNs: at, Belief: belief(at)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Step(aEv(t, at, at, decisions.LevelKnown)); err != nil {
			t.Fatal(err)
		}
	}
	if c := s.Runner().Counters(); len(sink.Receipts()) != 0 || c.DecisionsTotal() != decisions.NumKinds {
		t.Fatalf("%d receipts, counters %+v", len(sink.Receipts()), c)
	}
}

// TestActionsDeterministic: the same events give the same receipts.
func TestActionsDeterministic(t *testing.T) {
	run := func() []ActionReceipt {
		h := newHarness(t, map[int64]decisions.Kind{100: decisions.KindHold, 600: decisions.KindEngageLand, 1200: decisions.KindEngageRTL},
			decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand)
		h.queue(450, ack(1, 176, decisions.AckAccepted))
		h.queue(650, ack(2, 21, decisions.AckAccepted), state(2, 18, true))
		for s := int64(100); s <= 2500; s += 100 {
			h.belief(s)
		}
		return h.sink.Receipts()
	}
	a, b := run(), run()
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d receipts", len(a), len(b))
	}
	for i := range a {
		if a[i].String() != b[i].String() || a[i].TimeNs != b[i].TimeNs || !a[i].Command.Equal(b[i].Command) {
			t.Fatalf("receipt %d: %s vs %s", i, a[i], b[i])
		}
	}
}

func TestActionOptionsValidated(t *testing.T) {
	for _, o := range []engine.ActionOptions{
		{AckTimeout: -1}, {ReachTimeout: -1}, {MaxRetries: 251},
		{Routes: [decisions.NumKinds]engine.ActionRoute{decisions.KindHold: {Executor: "Bad"}}},
	} {
		if _, err := engine.NewLoop(engine.LoopOptions{Actions: o}); !errors.Is(err, engine.ErrOptions) {
			t.Errorf("%+v: err %v", o, err)
		}
	}
}

func TestVehicleCommandEqual(t *testing.T) {
	nan := math.NaN()
	a := engine.VehicleCommand{ID: 21, Params: [7]float64{4: nan}}
	if !a.Equal(engine.VehicleCommand{ID: 21, Params: [7]float64{4: nan}}) || a.Equal(engine.VehicleCommand{ID: 21}) || a.Equal(engine.VehicleCommand{ID: 20, Params: a.Params}) {
		t.Fatal("Equal")
	}
}

// TestEvidenceReceiptsCarryTheEvidenceArrival: a receipt made on evidence
// is stamped with the evidence's arrival, not the last input's.
func TestEvidenceReceiptsCarryTheEvidenceArrival(t *testing.T) {
	h := newHarness(t, hold, decisions.KindHold)
	h.queue(150, ack(1, 176, decisions.AckAccepted))
	h.queue(250, state(1, 4, true))
	for s := int64(100); s <= 400; s += 100 {
		h.belief(s)
	}
	want := map[string]int64{"1 evidence_accepted/150": 150, "1 accepted": 150, "1 evidence_accepted/250": 250, "1 reached": 250}
	seen := 0
	for _, rc := range h.sink.Receipts() {
		key := fmt.Sprintf("%d %s", rc.ActionID, rc.Event)
		if rc.Event == ReceiptEvidenceAccepted {
			key += fmt.Sprintf("/%d", rc.TimeNs/ms)
		}
		if at, ok := want[key]; ok {
			seen++
			if rc.TimeNs != at*ms {
				t.Errorf("%s at %d ms, want %d ms\n%s", key, rc.TimeNs/ms, at, h.dump())
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of the %d receipts made on evidence found\n%s", seen, len(want), h.dump())
	}
}

// TestNotApplicableStartsAgain: an action that ended not_applicable because
// the vehicle was disarmed starts again, as a new action, at the first
// later decision of the same kind whose context makes it applicable;
// nothing else is re-sent, and a vehicle that leaves the commanded mode is
// not commanded back.
func TestNotApplicableStartsAgain(t *testing.T) {
	fs := func(armed bool, m decisions.FlightMode) decisions.FlightStatus {
		return decisions.FlightStatus{Armed: armed, Mode: m, BatteryPct: 0.5, BatteryV: math.NaN()}
	}
	ground, air := fs(false, decisions.FlightModeInit), fs(true, decisions.FlightModeOffboard)
	landing := fs(true, decisions.FlightModeLand)
	h, land, kill := decisions.KindHold, decisions.KindEngageLand, decisions.KindEngageKill
	each := func(k decisions.Kind) map[int64]decisions.Kind {
		m := map[int64]decisions.Kind{}
		for s := int64(100); s <= 600; s += 100 {
			m[s] = k
		}
		return m
	}
	tests := []struct {
		name   string
		kinds  map[int64]decisions.Kind
		flight []decisions.FlightStatus // at 100 .. 600 ms
		script func(x *harness)
		want   []string
	}{
		{"decided on the ground, sent once armed", each(h), []decisions.FlightStatus{ground, ground, air, air, air, air}, func(x *harness) {
			x.queue(350, ack(2, 176, decisions.AckAccepted), state(2, 4, true))
		}, []string{"1 failed/not_applicable", "2 sent", "2 evidence_accepted", "2 accepted", "2 reached"}},
		{"already in the mode: not sent when the vehicle leaves it", each(land), []decisions.FlightStatus{landing, landing, air, air, air, air}, func(*harness) {},
			[]string{"1 failed/not_applicable"}},
		{"still not applicable: nothing", each(h), []decisions.FlightStatus{ground, ground, ground, ground, ground, ground}, func(*harness) {},
			[]string{"1 failed/not_applicable"}},
		{"a failure after the restart is not retried", each(h), []decisions.FlightStatus{ground, air, air, air, air, air}, func(x *harness) {
			x.queue(250, ack(2, 176, decisions.AckDenied))
		}, []string{"1 failed/not_applicable", "2 sent", "2 evidence_accepted", "2 failed/executor"}},
		{"blocked by policy is not started again", each(kill), []decisions.FlightStatus{air, air, air, air, air, air}, func(*harness) {},
			[]string{"1 failed/blocked_by_policy"}},
		{"another kind in between starts afresh", map[int64]decisions.Kind{100: h, 200: decisions.KindProceed, 300: h, 400: h},
			[]decisions.FlightStatus{ground, air, ground, air, air, air}, func(*harness) {},
			[]string{"1 failed/not_applicable", "2 failed/not_applicable", "3 sent", "3 superseded"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := newHarness(t, tc.kinds, h, land)
			tc.script(x)
			for i, f := range tc.flight {
				x.belief(int64(i+1)*100, f)
			}
			x.want(tc.want...)
		})
	}
}
