package audit

import (
	"errors"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// An Observer sees what Verify reads of a recording, one message at a time
// in read order, with what the audit decoded of it through the input
// table, before the audit takes it: a report is drawn from the one read of
// its audit (report.Collector is an Observer). Values are valid only for
// the call. Messages of inputs an observer does not draw (parameters,
// lifecycle, calibrated assessments) are not shown; the self-assessments
// shown are the recorded ones the chain check hashes.
type Observer interface {
	Belief(logNs int64, b *decisions.Belief)
	Assessment(logNs int64, a *decisions.SelfAssessment)
	Perception(logNs int64, p decisions.PerceptionReport)
	Decision(logNs int64, r *decisions.Rationale)
	// Receipt is a message on the receipts topic, as recorded.
	Receipt(logNs int64, topic, schema string, data []byte)
	// Evidence is a message of the evidence input; decodeErr says why it
	// did not decode.
	Evidence(logNs int64, topic string, decodeErr error)
	// Undecodable is a belief, self-assessment, perception report or
	// decision that did not decode (a decision that decoded but is invalid
	// is shown as a Decision).
	Undecodable(logNs int64, topic string, err error)
}

// IncompleteReadError is Verify's error for a recording it could read only
// up to damage: the report covers what was read before.
type IncompleteReadError struct {
	// Err is the source's error (a *bag.TruncatedError for a damaged
	// recording).
	Err error
}

func (e *IncompleteReadError) Error() string {
	if te := (*bag.TruncatedError)(nil); errors.As(e.Err, &te) && te.Unclosed {
		return "verify: recording read to where its writer stopped: " + e.Err.Error()
	}
	return "verify: recording read up to the damage: " + e.Err.Error()
}

func (e *IncompleteReadError) Unwrap() error { return e.Err }

// observe shows one message to the observer.
func (v *verifier) observe(m *bag.Message, d *decoded) {
	o, t := v.opts.Observer, int64(m.LogTime)
	chainT := v.opts.Format.ChainTopic
	switch {
	case m.Topic == v.actionsT:
		o.Receipt(t, m.Topic, m.SchemaName, m.Data)
	case m.Topic == v.decisionsT:
		switch {
		case !v.isRationaleSchema(m.SchemaName):
		case d.err != nil:
			o.Undecodable(t, m.Topic, d.err)
		default:
			o.Decision(t, &d.r)
		}
	case chainT != "" && m.Topic == chainT:
		if d.err != nil {
			o.Undecodable(t, m.Topic, d.err)
			return
		}
		o.Assessment(t, &d.a)
	default:
		if k := v.inputIndex(m.Topic); k >= 0 {
			observeInput(o, t, &v.inputs[k], &d.ev, d.err)
		}
	}
}

// observeInput shows the observer one message of in.
func observeInput(o Observer, t int64, in *session.InputSpec, ev *session.Decoded, err error) {
	drawn := in.Kind == engine.InputBelief || in.Kind == engine.InputPerception ||
		in.Kind == engine.InputAssessment && in.Key == session.KeySelfAssessment
	var ce *session.CorruptError
	switch {
	case in.Kind == engine.InputEvidence:
		o.Evidence(t, in.Topic, err)
	case !drawn:
	case errors.As(err, &ce):
		o.Undecodable(t, in.Topic, ce.Err) // the decoder's own words; the observer names the topic
	case err != nil:
		o.Undecodable(t, in.Topic, err)
	default:
		switch e := ev.Event().(type) {
		case engine.BeliefEvent:
			o.Belief(t, &e.Belief)
		case engine.AssessmentEvent:
			o.Assessment(t, &e.Assessment)
		case engine.PerceptionEvent:
			o.Perception(t, e.Report)
		}
	}
}
