package node

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// base is the receive time of the first message in these tests.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// testClock is the time the node reads for ticks, decisions and reports.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// harness runs the node on a FakeTransport with test-driven time.
type harness struct {
	t     *testing.T
	ft    *transport.FakeTransport
	cfg   config.Config
	clock *testClock
	tick  chan time.Time
	diag  chan time.Time
	seal  chan time.Time
	ctx   context.Context
	stop  context.CancelFunc
	done  chan error
	logs  *bytes.Buffer
}

func startNode(t *testing.T, cfg config.Config) *harness {
	t.Helper()
	return startNodeWith(t, cfg, nil)
}

// startNodeWith is startNode with edit applied to the run options.
func startNodeWith(t *testing.T, cfg config.Config, edit func(*runOptions)) *harness {
	t.Helper()
	h := &harness{
		t:     t,
		ft:    transport.NewFakeTransport(),
		cfg:   cfg,
		clock: &testClock{t: base},
		tick:  make(chan time.Time),
		diag:  make(chan time.Time),
		seal:  make(chan time.Time),
		done:  make(chan error, 1),
		logs:  new(bytes.Buffer),
	}
	var cancel context.CancelFunc
	h.ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	runCtx, stop := context.WithCancel(h.ctx)
	h.stop = stop
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o := runOptions{waitWhenFull: true, now: h.clock.now, tick: h.tick, diag: h.diag, seal: h.seal}
	if edit != nil {
		edit(&o)
	}
	go func() { h.done <- run(runCtx, cfg, h.ft, logger, o) }()
	return h
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// shutdown cancels the node and returns Run's result.
func (h *harness) shutdown() error {
	h.t.Helper()
	h.stop()
	select {
	case err := <-h.done:
		return err
	case <-h.ctx.Done():
		h.t.Fatal("Run did not return after cancel")
		return nil
	}
}

func (h *harness) deliver(topic string, data []byte, recv time.Time) {
	h.t.Helper()
	if err := h.ft.Deliver(h.ctx, topic, data, recv); err != nil {
		h.t.Fatalf("deliver on %s: %v", topic, err)
	}
}

// sync returns once the node has handled everything sent before: ticks and
// diagnostics requests are handled in order by the node goroutine, so a
// diagnostics report proves the earlier events were processed. It returns
// that report.
func (h *harness) sync(at time.Time) ros2msg.DiagnosticArray {
	h.t.Helper()
	n := len(h.ft.Published(h.cfg.Topics[session.KeyDiagnostics]))
	select {
	case h.diag <- at:
	case <-h.ctx.Done():
		h.t.Fatal("node does not take diagnostics requests")
	}
	msgs, err := h.ft.WaitPublished(h.ctx, h.cfg.Topics[session.KeyDiagnostics], n+1)
	if err != nil {
		h.t.Fatal(err)
	}
	var d ros2msg.DiagnosticArray
	if err := d.UnmarshalCDR(msgs[n]); err != nil {
		h.t.Fatalf("diagnostics do not decode: %v", err)
	}
	return d
}

func (h *harness) tickAt(at time.Time) {
	h.t.Helper()
	h.clock.set(at)
	select {
	case h.tick <- at:
	case <-h.ctx.Done():
		h.t.Fatal("node does not take ticks")
	}
}

// decisionsOut decodes everything published on /decisions.
func (h *harness) decisionsOut() []decisions.Rationale {
	h.t.Helper()
	var out []decisions.Rationale
	for _, data := range h.ft.Published(h.cfg.Topics[session.KeyDecisions]) {
		var m ros2msg.DecisionRationale
		if err := m.UnmarshalCDR(data); err != nil {
			h.t.Fatalf("published rationale does not decode: %v", err)
		}
		out = append(out, ros2msg.RationaleFromWire(&m))
	}
	return out
}

func value(t *testing.T, d ros2msg.DiagnosticArray, key string) string {
	t.Helper()
	if len(d.Status) != 1 {
		t.Fatalf("diagnostics has %d statuses, want 1", len(d.Status))
	}
	for _, kv := range d.Status[0].Values {
		if kv.Key == key {
			return kv.Value
		}
	}
	t.Fatalf("diagnostics have no key %q", key)
	return ""
}

func count(t *testing.T, d ros2msg.DiagnosticArray, key string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(value(t, d, key), 10, 64)
	if err != nil {
		t.Fatalf("diagnostics %s: %v", key, err)
	}
	return v
}

var thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: 1,
}

func testBelief(stamp int64) decisions.Belief {
	return decisions.Belief{
		StampSimNs:   stamp,
		OrientationQ: [4]float64{1, 0, 0, 0},
		Flight:       decisions.FlightStatus{Armed: true, Mode: decisions.FlightMode(3), BatteryV: 15.2, BatteryPct: 0.8},
		Mission:      decisions.MissionStatus{Mode: decisions.MissionMode(2), Progress: 0.5, StartedSimNs: 0},
	}
}

// testAssessment assesses a diagonal covariance with the given position std.
func testAssessment(t testing.TB, stamp int64, posStd float64) decisions.SelfAssessment {
	t.Helper()
	cov := make([]float64, decisions.CovarianceLen)
	for i := 0; i < 15; i++ {
		cov[i*15+i] = 0.01 * 0.01
	}
	for i := 0; i < 3; i++ {
		cov[i*15+i] = posStd * posStd
	}
	a, err := decisions.Assess(stamp, cov, thresholds)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func beliefCDR(t testing.TB, b decisions.Belief) []byte {
	t.Helper()
	m := ros2msg.BeliefToWire(&b)
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func assessmentCDR(t testing.TB, a decisions.SelfAssessment) []byte {
	t.Helper()
	m := ros2msg.SelfAssessmentToWire(&a)
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func perceptionCDR(t testing.TB, p decisions.PerceptionReport) []byte {
	t.Helper()
	m := ros2msg.PerceptionToWire(p)
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// expected is what the policy decides for a context, computed without the
// node.
func expected(t *testing.T, b decisions.Belief, a *decisions.SelfAssessment, p *decisions.PerceptionReport) decisions.Rationale {
	t.Helper()
	c := decisions.Context{BeliefStampSimNs: b.StampSimNs, SelfAssessment: a, Flight: b.Flight, Mission: b.Mission, Perception: p}
	_, r, err := decisions.DecideWithRationale(decisions.ReferencePolicy{}, c, c.SelfAssessmentSHA256())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testConfig() config.Config {
	cfg := config.Default()
	cfg.AssessmentTimeout = ms(100)
	return cfg
}

func TestRunBytesInBytesOut(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)

	b1, b2 := testBelief(1_000_000), testBelief(2_000_000)
	a1, a2 := testAssessment(t, b1.StampSimNs, 0.1), testAssessment(t, b2.StampSimNs, 5)
	p := decisions.PerceptionReport{StampSimNs: 1_500_000, Mode: decisions.PerceptionMode(4)}

	// Assessment 2 before its belief, as ROS may deliver them.
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b1), base)
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a1), base.Add(ms(5)))
	h.deliver(cfg.Topics[session.KeyPerceptionMode], perceptionCDR(t, p), base.Add(ms(6)))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a2), base.Add(ms(10)))
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b2), base.Add(ms(12)))

	if _, err := h.ft.WaitPublished(h.ctx, cfg.Topics[session.KeyDecisions], 2); err != nil {
		t.Fatal(err)
	}
	got := h.decisionsOut()
	want := []decisions.Rationale{expected(t, b1, &a1, nil), expected(t, b2, &a2, &p)}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("published\n%+v\nwant\n%+v", got, want)
	}
	if got[0].SelfAssessmentSHA256 != a1.SHA256() || got[1].SelfAssessmentSHA256 != a2.SHA256() {
		t.Errorf("rationales do not carry the assessments' hashes")
	}
	if got[0].Decision.Kind == got[1].Decision.Kind {
		t.Errorf("a known and an unknown position gave the same kind %v; the test inputs do not discriminate", got[0].Decision.Kind)
	}

	d := h.sync(base.Add(ms(20)))
	if count(t, d, "decisions") != 2 || count(t, d, "received.state") != 2 || count(t, d, "received.self_assessment") != 2 ||
		count(t, d, "received.perception_mode") != 1 || count(t, d, "without_assessment") != 0 {
		t.Errorf("diagnostics values %+v", d.Status[0].Values)
	}
	if d.Status[0].Level != ros2msg.DiagnosticStatusOK {
		t.Errorf("diagnostics level %d, want OK: %s", d.Status[0].Level, d.Status[0].Message)
	}
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if n := len(h.decisionsOut()); n != 2 {
		t.Errorf("%d decisions after shutdown, want still 2", n)
	}

	// QoS and types as configured.
	if typ, qos, ok := h.ft.Subscription(cfg.Topics[session.KeyState]); !ok || typ != "ghost/msg/VehicleState" || qos != cfg.QoS[session.KeyState] {
		t.Errorf("state subscription %q %+v %v", typ, qos, ok)
	}
	if typ, qos, ok := h.ft.Subscription(cfg.Topics[session.KeySelfAssessment]); !ok || typ != "ghost/msg/BeliefSelfAssessment" || qos != cfg.QoS[session.KeySelfAssessment] {
		t.Errorf("self_assessment subscription %q %+v %v", typ, qos, ok)
	}
	if typ, _, ok := h.ft.Subscription(cfg.Topics[session.KeyPerceptionMode]); !ok || typ != "ghost/msg/PerceptionMode" {
		t.Errorf("perception_mode subscription %q %v", typ, ok)
	}
	if p := h.ft.Publisher(cfg.Topics[session.KeyDecisions]); p == nil || p.TypeName != "ghost/msg/DecisionRationale" || p.QoS != cfg.QoS[session.KeyDecisions] {
		t.Errorf("decisions publisher %+v", p)
	}
	if p := h.ft.Publisher(cfg.Topics[session.KeyDiagnostics]); p == nil || p.TypeName != "diagnostic_msgs/msg/DiagnosticArray" || p.QoS != cfg.QoS[session.KeyDiagnostics] {
		t.Errorf("diagnostics publisher %+v", p)
	}
	if h.ft.CloseCount() != 0 {
		t.Errorf("Run closed the transport %d times; the caller owns it", h.ft.CloseCount())
	}
}

// A belief whose assessment never comes is decided once ticks show the
// assessment timeout has passed, not before.
func TestRunAssessmentTimeout(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)
	// A first belief with its assessment starts the stream (the Loop does
	// not time out a first belief nothing corroborates).
	first := testBelief(4_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, first), base)
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, first.StampSimNs, 0.1)), base)
	b := testBelief(5_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base)

	h.tickAt(base.Add(ms(99)))
	h.sync(base.Add(ms(99)))
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions before the timeout", n)
	}
	h.tickAt(base.Add(ms(100)))
	d := h.sync(base.Add(ms(100)))
	got := h.decisionsOut()
	if len(got) != 2 || got[1] != expected(t, b, nil, nil) || got[1].SelfAssessmentSHA256 != "" {
		t.Fatalf("after the timeout: %+v", got)
	}
	if count(t, d, "without_assessment.timeout") != 1 {
		t.Errorf("without_assessment.timeout = %s", value(t, d, "without_assessment.timeout"))
	}

	// The assessment arriving now is late: counted, nothing published.
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), base.Add(ms(150)))
	d = h.sync(base.Add(ms(160)))
	if count(t, d, "rejected.late_assessment") != 1 || d.Status[0].Level != ros2msg.DiagnosticStatusWarn {
		t.Errorf("late assessment: level %d, %+v", d.Status[0].Level, d.Status[0].Values)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestRunMalformedInputsAreCountedNotFatal(t *testing.T) {
	cfg := testConfig()
	h := startNode(t, cfg)
	good := beliefCDR(t, testBelief(7_000_000))
	garbage := [][]byte{
		nil,
		{0x00, 0x01, 0x00, 0x00},
		good[:len(good)/2],
		append(append([]byte(nil), good...), 1, 2, 3, 4, 5, 6, 7, 8),
		bytes.Repeat([]byte{0xff}, 64),
	}
	for i, g := range garbage {
		h.deliver(cfg.Topics[session.KeyState], g, base.Add(time.Duration(i)*time.Millisecond))
	}
	h.deliver(cfg.Topics[session.KeyPerceptionMode], []byte{0, 1, 0, 0, 1}, base.Add(ms(8)))
	d := h.sync(base.Add(ms(9)))
	if count(t, d, "malformed.state") != uint64(len(garbage)) || count(t, d, "malformed.perception_mode") != 1 {
		t.Fatalf("malformed counts %+v", d.Status[0].Values)
	}
	if d.Status[0].Level != ros2msg.DiagnosticStatusWarn {
		t.Errorf("level %d after malformed input, want WARN", d.Status[0].Level)
	}

	// The node still decides.
	a := testAssessment(t, 7_000_000, 0.1)
	h.deliver(cfg.Topics[session.KeyState], good, base.Add(ms(10)))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a), base.Add(ms(11)))
	if _, err := h.ft.WaitPublished(h.ctx, cfg.Topics[session.KeyDecisions], 1); err != nil {
		t.Fatal(err)
	}
	// No new trouble: the next report is OK again.
	d = h.sync(base.Add(ms(12)))
	if d.Status[0].Level != ros2msg.DiagnosticStatusOK {
		t.Errorf("level %d without new trouble, want OK: %s", d.Status[0].Level, d.Status[0].Message)
	}
	if err := h.shutdown(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(h.logs.Bytes(), []byte("malformed")) {
		t.Error("malformed input was not logged")
	}
}

// Shutdown decides what is pending and publishes it before closing the
// sinks; the recording is complete and holds inputs and decisions.
func TestRunShutdownDecidesPendingAndClosesSinks(t *testing.T) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	cfg.Recording.Compression = config.CompressionLZ4
	h := startNode(t, cfg)

	b1, b2 := testBelief(10_000_000), testBelief(11_000_000)
	a1 := testAssessment(t, b1.StampSimNs, 0.1)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b1), base)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b2), base.Add(ms(1)))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, a1), base.Add(ms(2)))
	h.deliver(cfg.Topics[session.KeyState], []byte("junk"), base.Add(ms(3)))
	h.sync(base.Add(ms(3)))
	// b1 is decided (its assessment came); b2 waits for its own.
	if n := len(h.decisionsOut()); n != 1 {
		t.Fatalf("%d decisions before shutdown, want 1", n)
	}
	h.clock.set(base.Add(ms(4)))
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := h.decisionsOut()
	want := []decisions.Rationale{expected(t, b1, &a1, nil), expected(t, b2, nil, nil)}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("published\n%+v\nwant\n%+v", got, want)
	}
	diags := h.ft.Published(cfg.Topics[session.KeyDiagnostics])
	var final ros2msg.DiagnosticArray
	if err := final.UnmarshalCDR(diags[len(diags)-1]); err != nil {
		t.Fatal(err)
	}
	if count(t, final, "decisions") != 2 || count(t, final, "without_assessment.end_of_stream") != 1 {
		t.Errorf("final diagnostics %+v", final.Status[0].Values)
	}

	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatalf("recording after shutdown: %v", err)
	}
	defer r.Close()
	if !r.Indexed() {
		t.Error("recording has no summary: it was not closed")
	}
	type rec struct {
		topic string
		log   uint64
	}
	var recs []rec
	var recorded []decisions.Rationale
	var published []uint64 // the decisions' publish times
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec{m.Topic, m.LogTime})
		if m.Topic != "/decisions" && m.PublishTime != m.LogTime {
			t.Errorf("%s at %d: publish time %d, want the receive time (no sim time)", m.Topic, m.LogTime, m.PublishTime)
		}
		if m.Topic == "/decisions" {
			published = append(published, m.PublishTime)
			var dm ros2msg.DecisionRationale
			if err := dm.UnmarshalCDR(m.Data); err != nil {
				t.Fatal(err)
			}
			recorded = append(recorded, ros2msg.RationaleFromWire(&dm))
		}
	}
	if len(recorded) != 2 || recorded[0] != want[0] || recorded[1] != want[1] {
		t.Errorf("recorded decisions %+v", recorded)
	}
	// A decision's publish time is the wall clock's when it was recorded:
	// b2's, decided at shutdown, is the clock's then.
	if len(published) != 2 || published[1] != uint64(base.Add(ms(4)).UnixNano()) {
		t.Errorf("decision publish times %v, want the second at %d", published, base.Add(ms(4)).UnixNano())
	}
	// Inputs are recorded as received (the junk too), at their receive time.
	wantInputs := []rec{
		{"/state/nav", uint64(base.UnixNano())},
		{"/state/nav", uint64(base.Add(ms(1)).UnixNano())},
		{"/self_assessment", uint64(base.Add(ms(2)).UnixNano())},
		{"/state/nav", uint64(base.Add(ms(3)).UnixNano())},
	}
	var inputs []rec
	for _, x := range recs {
		if x.topic != "/decisions" {
			inputs = append(inputs, x)
		}
	}
	if len(inputs) != len(wantInputs) {
		t.Fatalf("recorded inputs %+v, want %+v", inputs, wantInputs)
	}
	for i := range inputs {
		if inputs[i] != wantInputs[i] {
			t.Errorf("recorded input %d = %+v, want %+v", i, inputs[i], wantInputs[i])
		}
	}
	topics := map[string]string{}
	for _, c := range r.Channels() {
		topics[c.Topic] = c.SchemaName
	}
	for topic, typ := range map[string]string{
		"/state/nav": "ghost/msg/VehicleState", "/self_assessment": "ghost/msg/BeliefSelfAssessment",
		"/perception/mode": "ghost/msg/PerceptionMode", "/decisions": "ghost/msg/DecisionRationale",
	} {
		if topics[topic] != typ {
			t.Errorf("recording channel %s has type %q, want %q", topic, topics[topic], typ)
		}
	}
}

// A failing publisher does not stop the node nor the other sinks; the
// failure shows in diagnostics.
func TestRunSinkFailureIsLoudNotFatal(t *testing.T) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	h := startNode(t, cfg)
	b := testBelief(20_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base) // the node is running: publishers exist
	h.ft.Publisher(cfg.Topics[session.KeyDecisions]).FailWith(errors.New("no route to host"))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), base.Add(ms(1)))
	d := h.sync(base.Add(ms(2)))
	if count(t, d, "sink_failures."+SinkROS) != 1 || count(t, d, "sink_failures.transport") != 1 ||
		count(t, d, "sink_failures."+SinkRecording) != 0 || count(t, d, "recording.messages") != 3 {
		t.Errorf("diagnostics %+v", d.Status[0].Values)
	}
	if d.Status[0].Level != ros2msg.DiagnosticStatusWarn {
		t.Errorf("level %d, want WARN", d.Status[0].Level)
	}
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if !bytes.Contains(h.logs.Bytes(), []byte("no route to host")) {
		t.Error("the sink failure was not logged")
	}
}

type failingTransport struct {
	*transport.FakeTransport
	err error
}

func (f failingTransport) Run(context.Context) error { return f.err }

func TestRunTransportFailure(t *testing.T) {
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	boom := errors.New("wait set invalid")
	err := run(context.Background(), cfg, failingTransport{transport.NewFakeTransport(), boom}, slog.New(slog.DiscardHandler),
		runOptions{waitWhenFull: true, now: func() time.Time { return base }, tick: make(chan time.Time), diag: make(chan time.Time)})
	if !errors.Is(err, boom) || !errors.Is(err, errTransportStopped) {
		t.Fatalf("Run = %v, want the transport's error", err)
	}
	// Sinks were still closed: the recording is complete.
	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Indexed() {
		t.Error("recording not finished after a transport failure")
	}
}

func TestRunRejectsBadSetup(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "exists.mcap")
	tests := []struct {
		name string
		edit func(*config.Config)
		pre  func(*transport.FakeTransport)
	}{
		{"invalid config", func(c *config.Config) { c.Policy = "nope" }, nil},
		{"recording path under a file", func(c *config.Config) { c.Recording.Path = filepath.Join(existing, "x.mcap") }, nil},
		{"recording directory missing", func(c *config.Config) { c.Recording.Path = filepath.Join(dir, "no", "x.mcap") }, nil},
		{"advertise fails", func(*config.Config) {}, func(ft *transport.FakeTransport) {
			_, _ = ft.Advertise("/decisions", "ghost/msg/DecisionRationale", qos.DefaultDecisions())
		}},
		{"subscribe fails", func(*config.Config) {}, func(ft *transport.FakeTransport) {
			// Another type on the topic: the node's subscription is refused.
			_ = ft.Subscribe("/self_assessment", "ghost/msg/Other", qos.DefaultInput(), func([]byte, time.Time) {})
		}},
	}
	if err := writeFile(existing); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.edit(&cfg)
			ft := transport.NewFakeTransport()
			if tt.pre != nil {
				tt.pre(ft)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := Run(ctx, cfg, ft, slog.New(slog.DiscardHandler)); err == nil {
				t.Fatal("Run succeeded")
			}
		})
	}
}

func TestTickInterval(t *testing.T) {
	for _, tt := range []struct{ timeout, want time.Duration }{
		{ms(100), ms(25)},
		{time.Second, ms(100)},
		{time.Microsecond, time.Millisecond},
		{ms(8), ms(2)},
	} {
		if got := tickInterval(tt.timeout); got != tt.want {
			t.Errorf("tickInterval(%v) = %v, want %v", tt.timeout, got, tt.want)
		}
	}
}

func TestRosTime(t *testing.T) {
	for _, tt := range []struct {
		in   time.Time
		want ros2msg.RosTime
	}{
		{time.Unix(1700000000, 123456789), ros2msg.RosTime{Sec: 1700000000, Nanosec: 123456789}},
		{time.Unix(0, 0), ros2msg.RosTime{}},
		{time.Unix(-5, 0), ros2msg.RosTime{}},
		{time.Unix(math.MaxInt32+10, 0), ros2msg.RosTime{Sec: math.MaxInt32, Nanosec: 999999999}},
	} {
		if got := ros2msg.RosTimeOf(tt.in); got != tt.want {
			t.Errorf("ros2msg.RosTimeOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// Every counter kind has a diagnostics key, in a fixed order.
func TestDiagnosticsKeys(t *testing.T) {
	n, _ := benchNode(t)
	a := n.diagnostics(base)
	b := n.diagnostics(base)
	if len(a.Status[0].Values) != len(b.Status[0].Values) {
		t.Fatal("diagnostics keys vary between reports")
	}
	keys := map[string]bool{}
	for i, kv := range a.Status[0].Values {
		if b.Status[0].Values[i].Key != kv.Key {
			t.Fatalf("key order varies: %s vs %s", kv.Key, b.Status[0].Values[i].Key)
		}
		if keys[kv.Key] {
			t.Fatalf("duplicate key %s", kv.Key)
		}
		keys[kv.Key] = true
	}
	for _, k := range decisions.Kinds() {
		if !keys["decisions."+k.String()] {
			t.Errorf("no key for kind %s", k)
		}
	}
	for r := engine.RejectReason(0); r < engine.NumRejectReasons; r++ {
		if !keys["rejected."+r.String()] {
			t.Errorf("no key for rejection %s", r)
		}
	}
	if a.Status[0].Name != "decision_node: decisions" || a.Status[0].HardwareID != "/decision_node" {
		t.Errorf("status name %q hardware id %q", a.Status[0].Name, a.Status[0].HardwareID)
	}
	if a.Header.Stamp != ros2msg.RosTimeOf(base) {
		t.Errorf("header stamp %+v", a.Header.Stamp)
	}
}
