package session

import (
	"errors"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// ErrCorrupt is matched by the error Feed returns for a message that does
// not decode; the message is skipped and counted, the session goes on.
var ErrCorrupt = errors.New("corrupt message")

// CorruptError names the topic and what did not decode.
type CorruptError struct {
	Topic string
	// Offset is the byte offset in the message where decoding failed, -1
	// when the failure is not positional.
	Offset int
	Err    error
}

func (e *CorruptError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s: corrupt message at byte %d: %v", e.Topic, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: corrupt message: %v", e.Topic, e.Err)
}

// Is makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the decoder's error.
func (e *CorruptError) Unwrap() error { return e.Err }

// InputStats count the messages of one input.
type InputStats struct {
	// Key is the input's InputSpec.Key.
	Key string
	// Messages counts every message on the input's topic; Corrupt those
	// that did not decode.
	Messages, Corrupt uint64
}

// SessionStats count what a session was fed, beyond the Runner's counters.
type SessionStats struct {
	// Inputs count each input's messages, in the order of the session's
	// InputSpecs.
	Inputs []InputStats
	// OtherTopics counts messages on topics the session does not read.
	OtherTopics uint64
	// StepFailures counts steps the Loop refused (policy errors); the
	// session is unchanged by each.
	StepFailures uint64
	// EvidenceRejected counts evidence batches that broke provenance.
	EvidenceRejected uint64
	// Inactive counts input messages ignored while the lifecycle was not
	// active (SessionOptions.Lifecycle).
	Inactive uint64
}

// Corrupt returns the total of corrupt messages.
func (s SessionStats) Corrupt() uint64 {
	var n uint64
	for _, in := range s.Inputs {
		n += in.Corrupt
	}
	return n
}

// Input returns the counts of the input with key, zero when there is none.
func (s SessionStats) Input(key string) InputStats {
	for _, in := range s.Inputs {
		if in.Key == key {
			return in
		}
	}
	return InputStats{Key: key}
}

// SessionOptions configure a Session.
type SessionOptions struct {
	// Inputs are the inputs with their topics (default DefaultInputs());
	// the session reads Enabled(Inputs).
	Inputs []InputSpec
	// Loop configures the Loop (its Policy is also the Runner's expected
	// policy). When Executors or Enable is set, its Actions.Routes are
	// derived from them.
	Loop engine.LoopOptions
	// Executors are registered with the Runner, in order; none by default,
	// so every decision is advisory.
	Executors []Executor
	// Enable lists the kinds the operator enabled; a kind with an executor
	// that is not listed fails as blocked_by_policy. engage_kill is enabled
	// only when listed itself.
	Enable []decisions.Kind
	// TargetVehicle is the vehicle the executors command (PX4: MAV_SYS_ID).
	TargetVehicle uint32
	// Lifecycle makes the session managed: it starts inactive and follows
	// the transition events input (LifecycleEvent); while not active it
	// ignores (and counts) every other input and lets no time pass, so
	// nothing is decided or executed. Without it the session is always
	// active and ignores transition events.
	Lifecycle bool
	// LifecycleFromEvents, without Lifecycle, makes the session managed
	// from the first transition event on: active until then, it follows
	// the events after it. It is for replay and verify, whose recording
	// says whether the node was managed (only a managed node publishes on
	// its transition event topic); a live node never sets it, so that no
	// other publisher can stop it.
	LifecycleFromEvents bool
}

// Session drives serialized messages through the whole decision path:
// decode (CDR), convert, Loop.Step, Runner. It is the common core of the live
// node, replay and the simulator, so all three decide identically. Sinks are
// registered on Runner(). It is not safe for concurrent use, except
// Runner().Counters().
type Session struct {
	inputs []InputSpec
	loop   *engine.Loop
	runner *Runner
	out    engine.Output
	now    int64
	stats  SessionStats

	dec *Decoder
	// lifecycle: the session follows transition events; active: it
	// decides (always, without lifecycle).
	lifecycle, active bool
	fromEvents        bool

	pumpScratch []engine.EvidenceEvent
	// scratch and decoded hold the message being fed: the Loop copies what
	// it keeps, so one message's storage serves the next.
	scratch Scratch
	decoded Decoded
}

// NewSession builds the Runner, registers the executors with it, then
// builds the Loop once, with the routes they serve (opts.Loop's own routes
// when there are no executors and nothing is enabled).
func NewSession(opts SessionOptions) (*Session, error) {
	if opts.Inputs == nil {
		opts.Inputs = DefaultInputs()
	}
	if err := CheckTopics(opts.Inputs, nil); err != nil {
		return nil, err
	}
	opts.Inputs = Enabled(opts.Inputs)
	st := SessionStats{Inputs: make([]InputStats, len(opts.Inputs))}
	for i, in := range opts.Inputs {
		st.Inputs[i].Key = in.Key
	}
	s := &Session{
		inputs: append([]InputSpec(nil), opts.Inputs...),
		stats:  st,
		dec:    NewDecoder(opts.Inputs),

		lifecycle:  opts.Lifecycle,
		active:     !opts.Lifecycle,
		fromEvents: opts.LifecycleFromEvents,
	}
	s.runner = NewRunner(RunnerOptions{TargetVehicle: opts.TargetVehicle, Clock: s.Now})
	lo := opts.Loop
	if len(opts.Executors) > 0 || len(opts.Enable) > 0 {
		for _, e := range opts.Executors {
			if err := s.runner.RegisterExecutor(e); err != nil {
				return nil, err
			}
		}
		routes, err := s.runner.Routes(opts.Enable)
		if err != nil {
			return nil, err
		}
		lo.Actions.Routes = routes
	}
	loop, err := engine.NewLoop(lo)
	if err != nil {
		return nil, err
	}
	s.loop = loop
	// The Runner publishes only what this Loop's policy decides.
	s.runner.expectPolicy(loop.PolicyID())
	return s, nil
}

// Runner returns the session's Runner, to register sinks and read counters.
func (s *Session) Runner() *Runner { return s.runner }

// Loop returns the session's Loop, for its sizes.
func (s *Session) Loop() *engine.Loop { return s.loop }

// Inputs returns the session's enabled inputs (Enabled of its options').
func (s *Session) Inputs() []InputSpec { return s.inputs }

// Now returns the newest arrival time fed, in ns: the log time of the
// decisions the current step publishes.
func (s *Session) Now() int64 { return s.now }

// LastOutput is what the last step produced (rejections, duplicates,
// commands), valid until the next step.
func (s *Session) LastOutput() *engine.Output { return &s.out }

// Stats returns what the session was fed.
func (s *Session) Stats() SessionStats {
	st := s.stats
	st.Inputs = append([]InputStats(nil), s.stats.Inputs...)
	return st
}

// Feed decodes one serialized message that arrived at arrivalNs on topic and
// steps the Loop with it. A message that does not decode returns a
// *CorruptError and changes nothing else; a message on another topic is
// counted and ignored. Decisions the step makes are published to the sinks
// before Feed returns.
func (s *Session) Feed(topic string, arrivalNs int64, data []byte) error {
	s.scratch.Reset()
	err := s.dec.DecodeInto(topic, arrivalNs, data, &s.scratch, &s.decoded)
	return s.ApplyDecoded(topic, &s.decoded, err)
}

// ApplyDecoded is Apply with an event a Decoder's DecodeInto made; the
// event is stepped by value, never boxed.
func (s *Session) ApplyDecoded(topic string, d *Decoded, decodeErr error) error {
	switch d.kind {
	case decodedBelief:
		return s.Apply(topic, d.belief, decodeErr)
	case decodedAssessment:
		return s.Apply(topic, d.assessment, decodeErr)
	case decodedPerception:
		return s.Apply(topic, d.perception, decodeErr)
	case decodedOther:
		return s.Apply(topic, d.other, decodeErr)
	}
	return s.Apply(topic, nil, decodeErr)
}

// Apply steps the Loop with an event a Decoder (with the session's topics)
// made of a message on topic, possibly on another goroutine; decodeErr is
// the Decoder's error. It counts the message as Feed does.
func (s *Session) Apply(topic string, ev engine.Event, decodeErr error) error {
	i := 0
	for i < len(s.inputs) && s.inputs[i].Topic != topic {
		i++
	}
	if i == len(s.inputs) {
		s.stats.OtherTopics++
		return nil
	}
	in := &s.stats.Inputs[i]
	in.Messages++
	if decodeErr != nil {
		in.Corrupt++
		return decodeErr
	}
	if le, ok := ev.(engine.LifecycleEvent); ok {
		if s.lifecycle || s.fromEvents {
			s.lifecycle = true
			s.active = le.Active()
		}
		return nil
	}
	if !s.active {
		s.stats.Inactive++
		return nil
	}
	if s.inputs[i].ChainOnly || ev == nil {
		return nil
	}
	return s.Step(ev)
}

// Active reports whether the session decides: always without
// SessionOptions.Lifecycle, else while the lifecycle is active.
func (s *Session) Active() bool { return s.active }

// Tick lets time pass without input, so beliefs reach their timeout; not
// while inactive.
func (s *Session) Tick(arrivalNs int64) error {
	if !s.active {
		return nil
	}
	return s.Step(engine.TickEvent{ArrivalNs: arrivalNs})
}

// End decides everything pending (the stream is over); while inactive,
// nothing.
func (s *Session) End(arrivalNs int64) error {
	if !s.active {
		return nil
	}
	return s.Step(engine.EndEvent{ArrivalNs: arrivalNs})
}

// Step feeds one already-decoded event. An evidence batch goes through the
// Runner's provenance check first: the Loop then sees only its admitted
// items (none when it was rejected or only repeated; the step still lets
// time pass).
func (s *Session) Step(ev engine.Event) error {
	if t, _ := engine.ArrivalOf(ev); t > s.now {
		s.now = t
	}
	var admitErr error
	if e, ok := ev.(engine.EvidenceEvent); ok {
		items, err := s.runner.AdmitEvidence(e)
		var pe *engine.ProvenanceError
		if errors.As(err, &pe) {
			s.stats.EvidenceRejected++
			err = nil // counted and recorded; the session goes on
		}
		admitErr = err
		ev = engine.EvidenceEvent{ArrivalNs: e.ArrivalNs, Items: items}
	}
	if err := s.loop.Step(ev, &s.out); err != nil {
		s.stats.StepFailures++
		return err
	}
	return errors.Join(admitErr, s.runner.Handle(&s.out))
}

// Pump delivers the evidence the executors polled up to upToNs (in arrival
// order, executors in registration order at equal times): each batch is
// given to record (to publish or record it as the evidence input), then
// stepped. Replay and the simulator call it before each input message, the
// live node when its executors' subscriptions deliver.
func (s *Session) Pump(upToNs int64, record func(engine.EvidenceEvent) error) error {
	batches := s.pumpScratch[:0]
	for _, e := range s.runner.executors {
		if p, ok := e.(EvidencePoller); ok {
			batches = append(batches, p.Poll(upToNs)...)
		}
	}
	mergeEvidence(batches)
	s.pumpScratch = batches
	var errs []error
	for _, b := range batches {
		if record != nil {
			if err := record(b); err != nil {
				return errors.Join(append(errs, err)...)
			}
		}
		if err := s.Step(b); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
