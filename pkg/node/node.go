package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/clock"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/lifecycle"
	"github.com/ghost-robotics/ghost/pkg/ros2/param"
	"github.com/ghost-robotics/ghost/pkg/ros2/rosout"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Sink ids under which the node registers its sinks with the Runner; they
// appear in diagnostics.
const (
	SinkROS       = "ros"
	SinkRecording = "recording"
)

// inputQueue bounds the messages taken from the transport but not yet
// stepped. When it is full a best-effort input (the vehicle's topics, a
// sensor stream: the middleware may drop them anyway) is dropped and
// counted, so a starved node never holds up the middleware's callbacks;
// a reliable one (parameter and lifecycle events, the vehicle's answers)
// waits, as in any ROS node whose executor falls behind.
const inputQueue = 256

type input struct {
	// kind indexes node.inputs, or node.vehicle.subs when vehicle is set.
	kind    int
	vehicle bool
	clock   bool // a /clock message (use_sim_time)
	// executor: kind indexes the executor link's subscriptions.
	executor bool
	data     []byte
	recv     time.Time
	// wall is the receive time on the wall clock, kept when sim time
	// rewrites recv: recordings carry it as the message's publish time,
	// from which decision latency is measured.
	wall time.Time
}

// runOptions let tests drive time; the zero value is live operation.
type runOptions struct {
	now  func() time.Time // time of ticks, decisions and diagnostics
	tick <-chan time.Time // nil: a ticker every tickInterval(cfg)
	diag <-chan time.Time // nil: a ticker every cfg.DiagnosticsPeriod
	// ament locates message definitions for input.source px4 and odometry;
	// "" means the AMENT_PREFIX_PATH of the environment.
	ament string
	// level is the logger's level, which the log_level parameter changes;
	// nil when the caller's logger has a fixed one.
	level *slog.LevelVar
	// rosout, when set, publishes the node's log records on /rosout.
	rosout *rosout.Handler
	// seal makes a seal (with seal.key_file); nil: a ticker every second.
	seal <-chan time.Time
	// create starts the recording; nil: bag.CreateRecording. Tests give
	// one whose file fails as a full disk does.
	create recorderFactory
	// waitWhenFull makes every input wait for room in the queue, as
	// reliable ones always do: tests that deliver faster than the node
	// steps and count every message. Live, best-effort inputs are dropped.
	waitWhenFull bool
}

// recorderFactory starts a recording in a new file.
type recorderFactory func(path string, opts bag.RecorderOptions) (*bag.Recorder, error)

// Option changes how Run runs the node.
type Option func(*runOptions)

// WithRosout makes the node publish on /rosout through h (which the
// caller's logger includes): the node advertises /rosout, attaches h with
// the node's clock, and detaches it when Run returns, after the last line.
func WithRosout(h *rosout.Handler) Option { return func(o *runOptions) { o.rosout = h } }

// WithLevel gives the node the level of the caller's logger, which the
// log_level parameter then changes while the node runs.
func WithLevel(level *slog.LevelVar) Option { return func(o *runOptions) { o.level = level } }

// Run runs the decision node on t until ctx is done, then shuts down in
// this order: stop taking messages, step what was already taken, decide
// every pending belief (with its assessment when it arrived), publish those
// decisions, publish final diagnostics, close every sink once. It returns
// nil after a clean shutdown; an error when the configuration is invalid,
// the transport fails, or a sink (the recording) cannot be finished.
//
// Run subscribes and advertises on t before running it; it does not close
// t, which the caller closes after Run returns. Malformed messages and
// rejected inputs are counted and logged; they never stop the node.
func Run(ctx context.Context, cfg config.Config, t transport.Transport, logger *slog.Logger, opts ...Option) error {
	var o runOptions
	for _, opt := range opts {
		opt(&o)
	}
	return run(ctx, cfg, t, logger, o)
}

func run(ctx context.Context, cfg config.Config, t transport.Transport, logger *slog.Logger, opts runOptions) error {
	if logger == nil {
		logger = slog.Default()
	}
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.rosout != nil {
		defer opts.rosout.Detach()
	}
	if opts.tick == nil && !cfg.UseSimTime {
		tk := time.NewTicker(tickInterval(cfg.AssessmentTimeout))
		defer tk.Stop()
		opts.tick = tk.C
	}
	if opts.diag == nil && cfg.DiagnosticsPeriod > 0 {
		tk := time.NewTicker(cfg.DiagnosticsPeriod)
		defer tk.Stop()
		opts.diag = tk.C
	}

	// The transport runs under its own context so that shutdown can stop
	// it before the pending beliefs are decided.
	tctx, stopTransport := context.WithCancel(context.Background())
	defer stopTransport()

	if opts.ament == "" {
		opts.ament = amentPrefixPath()
	}
	n, err := newNodeWith(tctx, cfg, t, logger, opts.now, opts.ament, opts.rosout, opts.create)
	if err != nil {
		return err
	}
	n.level = opts.level
	n.waitWhenFull = opts.waitWhenFull
	if opts.seal == nil && n.seal != nil {
		tk := time.NewTicker(seal.DefaultPeriod)
		defer tk.Stop()
		opts.seal = tk.C
	}
	transportDone := make(chan error, 1)
	go func() { transportDone <- t.Run(tctx) }()

	runErr := n.serve(ctx, transportDone, opts.tick, opts.diag, opts.seal)

	stopTransport()
	if runErr == nil || !errors.Is(runErr, errTransportStopped) {
		if err := <-transportDone; err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("%w: %w", errTransportStopped, err))
		}
	}
	return errors.Join(runErr, n.shutdown())
}

// errTransportStopped marks errors from the transport's Run.
var errTransportStopped = errors.New("transport stopped")

// tickInterval is how often the node advances time while inputs pause; a
// quarter of the timeout keeps the decision latency past the timeout small
// without waking up for nothing.
func tickInterval(timeout time.Duration) time.Duration {
	return min(max(timeout/4, time.Millisecond), 100*time.Millisecond)
}

// node is the state of one Run; everything but the queue and the recording
// belongs to the goroutine calling serve.
type node struct {
	cfg config.Config
	log *slog.Logger
	now func() time.Time
	s   *session.Session
	run *session.Runner // s.Runner()
	// inputs are the node's inputs with their resolved topics (the names
	// the session dispatches on), as session.DefaultInputs declares them.
	inputs []session.InputSpec
	in     chan input
	rec    *recording // nil without in-node recording
	// restartedAfter is the recording a restarted node found at
	// recording.path (the newest one): "" on a first start.
	restartedAfter string
	recFailed      bool // the recording failed (logged and reported once)
	// splitErr is why the recording could not continue in a new file.
	splitErr error
	// vehicle maps the vehicle's own topics (input.source px4 or
	// odometry); nil for input.source ghost.
	vehicle *vehicleSource
	// act publishes and records what the executors do; nil without one.
	act *acting
	// seal seals what the node takes and publishes; nil without a key.
	seal *sealing
	ros  *rosSink // publishes the decisions
	// middleware names the rmw implementation, where the transport knows
	// it, for the ready line: which one ran is the first question of any
	// report from a live graph.
	middleware string

	diagPub transport.Publisher
	diag    diagState
	// params serves the parameter services; level is the logger's level
	// (nil: fixed).
	params *param.Store
	level  *slog.LevelVar
	lc     *lifecycle.Machine // nil without the lifecycle parameter
	stats  nodeStats
	warned map[string]time.Time // throttles repeated warnings per key
	fresh  freshness            // arrival of belief inputs (freshness.go)
	queue  queueStats           // what the input queue held and dropped (queue.go)
	// waitWhenFull is runOptions.waitWhenFull.
	waitWhenFull bool

	// clock is the node's time (simtime.go); sim its sim-time state.
	clock  *clock.Clock
	sim    simTime
	rosout *rosout.Handler // nil when the node does not publish /rosout
}

// nodeStats are the node's own counters, next to the Runner's and the
// session's.
type nodeStats struct {
	recordingFailures uint64
	diagnosticsErrors uint64
}

// newNode builds a node without /rosout, as tests and benchmarks do.
func newNode(tctx context.Context, cfg config.Config, t transport.Transport, logger *slog.Logger, now func() time.Time, ament string) (*node, error) {
	return newNodeWith(tctx, cfg, t, logger, now, ament, nil, nil)
}

// newNodeWith builds the node; ro, when set, is attached to /rosout before
// the node logs anything; create (nil: bag.CreateRecording) starts the
// recording.
func newNodeWith(tctx context.Context, cfg config.Config, t transport.Transport, logger *slog.Logger, now func() time.Time,
	ament string, ro *rosout.Handler, create recorderFactory) (_ *node, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	resolved, err := cfg.ResolvedTopics()
	if err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	sopts, err := cfg.SessionOptions()
	if err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	act, err := prepareActing(cfg, t, &sopts, ament, logger)
	if err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	policy := sopts.Loop.Policy
	inputs := sopts.Inputs
	configured := cfg.Inputs()
	sess, err := session.NewSession(sopts)
	if err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	n := &node{
		cfg:    cfg,
		log:    logger,
		now:    now,
		s:      sess,
		run:    sess.Runner(),
		inputs: inputs,
		in:     make(chan input, inputQueue),
		warned: make(map[string]time.Time),
		act:    act,
		clock:  clock.NewWall(now),
	}
	if cfg.UseSimTime {
		n.clock = clock.NewSim()
	}
	if m, ok := t.(interface{ Middleware() string }); ok {
		n.middleware = m.Middleware()
	}
	// Sinks registered so far are closed if a later step fails.
	defer func() {
		if err != nil {
			err = errors.Join(err, n.run.Close())
		}
	}()

	if err := n.serveOutputs(t, resolved); err != nil {
		return nil, err
	}
	if cfg.Recording.Path != "" {
		if create == nil {
			create = bag.CreateRecording
		}
		if err := n.openRecording(resolved, inputs, sess.Now, create); err != nil {
			return nil, err
		}
	}
	if n.vehicle, err = newVehicleSource(cfg, inputs, ament); err != nil {
		return nil, fmt.Errorf("node configuration: %w", err)
	}
	if err := n.subscribeInputs(tctx, t, act, inputs, configured); err != nil {
		return nil, err
	}
	if err := n.setupClock(tctx, t, ro); err != nil {
		return nil, err
	}
	if act != nil {
		if err := n.startActing(tctx, t, configured, resolved); err != nil {
			return nil, err
		}
	}
	if err := n.setupSealing(t, resolved); err != nil {
		return nil, err
	}
	n.logReady(policy.ID(), inputs, resolved)
	return n, nil
}

// decisionsType is the ROS type of /decisions.
func decisionsType() string { return new(ros2msg.DecisionRationale).SchemaName() }

// serveOutputs advertises /decisions and /diagnostics and serves the
// parameter and lifecycle services.
func (n *node) serveOutputs(t transport.Transport, resolved session.Topics) error {
	pub, err := t.Advertise(n.cfg.Topics.Decisions(), decisionsType(), n.cfg.QoS[session.KeyDecisions])
	if err != nil {
		return fmt.Errorf("advertise decisions: %w", err)
	}
	n.ros = &rosSink{pub: pub, topic: resolved.Decisions()}
	if err := n.run.RegisterEncoded(SinkROS, n.ros); err != nil {
		return err
	}
	n.diagPub, err = t.Advertise(n.cfg.Topics[session.KeyDiagnostics], new(ros2msg.DiagnosticArray).SchemaName(), n.cfg.QoS[session.KeyDiagnostics])
	if err != nil {
		return fmt.Errorf("advertise diagnostics: %w", err)
	}

	if err := n.serveParameters(t); err != nil {
		return err
	}
	if err := n.serveLifecycle(t); err != nil {
		return err
	}
	return nil
}

// openRecording starts the node's own recording of its inputs and decisions.
// A restarted node finds its previous recording at recording.path and
// records to the next restart file instead (restart.go).
func (n *node) openRecording(resolved session.Topics, inputs []session.InputSpec, now func() int64, create recorderFactory) error {
	path, previous, err := recordingTarget(n.cfg.Recording.Path)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	var meta map[string]map[string]string
	if previous != "" {
		meta = map[string]map[string]string{MetadataRestart: {"previous": previous, "configured": n.cfg.Recording.Path}}
		n.restartedAfter = previous
	}
	// Chunks are compressed, written and synced behind the deciding
	// goroutine: waiting for the disk there delayed decisions by up to
	// two seconds on PX4 SITL, whose logger shares the disk. A crash
	// loses the open chunk and any chunk not yet written (none, unless
	// the disk stalls); a stall longer than the pipeline's four chunks
	// holds Write until the disk catches up.
	opts := bag.RecorderOptions{
		Compression: bag.Compression(n.cfg.Recording.Compression),
		ChunkSize:   n.cfg.Recording.ChunkSize,
		// The files of a split recording draw on one set: a switch then
		// adds no compressors while the file left drains.
		Buffers: bag.NewBuffers(),
	}
	first := opts
	first.Metadata = meta
	rec, err := create(path, first)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	n.rec = &recording{rec: rec, path: path, split: splitting{
		create:   create,
		opts:     opts,
		first:    path,
		maxBytes: uint64(n.cfg.Recording.MaxSizeMB) * 1_000_000,
		maxSpan:  uint64(n.cfg.Recording.MaxDurationS) * 1_000_000_000,
		onSplit:  n.recordingSplit,
	}}
	if err := n.run.RegisterEncoded(SinkRecording, n.rec); err != nil {
		_ = n.rec.Close()
		return err
	}
	n.rec.inputs = make([]bag.ChannelID, len(inputs))
	for k, in := range inputs {
		if n.rec.inputs[k], err = n.rec.addChannel(func(r *bag.Recorder) (bag.ChannelID, error) { return addInputChannel(r, in) }); err != nil {
			return fmt.Errorf("recording: %w", err)
		}
	}
	ch, err := n.rec.addChannel(func(r *bag.Recorder) (bag.ChannelID, error) {
		return r.AddMessageChannel(resolved.Decisions(), decisionsType(), n.cfg.QoS[session.KeyDecisions])
	})
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	// Decisions are logged at the arrival time of the input that
	// triggered them, as replay logs them; their publish time is the
	// wall clock's when recorded, for latency. The sink is called with
	// the recording's mutex held (PublishEncoded).
	rc := n.rec
	n.rec.decisions = session.NewRecordingSink(func(t uint64, data []byte) error {
		return rc.writeLocked(ch, t, uint64(n.now().UnixNano()), data)
	}, now)
	return nil
}

// recordingSplit logs that the recording continues in path, or why it could
// not (it then stays in the current file, reported on /diagnostics).
func (n *node) recordingSplit(path string, err error) {
	if err != nil {
		n.splitErr = err
		n.log.Error("cannot continue the recording in a new file: it stays in the current one, beyond recording.max_size_mb or max_duration_s",
			"recording", n.rec.path, "next", path, "err", err)
		return
	}
	n.log.Info("recording continues in a new file", "recording", path)
}

// subscribeInputs subscribes to the inputs the node reads: the configured
// topics, or, with a vehicle source, the vehicle's own topics (publishing
// the beliefs and assessments made from them on the configured ones).
func (n *node) subscribeInputs(tctx context.Context, t transport.Transport, act *acting, inputs, configured []session.InputSpec) error {
	subscribe := func(topic, typ string, profile qos.Profile, kind int, vehicle bool) error {
		h := func(data []byte, recv time.Time) {
			in := input{kind: kind, vehicle: vehicle, data: data, recv: recv, wall: recv}
			if profile.Reliability == qos.ReliabilityBestEffort && !n.waitWhenFull {
				n.queue.offer(n.in, in, topic)
				return
			}
			select {
			case n.in <- in:
			case <-tctx.Done():
			}
		}
		return t.Subscribe(topic, typ, profile, h)
	}
	if n.vehicle == nil {
		for k, in := range inputs {
			if act.ownsInput(in) {
				continue // the node publishes it
			}
			// Subscriptions take the configured name: the transport
			// applies the namespace and remaps as rcl does.
			if err := subscribe(configured[k].Topic, in.Type, in.QoS, k, false); err != nil {
				return fmt.Errorf("subscribe %s: %w", in.Key, err)
			}
		}
	} else {
		// The node publishes the beliefs and assessments it makes on the
		// ghost topics, and reads the vehicle's own.
		for k, in := range inputs {
			if in.Kind == engine.InputPerception || in.Kind == engine.InputParameters || in.Kind == engine.InputLifecycle {
				// Read on their own topics: the perception stage's,
				// and the node's own events below.
				continue
			}
			pub, err := t.Advertise(configured[k].Topic, in.Type, in.QoS)
			if err != nil {
				return fmt.Errorf("advertise %s: %w", in.Key, err)
			}
			n.vehicle.pubs[in.Topic] = pub
		}
		for k, sub := range n.vehicle.subs {
			if err := subscribe(sub.Topic, sub.Type, sub.QoS, k, true); err != nil {
				return fmt.Errorf("subscribe %s: %w", sub.Topic, err)
			}
		}
		for k, in := range inputs {
			if in.Kind == engine.InputParameters || in.Kind == engine.InputLifecycle {
				if err := subscribe(configured[k].Topic, in.Type, in.QoS, k, false); err != nil {
					return fmt.Errorf("subscribe %s: %w", in.Key, err)
				}
			}
		}
	}
	return nil
}

// logReady logs what the node decides on and where it publishes.
func (n *node) logReady(policyID string, inputs []session.InputSpec, resolved session.Topics) {
	attrs := []any{"node", n.cfg.FullyQualifiedName(), "policy", policyID, "input_source", n.cfg.Input.Source}
	if n.middleware != "" {
		attrs = append(attrs, "middleware", n.middleware)
	}
	for _, in := range inputs {
		attrs = append(attrs, in.Key, in.Topic)
	}
	recPath := n.cfg.Recording.Path
	if n.rec != nil {
		recPath = n.rec.path
	}
	attrs = append(attrs, "decisions", resolved.Decisions(), "recording", recPath, "use_sim_time", n.cfg.UseSimTime)
	if n.act != nil {
		// The time the ack, reach and re-command deadlines count in.
		attrs = append(attrs, "action_deadlines", n.cfg.Deadlines().String())
	}
	if n.seal != nil {
		attrs = append(attrs, "seal", resolved.Seal(), "seal_key_id", n.seal.s.KeyID())
	}
	if n.cfg.Lifecycle {
		attrs = append(attrs, "lifecycle", "unconfigured: deciding after configure and activate")
	}
	n.log.Info("decision node ready", attrs...)
	if n.restartedAfter != "" {
		// Logged once /rosout is attached, so the graph sees it too.
		n.log.Warn("decision node restarted: a recording exists at recording.path; it is kept as it is and this run records to a new file",
			"previous", n.restartedAfter, "recording", n.rec.path)
	}
	if n.waitingForClock() {
		n.log.Info("waiting for /clock: nothing is decided until the first message (use_sim_time is true)")
	}
}

// serve handles inputs, ticks and diagnostics until ctx is done (nil) or
// the transport stops (an error wrapping errTransportStopped).
func (n *node) serve(ctx context.Context, transportDone <-chan error, tick, diag, sealTick <-chan time.Time) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-transportDone:
			if err == nil {
				err = errors.New("returned before shutdown")
			}
			return fmt.Errorf("%w: %w", errTransportStopped, err)
		case in := <-n.in:
			n.dispatch(in)
		case t := <-tick:
			n.drain()
			n.checkFreshness(n.now())
			n.checkQueue()
			n.wallTick(t)
		case t := <-diag:
			n.drain()
			n.checkFreshness(n.now())
			n.checkQueue()
			n.publishDiagnostics(t)
		case <-sealTick:
			n.drain()
			n.sealNow(n.now(), false)
		}
	}
}

// drain handles every input already queued. Ticks and reports wait for
// them: select picks among ready channels at random, and a tick overtaking
// an earlier-received belief would make the Loop count that belief's wait
// from the tick's later time.
func (n *node) drain() {
	for {
		select {
		case in := <-n.in:
			n.dispatch(in)
		default:
			return
		}
	}
}

// shutdown runs after the transport stopped delivering: it steps what was
// queued, decides everything pending, publishes, reports and closes sinks.
func (n *node) shutdown() error {
	n.drain()
	now := n.now()
	end := n.endTime(now)
	if n.act != nil {
		// Ending at the last arrival, as a replay of the recording ends,
		// keeps deadlines that only the clock passed from making receipts
		// no replay would make.
		end = n.s.Now()
	}
	n.stepped(n.s.End(end))
	n.sealNow(n.now(), true)
	n.publishDiagnostics(now)
	if err := n.run.Close(); err != nil {
		return fmt.Errorf("close sinks: %w", err)
	}
	c := n.run.Counters()
	n.log.Info("decision node stopped", "decisions", c.DecisionsTotal(), "rejected", c.RejectedTotal(),
		"without_assessment", c.WithoutAssessment)
	return nil
}

// handle records one received message and feeds it to the session.
// dispatch routes a message taken from the transport.
func (n *node) dispatch(in input) {
	n.queue.seen(len(n.in) + 1)
	if in.clock {
		n.handleClock(in)
		return
	}
	if !n.admitTime(&in) {
		return
	}
	if in.vehicle {
		n.handleVehicle(in)
		return
	}
	if in.executor {
		n.handleExecutor(in)
		return
	}
	n.handle(in)
}

func (n *node) handle(in input) {
	n.sealInput(in.kind, in.data, in.recv)
	if n.rec != nil {
		if err := n.rec.input(in.kind, in.data, in.recv, in.wall); err != nil {
			n.recordingFailed(err, "topic", n.inputs[in.kind].Key)
		}
	}
	err := n.s.Feed(n.inputs[in.kind].Topic, in.recv.UnixNano(), in.data)
	if err == nil {
		switch n.inputs[in.kind].Kind {
		case engine.InputBelief:
			n.beliefArrived(n.now(), n.inputs[in.kind].Topic)
		case engine.InputParameters:
			n.parameterEvent(in.data)
		case engine.InputLifecycle:
			n.transitionEvent(in.data)
		}
	}
	if errors.Is(err, session.ErrCorrupt) {
		n.warn("malformed_"+n.inputs[in.kind].Key, "dropped a malformed message", "topic", n.inputs[in.kind].Key,
			"bytes", len(in.data), "err", err)
		return
	}
	n.stepped(err)
}

// recordingFailed counts a message the recording could not take. The
// first failure (a full disk, an I/O error: the recorder stops at its
// first output error) is logged at error level and reported on
// /diagnostics at once; deciding and publishing go on, and the file keeps
// what was written before.
func (n *node) recordingFailed(err error, args ...any) {
	n.stats.recordingFailures++
	if n.recFailed {
		n.warn("recording_input", "cannot record an input", append(args, "err", err)...)
		return
	}
	n.recFailed = true
	n.log.Error("recording failed: deciding and publishing go on unrecorded; the file keeps what was written before and verifies up to there",
		append(args, "recording", n.rec.path, "err", err)...)
	n.publishDiagnostics(n.now())
}

// stepped logs the outcome of one session step: the inputs it rejected (at
// debug level; diagnostics count them), a refused step, undelivered
// decisions.
func (n *node) stepped(err error) {
	for _, r := range n.s.LastOutput().Rejections {
		n.log.Debug("input rejected", "reason", r.Reason.String(), "stamp", r.Stamp, "detail", r.Detail)
	}
	switch {
	case err == nil:
	case errors.Is(err, engine.ErrDecide):
		n.warn("step", "input not processed", "err", err)
	default:
		n.warn("publish", "decision not delivered everywhere", "err", err)
	}
}

// warn logs at warning level, at most once per diagnostics period for each
// key, so a failing disk or a stream of garbage cannot flood the log;
// diagnostics carry the counts.
func (n *node) warn(key, msg string, args ...any) {
	now := n.now()
	if last, ok := n.warned[key]; ok && now.Sub(last) < n.cfg.DiagnosticsPeriod {
		n.log.Debug(msg, args...)
		return
	}
	n.warned[key] = now
	n.log.Warn(msg, args...)
}
