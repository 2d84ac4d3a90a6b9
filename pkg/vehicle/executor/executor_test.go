package executor

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// TestPX4Mapping checks the mapping against the command ids and parameters
// of PX4's Commander, written out here as numbers (not the package's
// constants), from the PX4 interface research.
func TestPX4Mapping(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		kind   decisions.Kind
		id     uint32
		params [7]float64
		expect engine.Expectation
	}{
		{decisions.KindHold, 176, [7]float64{1, 4, 3}, engine.Expectation{Mode: 4, HasMode: true}},
		{decisions.KindYieldToPilot, 176, [7]float64{1, 3}, engine.Expectation{Mode: 2, HasMode: true}},
		{decisions.KindEngageRTL, 20, [7]float64{}, engine.Expectation{Mode: 5, HasMode: true}},
		{decisions.KindEngageLand, 21, [7]float64{0, 0, 0, nan, nan, nan, nan}, engine.Expectation{Mode: 18, HasMode: true}},
		{decisions.KindEngageKill, 400, [7]float64{0, 21196}, engine.Expectation{Disarmed: true}},
	}
	for _, tc := range tests {
		c, e, err := PX4Command(tc.kind)
		if err != nil || !c.Equal(engine.VehicleCommand{ID: tc.id, Params: tc.params}) || e != tc.expect {
			t.Errorf("%s: %+v %+v %v", tc.kind, c, e, err)
		}
	}
	for _, k := range []decisions.Kind{decisions.KindProceed, decisions.KindAbstainUncertain, decisions.Kind(9)} {
		if _, _, err := PX4Command(k); err == nil {
			t.Errorf("%s mapped", k)
		}
	}
	if len(PX4Kinds()) != 5 {
		t.Fatal(PX4Kinds())
	}
}

func TestToPX4(t *testing.T) {
	cmd, _, _ := PX4Command(decisions.KindEngageLand)
	c, err := ToPX4(session.ActionRequest{ActionID: 3, Attempt: 2, Vehicle: 1, Command: cmd, TimeNs: 1_500_000_000}, 255, 190)
	if err != nil {
		t.Fatal(err)
	}
	if c.Command != 21 || c.TargetSystem != 1 || c.TargetComponent != 1 || c.SourceSystem != 255 || c.SourceComponent != 190 ||
		!c.FromExternal || c.Confirmation != 1 || c.TimestampUs != 1_500_000 || !math.IsNaN(c.Param5) || !math.IsNaN(float64(c.Param7)) {
		t.Fatalf("%+v", c)
	}
	if _, err := ToPX4(session.ActionRequest{Vehicle: 300}, 255, 190); err == nil {
		t.Fatal("vehicle 300 accepted")
	}
}

// fakeTransport records commands and returns the arrivals a test queues.
type fakeTransport struct {
	sent     []px4.Command
	arrivals []Arrival
}

func (f *fakeTransport) SendCommand(c px4.Command, _ SendInfo) error {
	f.sent = append(f.sent, c)
	return nil
}
func (f *fakeTransport) Receive(upTo int64) []Arrival {
	var out []Arrival
	for len(f.arrivals) > 0 && f.arrivals[0].ArrivalNs <= upTo {
		out, f.arrivals = append(out, f.arrivals[0]), f.arrivals[1:]
	}
	return out
}

func TestPX4Evidence(t *testing.T) {
	tr := &fakeTransport{}
	p := NewPX4(PX4Options{Transport: tr})
	cmd, _, _ := PX4Command(decisions.KindHold)
	if err := p.Send(session.ActionRequest{ActionID: 4, Attempt: 1, Vehicle: 1, Command: cmd, TimeNs: 10}); err != nil {
		t.Fatal(err)
	}
	if len(tr.sent) != 1 || tr.sent[0].Command != 176 {
		t.Fatalf("%+v", tr.sent)
	}
	ours := &px4.CommandAck{Command: 176, TargetSystem: 255, TargetComponent: 190}
	theirs := &px4.CommandAck{Command: 176, TargetSystem: 1, TargetComponent: 1}
	st := &px4.Status{NavState: 4, Armed: true, SystemID: 1}
	tr.arrivals = []Arrival{
		{ArrivalNs: 20, Ack: theirs}, // addressed to another commander: not evidence
		{ArrivalNs: 20, Ack: ours},
		{ArrivalNs: 20, Status: st},
		{ArrivalNs: 30, Status: st}, // unchanged: not reported again
		{ArrivalNs: 40, Status: &px4.Status{NavState: 4, Armed: true, SystemID: 2}},
	}
	got := p.Poll(35)
	if len(got) != 1 || got[0].ArrivalNs != 20 || len(got[0].Items) != 2 {
		t.Fatalf("%+v", got)
	}
	a, s := got[0].Items[0], got[0].Items[1]
	if a.Kind != engine.EvidenceAck || a.ActionID != 4 || a.Executor != "px4" || a.Command != 176 || a.Vehicle != 1 {
		t.Fatalf("ack %+v", a)
	}
	if s.Kind != engine.EvidenceState || s.Mode != 4 || !s.Armed || s.Vehicle != 1 {
		t.Fatalf("state %+v", s)
	}
	if p.NotOurs() != 1 {
		t.Fatalf("not ours %d", p.NotOurs())
	}
	// A status of another system is reported as is: the Runner rejects it.
	if got := p.Poll(40); len(got) != 1 || got[0].Items[0].Vehicle != 2 {
		t.Fatalf("%+v", got)
	}
	p.Conclude(4)
	tr.arrivals = []Arrival{{ArrivalNs: 50, Status: &px4.Status{NavState: 5, Armed: true, SystemID: 1}}, {ArrivalNs: 60, Ack: ours}}
	got = p.Poll(100)
	if len(got) != 1 || got[0].Items[0].Kind != engine.EvidenceAck || got[0].Items[0].ActionID != 4 {
		t.Fatalf("after conclude: %+v (a late ack still names its action, state does not)", got)
	}
}

func TestReplayExecutorSendsNothing(t *testing.T) {
	p := NewPX4(PX4Options{})
	if err := p.Send(session.ActionRequest{ActionID: 1, Vehicle: 1}); err != nil || p.Poll(1e18) != nil {
		t.Fatal("a replay executor sent or received")
	}
}

func TestLog(t *testing.T) {
	var b bytes.Buffer
	l := NewLog("log", PX4Kinds(), nil, &b)
	cmd, _, _ := l.Command(decisions.KindEngageRTL)
	if err := l.Send(session.ActionRequest{ActionID: 3, Attempt: 1, Kind: decisions.KindEngageRTL, Stamp: 7, Vehicle: 1, Command: cmd, TimeNs: 1_500_000_000}); err != nil {
		t.Fatal(err)
	}
	want := "t=1.500000000s log: action 3 attempt 1 engage_rtl (decision 7) -> vehicle 1 command 20 params [0 0 0 0 0 0 0] (not sent)\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
	if _, ok := any(l).(session.EvidencePoller); ok {
		t.Fatal("the log executor must not produce evidence")
	}
	if !strings.Contains(FormatRequest("x", session.ActionRequest{Command: engine.VehicleCommand{Params: [7]float64{math.NaN()}}}), "NaN") {
		t.Fatal("NaN parameter")
	}
}
