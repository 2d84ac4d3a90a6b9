package node

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/standin"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

const failsafePolicy = "../../config/policies/px4_failsafe_like.yaml"

// startWith is startNode with message definitions from ament.
func startWith(t *testing.T, cfg config.Config, ament string) *harness {
	t.Helper()
	h := &harness{t: t, ft: transport.NewFakeTransport(), cfg: cfg, clock: &testClock{t: base},
		tick: make(chan time.Time), diag: make(chan time.Time), done: make(chan error, 1), logs: new(bytes.Buffer)}
	var cancel context.CancelFunc
	h.ctx, cancel = context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	runCtx, stop := context.WithCancel(h.ctx)
	h.stop = stop
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	go func() {
		h.done <- run(runCtx, cfg, h.ft, logger, runOptions{waitWhenFull: true, now: h.clock.now, tick: h.tick, diag: h.diag, ament: ament})
	}()
	return h
}

// graph plays a simulated flight into the node on one fake graph with a
// PX4 stand-in on the other side of the vehicle topics, and writes what a
// recorder on that graph sees: the inputs at their receive times, every
// message the node publishes on /decisions, /decisions/actions and
// /decisions/evidence as soon as it is published (at the receive time of
// the message it answers).
type graph struct {
	h          *harness
	standin    *standin.StandIn
	sft        *transport.FakeTransport
	rec        *bag.Recorder
	chans      map[string]bag.ChannelID
	seen       map[string]int // published messages already recorded, by topic
	commands   int
	ackTopic   string
	statusTop  string
	answered   int // stand-in acks delivered to the node
	statuses   int // stand-in statuses delivered to the node
	outputs    []string
	outputType map[string]string
}

func newGraph(t *testing.T, h *harness, defs *px4.Definitions, out string, deny ...decisions.Kind) *graph {
	t.Helper()
	g := &graph{h: h, sft: transport.NewFakeTransport(), chans: map[string]bag.ChannelID{}, seen: map[string]int{}}
	var err error
	if g.standin, err = standin.New(g.sft, standin.Options{Definitions: defs, Deny: deny}); err != nil {
		t.Fatal(err)
	}
	g.ackTopic, _ = defs.TopicName(px4.MsgVehicleCommandAck, "")
	g.statusTop, _ = defs.TopicName(px4.MsgVehicleStatus, "")
	if out != "" {
		if g.rec, err = bag.CreateRecording(out, bag.RecorderOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	g.outputs = []string{"/decisions", "/decisions/actions", "/decisions/evidence"}
	g.outputType = map[string]string{"/decisions": "ghost/msg/DecisionRationale", "/decisions/actions": "ghost/msg/ActionReceipt",
		"/decisions/evidence": "ghost/msg/ActionEvidence"}
	return g
}

func (g *graph) write(topic, typ string, at int64, data []byte) {
	if g.rec == nil {
		return
	}
	ch, ok := g.chans[topic]
	if !ok {
		var err error
		if ch, err = g.rec.AddMessageChannel(topic, typ); err != nil {
			g.h.t.Fatal(err)
		}
		g.chans[topic] = ch
	}
	if err := g.rec.Write(ch, uint64(at), uint64(at), data); err != nil {
		g.h.t.Fatal(err)
	}
}

// observe records what the node published since the last call, at at.
func (g *graph) observe(at int64) {
	for _, topic := range g.outputs {
		msgs := g.h.ft.Published(topic)
		for _, m := range msgs[g.seen[topic]:] {
			g.write(topic, g.outputType[topic], at, m)
		}
		g.seen[topic] = len(msgs)
	}
}

// input delivers one input at its arrival time, waits until the node
// handled it and records what it published; then, if there is room before
// next, the stand-in answers the commands sent and each answer is
// delivered, handled and recorded in turn.
func (g *graph) input(m bag.Message, next int64) {
	h := g.h
	at := int64(m.LogTime)
	g.write(m.Topic, m.SchemaName, at, m.Data)
	h.deliver(m.Topic, m.Data, time.Unix(0, at))
	h.sync(time.Unix(0, at))
	g.observe(at)
	gap := next - at
	if gap < 8 {
		return // no room for answers: they come after the next input
	}
	step := min(gap/8, int64(time.Millisecond))
	cmds := h.ft.Published("/fmu/in/vehicle_command")
	for _, c := range cmds[g.commands:] {
		if err := g.standin.Handle(c, time.Unix(0, at+step)); err != nil {
			h.t.Fatal(err)
		}
	}
	g.commands = len(cmds)
	// The stand-in publishes each ack before the status it leads to.
	acks, statuses := g.sft.Published(g.ackTopic), g.sft.Published(g.statusTop)
	k := 2
	deliver := func(topic string, data []byte) {
		t := at + int64(k)*step
		k++
		h.deliver(topic, data, time.Unix(0, t))
		h.sync(time.Unix(0, t))
		g.observe(t)
	}
	for _, a := range acks[g.answered:] {
		deliver(g.ackTopic, a)
	}
	for _, st := range statuses[g.statuses:] {
		deliver(g.statusTop, st)
	}
	g.answered, g.statuses = len(acks), len(statuses)
}

// flight is a short simulated flight's inputs, in arrival order.
func flight(t *testing.T, cfg config.Config) []bag.Message {
	t.Helper()
	v, err := sim.NewVehicle(sim.Options{Duration: 40 * time.Second, RateHz: 10, Thresholds: cfg.Thresholds})
	if err != nil {
		t.Fatal(err)
	}
	p := sim.NewPublisher(v, nil)
	var out []bag.Message
	for {
		m, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		m.Data = append([]byte(nil), m.Data...)
		out = append(out, m)
	}
}

// play runs the flight through the node and the stand-in and shuts the
// node down; it returns the node's receipts.
func (g *graph) play(t *testing.T, msgs []bag.Message) []session.ActionReceipt {
	t.Helper()
	for i, m := range msgs {
		next := int64(1) << 62
		if i+1 < len(msgs) {
			next = int64(msgs[i+1].LogTime)
		}
		g.input(m, next)
	}
	last := int64(msgs[len(msgs)-1].LogTime)
	if err := g.h.shutdown(); err != nil {
		t.Fatalf("Run: %v\n%s", err, g.h.logs)
	}
	g.observe(last)
	if g.rec != nil {
		if err := g.rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var out []session.ActionReceipt
	for _, data := range g.h.ft.Published("/decisions/actions") {
		var m ros2msg.ActionReceipt
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatal(err)
		}
		out = append(out, session.ReceiptFromWire(&m))
	}
	return out
}

// verify audits a recording with cfg's executors, as `decision_node
// verify --executor px4 --policy-file ...` does.
func verify(t *testing.T, path string, cfg config.Config) *audit.AuditReport {
	t.Helper()
	so, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	r, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := audit.Verify(r, audit.VerifyOptions{Policies: []decisions.Policy{so.Loop.Policy},
		Session: so}) // its Loop's Policy is ignored: Policies are supplied
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func actingConfig(t *testing.T, executor string) config.Config {
	cfg := testConfig()
	cfg.PolicyFile = failsafePolicy
	cfg.Executors.Executor = executor
	cfg.Input.PX4Release = "1.15"
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	return cfg
}

// TestNodeActsThroughPX4 is the live path end to end on one fake graph:
// decisions become VehicleCommands, the stand-in acknowledges them and
// changes mode, the acknowledgements and statuses come back as evidence,
// and the receipts say accepted and reached. What the graph carried, and
// the node's own recording, both re-verify with the same executor
// configuration: every action, command and piece of evidence.
func TestNodeActsThroughPX4(t *testing.T) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	cfg := actingConfig(t, config.ExecutorPX4)
	h := startWith(t, cfg, prefix)
	graphPath := filepath.Join(t.TempDir(), "graph.mcap")
	g := newGraph(t, h, defs, graphPath, decisions.KindEngageLand)
	receipts := g.play(t, flight(t, cfg))

	if _, q, ok := h.ft.Subscription(g.ackTopic); !ok || q.Reliability != qos.ReliabilityBestEffort {
		t.Fatalf("ack subscription %+v %v", q, ok)
	}
	if _, _, ok := h.ft.Subscription("/decisions/evidence"); ok {
		t.Fatal("the node subscribes to the evidence it publishes")
	}
	events := map[string]int{}
	for _, rc := range receipts {
		ev := rc.Event.String()
		if rc.Event == session.ReceiptFailed {
			ev += "_" + rc.Failure.String()
		}
		events[ev]++
	}
	t.Logf("receipts: %v", events)
	if events["sent"] == 0 || events["accepted"] == 0 || events["reached"] == 0 || events["evidence_accepted"] == 0 {
		t.Fatalf("no complete action: %v", events)
	}
	// The stand-in reaches every mode it accepts; it denies land: an
	// executor failure, never reached.
	if events["reached"] != events["accepted"] || events["failed_executor"] == 0 {
		t.Fatalf("accepted %d, reached %d, executor failures %d", events["accepted"], events["reached"], events["failed_executor"])
	}
	for _, rc := range receipts {
		if rc.Kind == decisions.KindEngageLand && rc.Event == session.ReceiptReached {
			t.Fatalf("denied land reached: %v", rc)
		}
	}
	// What was sent is what the stand-in read, command for command.
	cmds := h.ft.Published("/fmu/in/vehicle_command")
	if st := g.standin.Stats(); int(st.Commands) != len(cmds) || st.Commands != uint64(events["sent"]+events["retried"]) {
		t.Fatalf("stand-in read %d commands, node published %d, receipts say %d", st.Commands, len(cmds), events["sent"]+events["retried"])
	}
	for _, path := range []string{graphPath, cfg.Recording.Path} {
		rep := verify(t, path, cfg)
		if !rep.Passed() || rep.Actions["reached"] != uint64(events["reached"]) || rep.Actions["sent"] != uint64(events["sent"]) {
			t.Fatalf("%s: pass %v, actions %v, findings %v %v\n%s", filepath.Base(path), rep.Passed(), rep.Actions, rep.Findings, rep.Problems,
				strings.Join(rep.Notes, "\n"))
		}
	}
	// Without the executor the trail does not verify: it is checked, not
	// taken on trust.
	bare := cfg.Clone()
	bare.Executors.Executor = ""
	if rep := verify(t, graphPath, bare); rep.Passed() {
		t.Fatal("a trail verified without its executor")
	}
}

// With the default parameters the node acts on nothing: no command
// publisher, no receipts, the same decisions.
func TestNodeDefaultExecutesNothing(t *testing.T) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	cfg := actingConfig(t, config.ExecutorNone)
	h := startWith(t, cfg, prefix)
	g := newGraph(t, h, defs, "")
	if receipts := g.play(t, flight(t, cfg)); len(receipts) != 0 {
		t.Fatalf("%d receipts", len(receipts))
	}
	if h.ft.Publisher("/fmu/in/vehicle_command") != nil || h.ft.Publisher("/decisions/actions") != nil {
		t.Fatal("the default node advertises commands or receipts")
	}
	kinds := map[decisions.Kind]int{}
	for _, data := range h.ft.Published("/decisions") {
		var m ros2msg.DecisionRationale
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatal(err)
		}
		kinds[ros2msg.RationaleFromWire(&m).Decision.Kind]++
	}
	if kinds[decisions.KindEngageRTL]+kinds[decisions.KindEngageLand]+kinds[decisions.KindHold] == 0 {
		t.Fatalf("the flight asks for nothing to act on: %v", kinds)
	}
	if rep := verify(t, cfg.Recording.Path, cfg); !rep.Passed() {
		t.Fatalf("%v", rep.Notes)
	}
}

// The log executor sends nothing: its actions end as transport failures,
// and the trail verifies.
func TestNodeLogExecutor(t *testing.T) {
	cfg := actingConfig(t, config.ExecutorLog)
	h := startWith(t, cfg, "")
	g := newGraph(t, h, mustDefs(t), "")
	receipts := g.play(t, flight(t, cfg))
	if len(receipts) == 0 || h.ft.Publisher("/fmu/in/vehicle_command") != nil {
		t.Fatalf("%d receipts, command publisher %v", len(receipts), h.ft.Publisher("/fmu/in/vehicle_command"))
	}
	if !strings.Contains(h.logs.String(), "would_send") {
		t.Fatal("the log executor logged nothing")
	}
	if rep := verify(t, cfg.Recording.Path, cfg); !rep.Passed() || rep.Actions["failed_transport"] == 0 {
		t.Fatalf("pass %v actions %v: %v", rep.Passed(), rep.Actions, rep.Notes)
	}
}

func mustDefs(t *testing.T) *px4.Definitions {
	defs, err := px4.LoadFromAmentIndex(px4Prefix(t))
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// Bad executor settings stop the node at start-up, naming the parameter.
func TestNodeExecutorConfigRejected(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*config.Config)
		ament string
		want  string
	}{
		{"unknown executor", func(c *config.Config) { c.Executors.Executor = "mavros" }, "", "executors.executor"},
		{"kill in enable", func(c *config.Config) { c.Executors.Executor, c.Executors.Enable = "px4", "engage_kill" }, "", "executors.enable"},
		{"vehicle 0", func(c *config.Config) { c.Executors.Executor, c.Executors.TargetVehicle = "px4", 0 }, "", "executors.target_vehicle"},
		{"no px4_msgs", func(c *config.Config) { c.Executors.Executor = "px4" }, "none", "executors.executor px4"},
		{"release mismatch", func(c *config.Config) { c.Executors.Executor, c.Input.PX4Release = "px4", "1.14" }, "px4", "px4.release is 1.14"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.edit(&cfg)
			ament := tc.ament
			switch ament {
			case "px4":
				ament = px4Prefix(t)
			case "none":
				ament = t.TempDir()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := run(ctx, cfg, transport.NewFakeTransport(), slog.New(slog.DiscardHandler), runOptions{waitWhenFull: true, tick: make(chan time.Time), diag: make(chan time.Time), ament: ament})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// While acting, ticks do not step the Loop: a belief without its
// assessment is decided at the next input, as a replay of the recording
// decides it, not at a tick no recording holds. Without an executor ticks
// decide it.
func TestActingNodeDoesNotTick(t *testing.T) {
	for _, executor := range []string{config.ExecutorNone, config.ExecutorLog} {
		cfg := testConfig()
		cfg.Executors.Executor = executor
		h := startNode(t, cfg)
		first := testBelief(4_000_000)
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, first), base)
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, first.StampSimNs, 0.1)), base)
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, testBelief(5_000_000)), base)
		h.tickAt(base.Add(ms(500)))
		h.sync(base.Add(ms(500)))
		ticked := len(h.decisionsOut())
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, testBelief(6_000_000)), base.Add(ms(600)))
		h.sync(base.Add(ms(600)))
		if want := map[string]int{"": 2, "log": 1}[executor]; ticked != want || len(h.decisionsOut()) != 2 {
			t.Errorf("executor %q: %d decisions after the tick (want %d), %d after the next belief (want 2)",
				executor, ticked, want, len(h.decisionsOut()))
		}
		if err := h.shutdown(); err != nil {
			t.Fatal(err)
		}
		// The ready line says which time the action deadlines count in.
		if said := strings.Contains(h.logs.String(), "action_deadlines=arrival"); said != (executor != config.ExecutorNone) {
			t.Errorf("executor %q: the ready line names the deadlines' time: %v", executor, said)
		}
	}
}
