package audit

import (
	"errors"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// RedecideOptions configure Redecide.
type RedecideOptions struct {
	// Session is the session configuration every policy re-decides the
	// recording with (its inputs, timeouts and executors); the Loop's
	// Policy is ignored: see Policies.
	Session session.SessionOptions
	// Policies re-decide the recording, each in a Session of its own, fed
	// the same decoded inputs. At least one.
	Policies []decisions.Policy
	// DecisionsTopic, when set, is the topic of the recorded decisions: each
	// is decoded with Format and handed to OnRecorded. Empty reads none (a
	// source that holds no decisions).
	DecisionsTopic string
	// Format decodes the recorded decisions; default CDRFormat().
	Format Format
	// OnRecorded receives each recorded decision on DecisionsTopic, in read
	// order; err says why it did not decode or is not valid (r is then
	// nil). The rationale is valid only for the call.
	OnRecorded func(logNs int64, r *decisions.Rationale, err error)
	// OnDecided receives the rationale of each decision the Session of
	// Policies[policy] makes, in the order made (increasing stamps).
	OnDecided func(policy int, r decisions.Rationale)
	// OnCorrupt, if set, is called for every input message that does not
	// decode; it is skipped and counted.
	OnCorrupt func(error)
	// Total is the number of messages the source will yield, 0 when
	// unknown; with DecodeWorkers it decides whether workers decode, as in
	// VerifyOptions.
	Total uint64
	// DecodeWorkers is as in VerifyOptions: zero, one per spare core (at
	// most MaxDecodeWorkers); negative, none (the least CPU, as suits
	// several recordings re-decided side by side).
	DecodeWorkers int
}

// RedecideResult is what a re-decision read and made.
type RedecideResult struct {
	// Messages read from the source, of every topic.
	Messages uint64
	// Stats are the input counters of the first policy's Session (every
	// Session is fed the same).
	Stats session.SessionStats
	// Counters are each policy's Runner counters at the end, in the order
	// of Policies.
	Counters []session.Counters
	// Recorded is the number of messages on the decisions topic.
	Recorded uint64
}

// Redecide drives the inputs of src (messages in log-time order) through
// one Session per policy, as replay does (log times as arrival times, the
// same decoding, joins and Loop), and hands every re-decision to
// OnDecided and every recorded decision to OnRecorded, in read order:
// the one pipeline of replay and verify, for comparisons of policies on
// the same recording. It writes nothing and judges nothing.
//
// A damaged source is re-decided up to the damage: everything pending is
// decided, and the result is returned with an *IncompleteReadError.
func Redecide(src Source, opts RedecideOptions) (*RedecideResult, error) {
	if len(opts.Policies) == 0 {
		return nil, errors.New("redecide: no policy")
	}
	if opts.Session.Inputs == nil {
		opts.Session.Inputs = session.DefaultInputs()
	}
	if opts.DecisionsTopic != "" {
		if err := session.CheckTopics(opts.Session.Inputs, session.Topics{session.KeyDecisions: opts.DecisionsTopic}); err != nil {
			return nil, fmt.Errorf("redecide: %w", err)
		}
	}
	opts.Session.Inputs = session.Enabled(opts.Session.Inputs)
	if opts.Format.NewDecodeDecision == nil {
		opts.Format = CDRFormat()
	}
	r := &redecider{opts: opts, res: &RedecideResult{}}
	for i, p := range opts.Policies {
		so := opts.Session
		so.Loop.Policy = p
		s, err := session.NewSession(so)
		if err != nil {
			return nil, fmt.Errorf("redecide: policy %s: %w", p.ID(), err)
		}
		if opts.OnDecided != nil {
			i := i
			err = s.Runner().Register("redecide", session.FuncSink(func(cmd engine.Command) error {
				opts.OnDecided(i, cmd.Rationale)
				return nil
			}))
			if err != nil {
				return nil, fmt.Errorf("redecide: %w", err)
			}
		}
		r.sessions = append(r.sessions, s)
	}
	workers := (&VerifyOptions{DecodeWorkers: opts.DecodeWorkers, Total: opts.Total}).decodeWorkers()
	p := &pipeline{
		inputs:         opts.Session.Inputs,
		newDecodeOther: r.newDecodeOther,
		step:           r.step,
		readAhead:      workers > 0,
		workers:        workers,
	}
	srcErr, _ := p.run(src) // step returns no error
	r.res.Messages = p.messages
	for _, s := range r.sessions {
		// A policy failing on the last contexts is counted by its Runner.
		_ = s.End(s.Now())
		r.res.Counters = append(r.res.Counters, s.Runner().Counters())
	}
	r.res.Stats = r.sessions[0].Stats()
	if srcErr == nil || errors.Is(srcErr, io.EOF) {
		return r.res, nil
	}
	return r.res, &IncompleteReadError{Err: srcErr}
}

// redecider is the step of Redecide: inputs to every Session, recorded
// decisions to the caller.
type redecider struct {
	opts     RedecideOptions
	sessions []*session.Session
	res      *RedecideResult
}

// newDecodeOther decodes the recorded decisions, on whichever goroutine
// decodes.
func (r *redecider) newDecodeOther() func(*bag.Message, *decoded) bool {
	if r.opts.DecisionsTopic == "" {
		return func(*bag.Message, *decoded) bool { return false }
	}
	decode := r.opts.Format.NewDecodeDecision()
	return func(m *bag.Message, d *decoded) bool {
		if m.Topic != r.opts.DecisionsTopic {
			return false
		}
		if !r.isRationaleSchema(m.SchemaName) {
			d.err = fmt.Errorf("schema %q is not a decision rationale", m.SchemaName)
			return true
		}
		if d.r, d.err = decode(m.Data); d.err == nil {
			d.err = d.r.Validate()
		}
		return true
	}
}

func (r *redecider) isRationaleSchema(name string) bool {
	for _, s := range r.opts.Format.DecisionSchemas {
		if name == s {
			return true
		}
	}
	return false
}

func (r *redecider) step(m *bag.Message, d *decoded) error {
	if r.opts.DecisionsTopic != "" && m.Topic == r.opts.DecisionsTopic {
		r.res.Recorded++
		if r.opts.OnRecorded != nil {
			if d.err != nil {
				r.opts.OnRecorded(int64(m.LogTime), nil, d.err)
			} else {
				r.opts.OnRecorded(int64(m.LogTime), &d.r, nil)
			}
		}
		return nil
	}
	for i, s := range r.sessions {
		if i == 1 {
			// The first Session took the covariance's storage, if it keeps
			// the belief; the others copy it within their step, before the
			// first can give the storage back.
			d.ev.DropDonor()
		}
		err := s.ApplyDecoded(m.Topic, &d.ev, d.err)
		if errors.Is(err, session.ErrCorrupt) && s == r.sessions[0] && r.opts.OnCorrupt != nil {
			r.opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, err))
		}
		// Rejections and policy failures are the Loop's business and are
		// counted by its Runner.
	}
	return nil
}
