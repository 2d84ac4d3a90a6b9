package audit

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Source yields serialized messages in arrival (log-time) order; Next
// returns io.EOF at the end. A *bag.Reader is a Source, and so is the
// simulated vehicle.
type Source interface {
	Next() (bag.Message, error)
}

// Progress reports how far a replay or verification has come.
type Progress struct {
	// Messages read so far.
	Messages uint64
	// Total messages expected, 0 when unknown.
	Total uint64
	// LogTimeNs of the last message read.
	LogTimeNs int64
	// Decisions published (replay) or audited (verify) so far.
	Decisions uint64
	// Done is set on the last report.
	Done bool
}

// SchemaSource is a Source that knows its channels' schemas (a
// *bag.Reader): replay copies messages of types other than ghost's with
// the schema the input recorded.
type SchemaSource interface {
	Source
	Channels() []bag.Channel
}

// Recorder is where Replay writes: a *bag.Recorder, or a seal.Recorder
// that seals what is written through it.
type Recorder interface {
	AddChannel(topic, schemaName, schemaText string, profiles ...qos.Profile) (bag.ChannelID, error)
	AddMessageChannel(topic, msgType string, profiles ...qos.Profile) (bag.ChannelID, error)
	Write(ch bag.ChannelID, logTime, publishTime uint64, data []byte) error
	Compression() bag.Compression
}

// copyChannel declares the output channel of an input message's topic:
// ghost types with their compiled-in definitions, others with the schema
// the source recorded (and its QoS profiles).
func copyChannel(out Recorder, src Source, m *bag.Message) (bag.ChannelID, error) {
	if ss, ok := src.(SchemaSource); ok {
		for _, c := range ss.Channels() {
			if c.ID != m.ChannelID || c.Topic != m.Topic {
				continue
			}
			if _, err := msg.Definition(m.SchemaName); err == nil {
				break // a ghost type: the compiled-in definition below
			}
			profiles := c.QoS
			if len(profiles) == 0 {
				profiles = []qos.Profile{qos.DefaultInput()}
			}
			return out.AddChannel(m.Topic, c.SchemaName, c.SchemaText, profiles...)
		}
	}
	return out.AddMessageChannel(m.Topic, m.SchemaName, qos.DefaultInput())
}

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// Session configures the inputs and the Loop.
	Session session.SessionOptions
	// DecisionsTopic is the topic decisions are written to, and the one whose
	// earlier decisions are dropped from the input. Default "/decisions".
	DecisionsTopic string
	// ActionsTopic is the topic action receipts are written to, and the
	// one whose earlier receipts are dropped from the input. Default
	// "/decisions/actions".
	ActionsTopic string
	// SealTopic is the topic of the input's seals, which are dropped: they
	// vouch for what the input's recorder wrote, not for this replay's
	// output (a seal.Recorder seals that). Default "/decisions/seal".
	SealTopic string
	// Total is the number of messages the source will yield, for progress
	// reports; 0 when unknown.
	Total uint64
	// ProgressEvery is the number of messages between progress reports;
	// default 65536.
	ProgressEvery uint64
	// OnProgress, if set, receives progress reports.
	OnProgress func(Progress)
	// OnCorrupt, if set, is called for every message that does not decode
	// (a *CorruptError naming the topic and byte offset, wrapped with the
	// message's log time and sequence); the message is skipped and counted.
	OnCorrupt func(error)
	// OnStepFailure, if set, is called when the policy fails on a context;
	// that step changes nothing and the replay goes on.
	OnStepFailure func(error)
	// Stop, if set, ends the replay early when it is closed: no message is
	// read after the one being processed, everything pending is decided
	// (as at the end of the source) and the result says Stopped.
	Stop <-chan struct{}

	// readAhead, for tests, overrides whether a goroutine of its own reads
	// and decodes ahead: 1 always, -1 never, 0 as the cores allow.
	readAhead int8
}

// ReplayResult is what a replay did.
type ReplayResult struct {
	// Messages read from the source, of every topic.
	Messages uint64
	// Counters are the Runner's counters at the end.
	Counters session.Counters
	// Stats are the session's input counters at the end.
	Stats session.SessionStats
	// Truncated is the source's error when it stopped before its end
	// (a *bag.TruncatedError for a damaged recording); nil when the
	// whole source was read.
	Truncated error
	// Stopped is set when ReplayOptions.Stop ended the replay before the
	// source's end; Messages says how far it came.
	Stopped bool
}

// Replay drives every message of src through a fresh Session and writes a
// recording to out: the input messages as they were (same topics, log and
// publish times) and the decisions on the decisions topic. Decisions are
// logged at the arrival time of the input that triggered them, so the same
// input gives the same output bytes.
//
// A damaged source is read up to the damage: everything pending is decided,
// the output is completed, and the result's Truncated holds the error (also
// returned, wrapped). Corrupt messages are skipped and counted. A closed
// Stop ends it the same way, without an error. Out is not
// closed; the caller closes it (after Replay returns) to complete the file.
func Replay(src Source, out Recorder, opts ReplayOptions) (*ReplayResult, error) {
	r, err := newReplayer(src, out, opts)
	if err != nil {
		return nil, err
	}
	p := &pipeline{
		inputs: r.s.Inputs(),
		step:   r.step,
		// Without a core to spare (readsAhead), this goroutine reads,
		// decodes and decides each message in turn.
		readAhead: opts.readAhead > 0 || opts.readAhead == 0 && readsAhead(out.Compression(), runtime.GOMAXPROCS(0)),
		stop:      opts.Stop,
		every:     opts.ProgressEvery,
		progress:  func(n uint64) { r.res.Messages = n; r.report(false) },
	}
	srcErr, err := p.run(src)
	r.res.Messages, r.res.Stopped = p.messages, p.stopped
	switch {
	case err != nil:
		return r.res, err
	case srcErr == nil, errors.Is(srcErr, io.EOF):
		return r.res, r.finish()
	}
	r.res.Truncated = srcErr
	if ferr := r.finish(); ferr != nil {
		return r.res, errors.Join(srcErr, ferr)
	}
	return r.res, fmt.Errorf("replay: input read up to the damage: %w", srcErr)
}

// replayer is the output side of a replay: the Session, the recording it
// writes and the result.
type replayer struct {
	opts                                  ReplayOptions
	src                                   Source
	out                                   Recorder
	s                                     *session.Session
	res                                   *ReplayResult
	decisionsT, actionsT, sealT, evidence string
	inputs                                map[string]bag.ChannelID // output channels by topic
	evBuf                                 []byte
	// pump is recordEvidence as a func value, made once: a method value
	// made per message would be an allocation per message.
	pump func(engine.EvidenceEvent) error
}

// newReplayer checks the topics and declares the output's decision and
// receipt channels, with the sinks that write them.
func newReplayer(src Source, out Recorder, opts ReplayOptions) (*replayer, error) {
	s, err := session.NewSession(opts.Session)
	if err != nil {
		return nil, err
	}
	r := &replayer{opts: opts, src: src, out: out, s: s, res: &ReplayResult{}, inputs: map[string]bag.ChannelID{},
		decisionsT: cmp.Or(opts.DecisionsTopic, session.DefaultTopics().Decisions()),
		actionsT:   cmp.Or(opts.ActionsTopic, session.DefaultTopics().Actions()),
		sealT:      cmp.Or(opts.SealTopic, seal.DefaultTopic)}
	if err := session.CheckTopics(s.Inputs(), session.Topics{session.KeyDecisions: r.decisionsT, session.KeyActions: r.actionsT}); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	decCh, err := out.AddMessageChannel(r.decisionsT, "DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	actCh, err := out.AddMessageChannel(r.actionsT, "ActionReceipt", qos.DefaultDecisions())
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	sink := session.NewRecordingSink(func(t uint64, data []byte) error { return out.Write(decCh, t, t, data) }, s.Now)
	if err := s.Runner().RegisterEncoded("recording", sink); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	asink := session.NewRecordingActionSink(func(t uint64, data []byte) error { return out.Write(actCh, t, t, data) })
	if err := s.Runner().RegisterActionSink("recording", asink); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for _, in := range s.Inputs() {
		if in.Kind == engine.InputEvidence {
			r.evidence = in.Topic
		}
	}
	r.pump = r.recordEvidence
	return r, nil
}

// recordEvidence records evidence the executors deliver (the simulated
// vehicle's answers) as the evidence input, exactly as a replay of this
// output will read it.
func (r *replayer) recordEvidence(ev engine.EvidenceEvent) error {
	if r.evidence == "" {
		return nil
	}
	ch, ok := r.inputs[r.evidence]
	if !ok {
		var err error
		if ch, err = r.out.AddMessageChannel(r.evidence, "ActionEvidence", qos.DefaultInput()); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		r.inputs[r.evidence] = ch
	}
	m := session.EvidenceMessage(ev)
	var err error
	if r.evBuf, err = m.AppendCDR(r.evBuf[:0]); err != nil {
		return fmt.Errorf("replay: encode evidence at %d: %w", ev.ArrivalNs, err)
	}
	t := uint64(ev.ArrivalNs)
	return r.out.Write(ch, t, t, r.evBuf)
}

// step handles one message: copied to the output unless it is a decision,
// receipt or seal this replay replaces, then applied to the session.
func (r *replayer) step(m *bag.Message, in *decoded) error {
	if m.Topic == r.decisionsT || m.Topic == r.actionsT || m.Topic == r.sealT {
		return nil // earlier decisions, receipts and seals are replaced by this replay's
	}
	if err := r.s.Pump(int64(m.LogTime), r.pump); err != nil {
		return fmt.Errorf("replay: evidence before %s message %d: %w", m.Topic, m.Sequence, err)
	}
	ch, ok := r.inputs[m.Topic]
	if !ok {
		var err error
		if ch, err = copyChannel(r.out, r.src, m); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		r.inputs[m.Topic] = ch
	}
	if err := r.out.Write(ch, m.LogTime, m.PublishTime, m.Data); err != nil {
		return fmt.Errorf("replay: copy %s message %d: %w", m.Topic, m.Sequence, err)
	}
	if err := r.s.ApplyDecoded(m.Topic, &in.ev, in.err); err != nil {
		switch {
		case errors.Is(err, session.ErrCorrupt):
			if r.opts.OnCorrupt != nil {
				r.opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, err))
			}
		case errors.Is(err, engine.ErrDecide):
			if r.opts.OnStepFailure != nil {
				r.opts.OnStepFailure(err)
			}
		default:
			return fmt.Errorf("replay: %s message %d: %w", m.Topic, m.Sequence, err)
		}
	}
	return nil
}

func (r *replayer) report(done bool) {
	if r.opts.OnProgress != nil {
		c := r.s.Runner().Counters()
		r.opts.OnProgress(Progress{Messages: r.res.Messages, Total: r.opts.Total, LogTimeNs: r.s.Now(),
			Decisions: c.DecisionsTotal(), Done: done})
	}
}

// finish decides everything pending, closes the sinks and reports.
func (r *replayer) finish() error {
	err := r.s.End(r.s.Now())
	if err != nil && r.opts.OnStepFailure != nil {
		r.opts.OnStepFailure(err)
	}
	if cerr := r.s.Runner().Close(); cerr != nil {
		return fmt.Errorf("replay: close sinks: %w", cerr)
	}
	r.res.Counters, r.res.Stats = r.s.Runner().Counters(), r.s.Stats()
	r.report(true)
	return nil
}

// readsAhead reports whether a replay writing with compression on procs
// cores reads and decodes on a goroutine of its own, ahead of the Loop.
// That buys wall time only where a core is free for it, and a zstd
// Recorder's lanes keep about one busy: on 2 cores, reading on the Loop's
// goroutine instead takes as long for less CPU and peak memory (the
// hand-over between cores costs the rest); with lz4 or no compression,
// reading ahead shortens the wall time for the same CPU (BENCHMARKS.md,
// eighth round).
func readsAhead(compression bag.Compression, procs int) bool {
	busy := 1 // the Loop's goroutine
	if compression == bag.CompressionZstd {
		busy++
	}
	return procs > busy
}
