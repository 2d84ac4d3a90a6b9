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
	"github.com/ghost-robotics/ghost/pkg/ros2/qos"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
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
	s, err := session.NewSession(opts.Session)
	if err != nil {
		return nil, err
	}
	decisionsTopic := opts.DecisionsTopic
	if decisionsTopic == "" {
		decisionsTopic = session.DefaultTopics().Decisions()
	}
	if err := session.CheckTopics(s.Inputs(), session.Topics{session.KeyDecisions: decisionsTopic}); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	actionsTopic := opts.ActionsTopic
	if actionsTopic == "" {
		actionsTopic = session.DefaultTopics().Actions()
	}
	if err := session.CheckTopics(s.Inputs(), session.Topics{session.KeyDecisions: decisionsTopic, session.KeyActions: actionsTopic}); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	sealTopic := cmp.Or(opts.SealTopic, seal.DefaultTopic)
	decCh, err := out.AddMessageChannel(decisionsTopic, "DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	actCh, err := out.AddMessageChannel(actionsTopic, "ActionReceipt", qos.DefaultDecisions())
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	sink := session.NewRecordingSink(func(t uint64, data []byte) error { return out.Write(decCh, t, t, data) }, s.Now)
	if err := s.Runner().Register("recording", sink); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	asink := session.NewRecordingActionSink(func(t uint64, data []byte) error { return out.Write(actCh, t, t, data) })
	if err := s.Runner().RegisterActionSink("recording", asink); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	every := opts.ProgressEvery
	if every == 0 {
		every = 65536
	}
	res := &ReplayResult{}
	inputs := map[string]bag.ChannelID{}
	// Evidence the executors deliver (the simulated vehicle's answers) is
	// recorded as the evidence input, exactly as a replay of this output
	// will read it.
	evidenceTopic := ""
	for _, in := range s.Inputs() {
		if in.Kind == engine.InputEvidence {
			evidenceTopic = in.Topic
		}
	}
	var evBuf []byte
	recordEvidence := func(ev engine.EvidenceEvent) error {
		if evidenceTopic == "" {
			return nil
		}
		ch, ok := inputs[evidenceTopic]
		if !ok {
			var err error
			if ch, err = out.AddMessageChannel(evidenceTopic, "ActionEvidence", qos.DefaultInput()); err != nil {
				return fmt.Errorf("replay: %w", err)
			}
			inputs[evidenceTopic] = ch
		}
		m := session.EvidenceMessage(ev)
		var err error
		if evBuf, err = m.AppendCDR(evBuf[:0]); err != nil {
			return fmt.Errorf("replay: encode evidence at %d: %w", ev.ArrivalNs, err)
		}
		t := uint64(ev.ArrivalNs)
		return out.Write(ch, t, t, evBuf)
	}
	report := func(done bool) {
		if opts.OnProgress != nil {
			c := s.Runner().Counters()
			opts.OnProgress(Progress{Messages: res.Messages, Total: opts.Total, LogTimeNs: s.Now(),
				Decisions: c.DecisionsTotal(), Done: done})
		}
	}
	finish := func() error {
		err := s.End(s.Now())
		if err != nil && opts.OnStepFailure != nil {
			opts.OnStepFailure(err)
		}
		if cerr := s.Runner().Close(); cerr != nil {
			return fmt.Errorf("replay: close sinks: %w", cerr)
		}
		res.Counters, res.Stats = s.Runner().Counters(), s.Stats()
		report(true)
		return nil
	}
	type decodedInput struct {
		ev  session.Decoded
		err error
	}
	// step handles one message: copied to the output unless it is a
	// decision or receipt this replay replaces, then applied to the
	// session.
	step := func(m *bag.Message, in *decodedInput) error {
		res.Messages++
		if m.Topic == decisionsTopic || m.Topic == actionsTopic || m.Topic == sealTopic {
			return nil // earlier decisions, receipts and seals are replaced by this replay's
		}
		if err := s.Pump(int64(m.LogTime), recordEvidence); err != nil {
			return fmt.Errorf("replay: evidence before %s message %d: %w", m.Topic, m.Sequence, err)
		}
		ch, ok := inputs[m.Topic]
		if !ok {
			var err error
			ch, err = copyChannel(out, src, m)
			if err != nil {
				return fmt.Errorf("replay: %w", err)
			}
			inputs[m.Topic] = ch
		}
		if err := out.Write(ch, m.LogTime, m.PublishTime, m.Data); err != nil {
			return fmt.Errorf("replay: copy %s message %d: %w", m.Topic, m.Sequence, err)
		}
		if err := s.ApplyDecoded(m.Topic, &in.ev, in.err); err != nil {
			switch {
			case errors.Is(err, session.ErrCorrupt):
				if opts.OnCorrupt != nil {
					opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, err))
				}
			case errors.Is(err, engine.ErrDecide):
				if opts.OnStepFailure != nil {
					opts.OnStepFailure(err)
				}
			default:
				return fmt.Errorf("replay: %s message %d: %w", m.Topic, m.Sequence, err)
			}
		}
		if res.Messages%every == 0 {
			report(false)
		}
		return nil
	}
	end := func(srcErr error) (*ReplayResult, error) {
		if errors.Is(srcErr, io.EOF) {
			return res, finish()
		}
		res.Truncated = srcErr
		if ferr := finish(); ferr != nil {
			return res, errors.Join(srcErr, ferr)
		}
		return res, fmt.Errorf("replay: input read up to the damage: %w", srcErr)
	}
	stopped := func() bool {
		select {
		case <-opts.Stop:
			res.Stopped = true
			return true
		default:
			return false
		}
	}
	// Beliefs' covariances are drawn from a pool and donated to the Loop,
	// which keeps them without a copy.
	var covs engine.CovariancePool
	newDecode := func() func(*bag.Message, *decodedInput) {
		dec := session.NewDecoder(s.Inputs())
		var sc session.Scratch
		sc.DrawFrom(&covs)
		return func(m *bag.Message, d *decodedInput) {
			d.err = dec.DecodeInto(m.Topic, int64(m.LogTime), m.Data, &sc, &d.ev)
		}
	}
	// Without a core to spare (readsAhead), this goroutine reads, decodes
	// and decides each message in turn.
	ahead := opts.readAhead > 0 || opts.readAhead == 0 && readsAhead(out.Compression(), runtime.GOMAXPROCS(0))
	if !ahead {
		decode := newDecode()
		var in decodedInput
		for {
			if stopped() {
				return res, finish()
			}
			m, err := src.Next()
			if err != nil {
				return end(err)
			}
			decode(&m, &in)
			if err := step(&m, &in); err != nil {
				return res, err
			}
		}
	}
	pf := startPrefetchInto(src, 0, newDecode)
	defer pf.stop()
	for {
		b, ok := pf.next()
		if !ok {
			return res, finish() // unreachable: the last batch carries the source's end
		}
		for i := range b.items {
			if stopped() {
				pf.release(b)
				return res, finish()
			}
			if err := step(&b.items[i].msg, &b.items[i].val); err != nil {
				return res, err
			}
		}
		srcErr := b.err
		pf.release(b)
		if srcErr != nil {
			return end(srcErr)
		}
	}
}

// readsAhead reports whether a replay writing with compression on procs
// cores reads and decodes on a goroutine of its own, ahead of the Loop.
// That buys wall time only where a core is free for it, and a zstd
// Recorder's lanes keep about one busy: on 2 cores, reading on the Loop's
// goroutine instead takes as long, with 7 % less CPU and 8 % less peak
// memory (the hand-over between cores costs the rest); with lz4 or no
// compression, reading ahead shortens the wall time by about a tenth for
// the same CPU.
func readsAhead(compression bag.Compression, procs int) bool {
	busy := 1 // the Loop's goroutine
	if compression == bag.CompressionZstd {
		busy++
	}
	return procs > busy
}
