package session

import (
	"errors"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// DecodeFunc decodes one serialized message of an input into out, by
// value: the Loop event it carries, arriving at arrivalNs (receive time,
// log time or simulated time). A belief's covariance comes from s (a nil s
// allocates it), so the event is valid until s is reset. A DecodeFunc may
// keep scratch between calls and is then not safe for concurrent use; what
// it writes into out must share nothing with that scratch.
type DecodeFunc func(data []byte, arrivalNs int64, s *Scratch, out *Decoded) error

// Decoded is one decoded input event held by value, in the caller's
// storage. Returning events as an Event interface would box each one on the
// heap (a self-assessment is about 300 bytes); Session.ApplyDecoded steps
// the Loop with a Decoded's beliefs, assessments and perception reports
// without boxing. The zero value holds no event.
type Decoded struct {
	kind       decodedKind
	belief     engine.BeliefEvent
	assessment engine.AssessmentEvent
	perception engine.PerceptionEvent
	other      engine.Event // the rarer kinds: evidence, parameters, lifecycle
}

type decodedKind uint8

const (
	decodedNone decodedKind = iota
	decodedBelief
	decodedAssessment
	decodedPerception
	decodedOther
)

// Event returns the event as an Event (boxed: for callers that keep it),
// nil when there is none.
func (d *Decoded) Event() engine.Event {
	switch d.kind {
	case decodedBelief:
		return d.belief
	case decodedAssessment:
		return d.assessment
	case decodedPerception:
		return d.perception
	case decodedOther:
		return d.other
	}
	return nil
}

// Assessment returns the self-assessment event d holds, in d's storage.
func (d *Decoded) Assessment() (*engine.AssessmentEvent, bool) {
	if d.kind != decodedAssessment {
		return nil, false
	}
	return &d.assessment, true
}

// AssessmentHash returns the hash of the assessment a self-assessment
// input carried: the one its decoder made, or else a fresh one.
func (d *Decoded) AssessmentHash() (*engine.AssessmentHash, bool) {
	e, ok := d.Assessment()
	if !ok {
		return nil, false
	}
	if !e.Hash.For(&e.Assessment) {
		e.Hash = engine.HashAssessment(&e.Assessment, nil)
	}
	return e.Hash, true
}

// BeliefStamp returns the stamp of the belief a belief input carried.
func (d *Decoded) BeliefStamp() (int64, bool) {
	if d.kind == decodedBelief {
		return d.belief.Belief.StampSimNs, true
	}
	return 0, false
}

// DropDonor makes a donated belief's covariance lent instead (see
// BeliefEvent.Donor): for a caller that steps several Loops with d, each
// of which must then keep a copy.
func (d *Decoded) DropDonor() { d.belief.Donor = nil }

// Set makes ev the event d holds (nil: none), for decoders outside this
// package.
func (d *Decoded) Set(ev engine.Event) {
	*d = Decoded{}
	switch e := ev.(type) {
	case nil:
	case engine.BeliefEvent:
		d.kind, d.belief = decodedBelief, e
	case engine.AssessmentEvent:
		d.kind, d.assessment = decodedAssessment, e
	case engine.PerceptionEvent:
		d.kind, d.perception = decodedPerception, e
	default:
		d.kind, d.other = decodedOther, ev
	}
}

// Scratch is reusable storage for the covariances of decoded beliefs. A
// batch of messages is decoded into it, the events are stepped through a
// Loop (which copies what it keeps, see BeliefEvent), and Reset makes the
// storage free for the next batch: in steady state decoding a belief
// allocates no covariance. The zero value is ready; not safe for concurrent
// use.
type Scratch struct {
	buf  []float64
	used int // floats handed out since Reset, across blocks

	pool *engine.CovariancePool // see DrawFrom
	own  [][]float64            // taken from pool, not handed out yet
}

// DrawFrom makes s hand out every 225-value covariance from p, for good:
// the events decoded with s donate that storage to the Loop that keeps
// them (BeliefEvent.Donor), and Reset does not reclaim it. Other lengths
// (which the Loop rejects) get storage of their own.
func (s *Scratch) DrawFrom(p *engine.CovariancePool) { s.pool = p }

// scratchBlock is the smallest block a Scratch allocates: 64 covariances.
const scratchBlock = 64 * 225

// Floats returns n float64s of s's storage, valid until Reset (for good
// after DrawFrom).
func (s *Scratch) Floats(n int) []float64 {
	if s.pool != nil {
		if n == decisions.CovarianceLen {
			return s.drawCovariance()
		}
		return make([]float64, n)
	}
	if n > cap(s.buf)-len(s.buf) {
		// The old block stays alive for the slices already handed out
		// and is left to the collector.
		s.buf = make([]float64, 0, max(2*cap(s.buf), n, scratchBlock))
	}
	s.used += n
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

// Reset frees all of s's storage for reuse: every slice Floats returned,
// and the events holding them, become invalid. A Scratch that had to grow
// since the last Reset takes one block of all it handed out, so that the
// next batch of the same size fits without allocating.
func (s *Scratch) Reset() {
	if s.used > cap(s.buf) {
		s.buf = make([]float64, 0, s.used)
	}
	s.buf, s.used = s.buf[:0], 0
}

// Decoder turns serialized messages of a session's inputs into Loop events,
// with each input's one DecodeFunc. It keeps decoding scratch, so it is not
// safe for concurrent use: one per goroutine.
type Decoder struct {
	topics []string
	decode []DecodeFunc
}

// NewDecoder returns a decoder for the inputs that are not Disabled.
func NewDecoder(inputs []InputSpec) *Decoder {
	d := &Decoder{}
	for _, in := range inputs {
		if in.Disabled() {
			continue
		}
		d.topics = append(d.topics, in.Topic)
		d.decode = append(d.decode, in.NewDecode())
	}
	return d
}

// DecodeInto decodes a message on one of the input topics into out, by
// value, with a belief's covariance taken from s (a nil s allocates it):
// the event is valid until s is reset, and only a Loop (which copies what
// it keeps) may be stepped with it. out holds no event for a message on
// another topic or one that does not decode; the latter gives a
// *CorruptError naming the topic and byte offset.
func (d *Decoder) DecodeInto(topic string, arrivalNs int64, data []byte, s *Scratch, out *Decoded) error {
	out.kind = decodedNone
	for i, t := range d.topics {
		if t != topic {
			continue
		}
		if err := d.decode[i](data, arrivalNs, s, out); err != nil {
			out.kind = decodedNone
			return corrupt(topic, err)
		}
		return nil
	}
	return nil
}

func corrupt(topic string, err error) error {
	off := -1
	var de *ros2msg.DecodeError
	if errors.As(err, &de) {
		off = de.Offset
	}
	return &CorruptError{Topic: topic, Offset: off, Err: err}
}

func decodeEvidence() DecodeFunc {
	var m ros2msg.ActionEvidence
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := m.UnmarshalCDR(data); err != nil {
			return err
		}
		out.Set(engine.EvidenceEvent{ArrivalNs: arrivalNs, Items: EvidenceFromWire(m.Items)})
		return nil
	}
}

// EvidenceMessage converts an evidence batch to its message.
func EvidenceMessage(ev engine.EvidenceEvent) ros2msg.ActionEvidence {
	return ros2msg.ActionEvidence{Items: EvidenceToWire(ev.Items)}
}

func decodeBelief() DecodeFunc {
	var strs ros2msg.StringCache // the goal's metadata repeats
	return func(data []byte, arrivalNs int64, s *Scratch, out *Decoded) error {
		var cov func(int) []float64
		if s != nil {
			cov = s.Floats
		}
		b, err := ros2msg.DecodeBeliefCached(data, cov, &strs)
		if err != nil {
			return err
		}
		out.kind, out.belief = decodedBelief, engine.BeliefEvent{ArrivalNs: arrivalNs, Belief: b}
		if s != nil && s.pool != nil && len(b.Covariance) == decisions.CovarianceLen {
			out.belief.Donor = s.pool
		}
		return nil
	}
}

// decodeAssessment hashes each assessment as it decodes it, once: the
// chain check, the rationale binding and the provenance check then share
// this hash (and a decoder running on another goroutine takes the work off
// the Loop's).
func decodeAssessment() DecodeFunc {
	var sa ros2msg.BeliefSelfAssessment
	var strs ros2msg.StringCache // the thresholds hash repeats
	var memo engine.TextMemo     // and most standard deviations
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := sa.UnmarshalCDRCached(data, &strs); err != nil {
			return err
		}
		out.kind = decodedAssessment
		out.assessment = engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: ros2msg.SelfAssessmentFromWire(&sa)}
		out.assessment.Hash = engine.HashAssessment(&out.assessment.Assessment, &memo)
		return nil
	}
}

func decodeCalibrated() DecodeFunc {
	var ca ros2msg.CalibratedSelfAssessment
	var memo engine.TextMemo
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := ca.UnmarshalCDR(data); err != nil {
			return err
		}
		a, c := ros2msg.CalibratedFromWire(&ca)
		out.kind = decodedAssessment
		out.assessment = engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: a, Calibration: &c}
		out.assessment.Hash = engine.HashAssessment(&out.assessment.Assessment, &memo) // as decodeAssessment
		return nil
	}
}

func decodePerception() DecodeFunc {
	var pm ros2msg.PerceptionMode
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := pm.UnmarshalCDR(data); err != nil {
			return err
		}
		out.kind, out.perception = decodedPerception, engine.PerceptionEvent{ArrivalNs: arrivalNs, Report: ros2msg.PerceptionFromWire(&pm)}
		return nil
	}
}

// covBlock is how many covariances one allocation serves while a pool warms
// up.
const covBlock = 64

// drawCovariance returns storage for one covariance from s's pool: from
// what s took before, else from the pool, else a new block.
func (s *Scratch) drawCovariance() []float64 {
	if len(s.own) == 0 {
		s.own = s.pool.Take(s.own)
	}
	if len(s.own) == 0 {
		// Warming up (or storage lost to rejected beliefs): one
		// allocation for a block, shared by its covariances until the
		// last of them is gone.
		block := make([]float64, covBlock*decisions.CovarianceLen)
		for i := range covBlock {
			s.own = append(s.own, block[i*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen])
		}
	}
	k := len(s.own) - 1
	c := s.own[k]
	s.own[k] = nil
	s.own = s.own[:k]
	return c
}
