package audit

import (
	"errors"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// A pipeline is the one path of a recording through an audit: read each
// message, decode it through the input table (and, for verify, the
// recorded decisions and chain assessments), and hand it with what it
// decoded, in read order, to the step of replay or verify (which applies
// it to its Sessions and hands results to its sinks and observers). Where
// the messages are read and decoded (on the stepping goroutine, or ahead
// of it) changes nothing but the time taken.
type pipeline struct {
	// inputs are the Loop's inputs, decoded into decoded.ev.
	inputs []session.InputSpec
	// newDecodeOther, if set, returns a decoder (for one goroutine) of the
	// messages that are not inputs; it reports whether it took the message.
	newDecodeOther func() func(m *bag.Message, d *decoded) bool
	// step takes each message with what was decoded of it; an error ends
	// the run.
	step func(m *bag.Message, d *decoded) error
	// readAhead reads and decodes on a goroutine of its own; workers (with
	// readAhead) decode on that many more.
	readAhead bool
	workers   int
	// stop, when closed, ends the run before the next message.
	stop <-chan struct{}
	// every is the number of messages between calls of progress; default
	// 65536.
	every    uint64
	progress func(messages uint64)

	messages uint64 // read and stepped so far
	stopped  bool   // the run ended on stop
}

// decoded is what a pipeline made of one message: the Loop's input event,
// or a recorded decision or chain assessment, or the error decoding it.
// A decoder need set only what the step reads for that message's topic:
// the rest may hold an earlier message's values.
type decoded struct {
	ev  session.Decoded
	r   decisions.Rationale      // on the decisions topic (verify)
	a   decisions.SelfAssessment // on the chain topic (verify)
	err error
	// invalid is why a decision that decoded is not valid.
	invalid error
}

// errReaderStopped is returned in the (unreachable) case that the reading
// goroutine ends without handing over the source's end.
var errReaderStopped = errors.New("the reading goroutine stopped early")

// run drives src through the pipeline. It returns the source's error (io.EOF
// at its end), or nil when stop ended the run, and the first step error.
func (p *pipeline) run(src Source) (srcErr, err error) {
	if p.every == 0 {
		p.every = 65536
	}
	// Beliefs' covariances are drawn from a pool and donated to the Loop
	// that keeps them, so that it need not copy them from a batch decoded
	// on another core.
	var covs engine.CovariancePool
	newDecode := func() func(*bag.Message, *decoded) {
		dec := session.NewDecoder(p.inputs)
		var sc session.Scratch
		sc.DrawFrom(&covs)
		var other func(*bag.Message, *decoded) bool
		if p.newDecodeOther != nil {
			other = p.newDecodeOther()
		}
		return func(m *bag.Message, d *decoded) {
			if other == nil || !other(m, d) {
				d.err = dec.DecodeInto(m.Topic, int64(m.LogTime), m.Data, &sc, &d.ev)
			}
		}
	}
	if !p.readAhead {
		// One goroutine reads, decodes and steps each message in turn: no
		// batch to copy it into and no hand-over between cores (a
		// message's Data is valid until the next is read, and decode keeps
		// none of it).
		decode := newDecode()
		// Declared once: the step is a func value, so what it is given
		// lives on the heap.
		var d decoded
		var m bag.Message
		for {
			if p.isStopped() {
				return nil, nil
			}
			var err error
			if m, err = src.Next(); err != nil {
				return err, nil
			}
			decode(&m, &d)
			if err := p.stepOne(&m, &d); err != nil {
				return nil, err
			}
		}
	}
	pf := startPrefetchInto(src, p.workers, newDecode)
	defer pf.stop()
	for {
		b, ok := pf.next()
		if !ok {
			return errReaderStopped, nil
		}
		for i := range b.items {
			if p.isStopped() {
				pf.release(b)
				return nil, nil
			}
			if err := p.stepOne(&b.items[i].msg, &b.items[i].val); err != nil {
				pf.release(b)
				return nil, err
			}
		}
		srcErr := b.err
		pf.release(b)
		if srcErr != nil {
			return srcErr, nil
		}
	}
}

func (p *pipeline) stepOne(m *bag.Message, d *decoded) error {
	p.messages++
	if err := p.step(m, d); err != nil {
		return err
	}
	if p.messages%p.every == 0 && p.progress != nil {
		p.progress(p.messages)
	}
	return nil
}

func (p *pipeline) isStopped() bool {
	select {
	case <-p.stop:
		p.stopped = true
		return true
	default:
		return false
	}
}
