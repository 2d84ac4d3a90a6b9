package honesty

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Options configure Audit. The zero value of a field means its default.
type Options struct {
	// StateTopic, AssessmentTopic and DecisionsTopic are where the
	// beliefs, their self-assessments and the decisions are (default
	// /state/nav, /self_assessment, /decisions).
	StateTopic, AssessmentTopic, DecisionsTopic string
	// PX4Namespace picks PX4's truth topics below a namespace ("/uav_1");
	// default: the only namespace that has them.
	PX4Namespace string
	// MaxGap is the farthest a truth sample may be from a belief stamp
	// for the belief to get a verdict (default 50 ms).
	MaxGap time.Duration
	// Horizon is how long, in log time, a belief waits for its
	// assessment, its decision and the truth after its stamp before it is
	// judged (default 2 s); what comes later counts as late.
	Horizon time.Duration
	// MaxHold is the longest a claim is taken to hold: until the next
	// belief, at most this long (default 1 s).
	MaxHold time.Duration
	// MaxEpisodes bounds the episodes kept per consequence (default 1000).
	MaxEpisodes int
	// OnSample, if set, receives every compared belief in stamp order.
	OnSample func(*Sample)
}

func (o Options) withDefaults() Options {
	for _, d := range []struct {
		v   *string
		def string
	}{{&o.StateTopic, "/state/nav"}, {&o.AssessmentTopic, "/self_assessment"}, {&o.DecisionsTopic, "/decisions"}} {
		if *d.v == "" {
			*d.v = d.def
		}
	}
	if o.MaxGap <= 0 {
		o.MaxGap = 50 * time.Millisecond
	}
	if o.Horizon <= 0 {
		o.Horizon = 2 * time.Second
	}
	if o.MaxHold <= 0 {
		o.MaxHold = time.Second
	}
	if o.MaxEpisodes <= 0 {
		o.MaxEpisodes = 1000
	}
	return o
}

// ErrTruth is wrapped by the error of a recording whose truth channels
// are unusable (truth.ErrRecording).
var ErrTruth = truth.ErrRecording

// Source yields a recording's messages in log-time order; Next returns
// io.EOF at the end (a *bag.Reader).
type Source interface {
	Next() (bag.Message, error)
}

// Audit reads src, whose channels are given, and compares its beliefs with
// the simulator truth it holds. Without a simulator truth the Result has no
// verdict and says why; an unusable truth channel is an error. A source
// that fails midway returns the Result of what was read with the error.
func Audit(src Source, channels []bag.Channel, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	res := newResult()
	res.Truth.MaxGapNs = int64(opts.MaxGap)
	rec, err := truth.Find(channels, opts.PX4Namespace)
	if err != nil {
		return nil, err
	}
	describeTruth(res, rec)
	if rec.Form == truth.FormNone {
		res.Reason = noTruthReason(rec)
		return res, nil
	}
	dec, err := truth.NewDecoder(rec, channels)
	if err != nil {
		return nil, err
	}
	a := newAuditor(opts, rec, dec, res)
	var readErr error
	for {
		m, err := src.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		a.message(&m)
	}
	a.finish()
	if readErr != nil {
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("the recording is truncated: read up to the damage (%v); the figures cover what was read", readErr))
	}
	return res, readErr
}

func noTruthReason(rec truth.Recorded) string {
	if rec.Why != "" {
		return "no simulator truth: " + rec.Why + " (ADR-0037; the estimator's own output is not truth)"
	}
	return "no simulator truth in the recording: neither ghost's /ground_truth/* nor PX4's *_groundtruth topics " +
		"(the estimator's own output is not truth: comparing with it would be circular)"
}

func describeTruth(res *Result, rec truth.Recorded) {
	t := &res.Truth
	t.Form = rec.Form.String()
	if rec.Form == truth.FormNone {
		t.Origin = "none"
		return
	}
	t.Source = "simulator"
	for s := truth.Stream(0); s < truth.NumStreams; s++ {
		if rec.Topics[s] != "" {
			t.Topics[s.String()] = rec.Topics[s]
		}
		t.Samples[s.String()] = 0
		res.Gaps[s.String()] = map[string]uint64{}
		for g := GapBefore; g < NumGaps; g++ {
			res.Gaps[s.String()][g.String()] = 0
		}
	}
	t.ResetTopic = rec.ResetTopic
	res.Offsets.Resets.Source = rec.ResetTopic
	t.Origin = truth.Source(rec.Form, "")
}

// entry is a belief waiting to be judged, with what joins it.
type entry struct {
	stamp, arrival int64
	pos, vel       [3]float64
	q              [4]float64
	cov            []float64 // 225 values, or empty
	assessment     decisions.SelfAssessment
	hasAssessment  bool
	kind           decisions.Kind
	hasDecision    bool
}

// maxOrphans bounds the assessments and decisions held for beliefs not
// yet read.
const maxOrphans = 4096

// auditor is one Audit's state.
type auditor struct {
	opts    Options
	rec     truth.Recorded
	dec     *truth.Decoder
	res     *Result
	streams [truth.NumStreams]stream
	resets  []truth.Reset // not yet applied, in stamp order

	pending   []*entry
	byStamp   map[int64]*entry
	orphanA   map[int64]decisions.SelfAssessment
	orphanD   map[int64]decisions.Kind
	judged    int64 // newest stamp judged
	anyJudged bool

	vs  ros2msg.VehicleState
	sa  ros2msg.BeliefSelfAssessment
	dr  ros2msg.DecisionRationale
	td  truth.Decoded
	cmp comparer
}

func newAuditor(opts Options, rec truth.Recorded, dec *truth.Decoder, res *Result) *auditor {
	a := &auditor{opts: opts, rec: rec, dec: dec, res: res, byStamp: map[int64]*entry{},
		orphanA: map[int64]decisions.SelfAssessment{}, orphanD: map[int64]decisions.Kind{}}
	a.cmp = newComparer(res, opts)
	return a
}

// message routes one recorded message.
func (a *auditor) message(m *bag.Message) {
	switch m.Topic {
	case a.opts.StateTopic:
		a.belief(m)
	case a.opts.AssessmentTopic:
		a.assessment(m)
	case a.opts.DecisionsTopic:
		a.decision(m)
	default:
		a.truthMessage(m)
	}
	a.judgeUpTo(timediff.SubUnsigned(m.LogTime, uint64(a.opts.Horizon)))
}

func (a *auditor) belief(m *bag.Message) {
	r := &a.res.Beliefs
	r.Read++
	if err := a.vs.UnmarshalCDR(m.Data); err != nil || a.vs.StampSimNs < 0 {
		r.Unusable++
		return
	}
	s := a.vs.StampSimNs
	if a.byStamp[s] != nil || (a.anyJudged && s <= a.judged) {
		r.Duplicate++
		return
	}
	n := &a.vs.Nav
	e := &entry{stamp: s, arrival: timediff.SubUnsigned(m.LogTime, 0), pos: n.PositionEnuM, vel: n.LinearVelocityWorldMps, q: n.OrientationQ,
		cov: append([]float64(nil), n.Covariance15x15...)}
	if sa, ok := a.orphanA[s]; ok {
		e.assessment, e.hasAssessment = sa, true
		delete(a.orphanA, s)
	}
	if k, ok := a.orphanD[s]; ok {
		e.kind, e.hasDecision = k, true
		delete(a.orphanD, s)
	}
	a.pending = append(a.pending, e)
	a.byStamp[s] = e
}

func (a *auditor) assessment(m *bag.Message) {
	if err := a.sa.UnmarshalCDR(m.Data); err != nil {
		return // verify's business; no claim to judge
	}
	sa := ros2msg.SelfAssessmentFromWire(&a.sa)
	if sa.Validate() != nil {
		return
	}
	s := sa.BeliefStampSimNs
	switch e := a.byStamp[s]; {
	case e != nil && !e.hasAssessment:
		e.assessment, e.hasAssessment = sa, true
	case e != nil:
	case a.anyJudged && s <= a.judged, len(a.orphanA) >= maxOrphans:
		a.res.Beliefs.Late++
	default:
		a.orphanA[s] = sa
	}
}

func (a *auditor) decision(m *bag.Message) {
	if err := a.dr.UnmarshalCDR(m.Data); err != nil {
		return
	}
	k := decisions.Kind(a.dr.Decision.Kind)
	s := a.dr.BeliefStampSimNs
	switch e := a.byStamp[s]; {
	case e != nil && !e.hasDecision:
		e.kind, e.hasDecision = k, true
	case e != nil:
	case a.anyJudged && s <= a.judged, len(a.orphanD) >= maxOrphans:
		a.res.Beliefs.Late++
	default:
		a.orphanD[s] = k
	}
}

func (a *auditor) truthMessage(m *bag.Message) {
	ok, err := a.dec.Decode(m.Topic, m.Data, &a.td)
	if !ok {
		return
	}
	t := &a.res.Truth
	if err != nil {
		if m.Topic == a.rec.ResetTopic {
			a.res.Offsets.Resets.Rejected++
		} else {
			t.Rejected++
			t.LastRejected = err.Error()
		}
		return
	}
	if a.td.Partial != nil {
		t.Rejected++
		t.LastRejected = a.td.Partial.Error()
	}
	for _, s := range a.td.Samples[:a.td.N] {
		a.streams[s.Stream].add(s)
		t.Samples[s.Stream.String()]++
	}
	if a.td.HasReset {
		r := a.td.Reset
		i := len(a.resets)
		for i > 0 && a.resets[i-1].StampNs > r.StampNs {
			i--
		}
		a.resets = append(a.resets, truth.Reset{})
		copy(a.resets[i+1:], a.resets[i:])
		a.resets[i] = r
	}
}

// judgeUpTo judges the pending beliefs that arrived at or before logTime,
// in arrival order.
func (a *auditor) judgeUpTo(logTime int64) {
	n := 0
	for n < len(a.pending) && a.pending[n].arrival <= logTime {
		a.judge(a.pending[n])
		n++
	}
	if n > 0 {
		a.pending = append(a.pending[:0], a.pending[n:]...)
	}
}

func (a *auditor) judge(e *entry) {
	delete(a.byStamp, e.stamp)
	if !a.anyJudged || e.stamp > a.judged {
		a.judged, a.anyJudged = e.stamp, true
	}
	a.applyResets(e.stamp)
	v := a.cmp.verdictOf(e, a.truthAt(e.stamp))
	a.cmp.add(&v)
	maxGap := int64(a.opts.MaxGap)
	for i := range a.streams {
		a.streams[i].prune(e.stamp, maxGap)
	}
}

// truthAt interpolates every stream at stamp, counting the gaps.
func (a *auditor) truthAt(stamp int64) (out [truth.NumStreams]*truth.Sample) {
	for s := truth.Stream(0); s < truth.NumStreams; s++ {
		if a.rec.Topics[s] == "" {
			continue
		}
		v, gap := a.streams[s].at(stamp, int64(a.opts.MaxGap))
		if gap != GapNone {
			a.res.Gaps[s.String()][gap.String()]++
			continue
		}
		out[s] = &v
	}
	return out
}

// applyResets moves the offsets by the resets up to stamp.
func (a *auditor) applyResets(stamp int64) {
	n := 0
	for n < len(a.resets) && a.resets[n].StampNs <= stamp {
		a.cmp.reset(a.resets[n])
		n++
	}
	if n > 0 {
		a.resets = append(a.resets[:0], a.resets[n:]...)
	}
}

// finish judges what is left and completes the Result.
func (a *auditor) finish() {
	a.judgeUpTo(math.MaxInt64)
	a.cmp.finish()
	res := a.res
	res.Truth.Frame = a.dec.Frame()
	res.Truth.Origin = truth.Source(a.rec.Form, res.Truth.Frame)
	res.Offsets.Resets.Lost = a.dec.LostResets()
	for s := range a.streams {
		if d := a.streams[s].dropped; d > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%d %s truth samples were dropped unread: the buffer was full", d, truth.Stream(s)))
		}
	}
	if res.Truth.Samples["position"] == 0 || res.Truth.Samples["attitude"] == 0 {
		res.Verdict = VerdictNone
		res.Reason = "no simulator truth: the truth topics hold no usable position or no usable attitude sample"
		return
	}
	if res.Beliefs.Compared == 0 {
		res.Verdict = VerdictNone
		res.Reason = "no belief had truth around its stamp and a self-assessment: nothing was compared"
		return
	}
	res.Verdict, res.Reason = verdictOf(res)
}

// verdictOf says whether any KNOWN claim was beyond the known threshold,
// and on which axes.
func verdictOf(res *Result) (verdict, reason string) {
	var parts []string
	for _, name := range AxisNames {
		if a := res.Axes[name]; a.KnownViolations > 0 {
			parts = append(parts, fmt.Sprintf("%s %d of %d (%.1f s)", name, a.KnownViolations, a.KnownClaims, float64(a.KnownViolationsS)))
		}
	}
	if len(parts) == 0 {
		return VerdictHonest, ""
	}
	return VerdictOverconfident, "KNOWN claims with a true error beyond the known threshold: " + strings.Join(parts, ", ")
}
