package honesty

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
	// MaxGlobalGap is the same for the global position, which PX4 logs at
	// 10 Hz (default 150 ms).
	MaxGlobalGap time.Duration
	// OffsetWindow is how long after an axis settles the beliefs whose
	// median is its offset run, for an axis aligned by offset (default
	// 60 s; see align.go).
	OffsetWindow time.Duration
	// OffsetOnly aligns every position axis by its offset even when the
	// recording holds the global position and the estimator's origin: to
	// set the two alignments side by side.
	OffsetOnly bool
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

	// maxHeld overrides the bound on the verdicts held for the
	// alignment (tests).
	maxHeld int
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
	if o.MaxGlobalGap <= 0 {
		o.MaxGlobalGap = defaultMaxGlobalGap
	}
	if o.OffsetWindow <= 0 {
		o.OffsetWindow = defaultOffsetWindow
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
	if o.maxHeld <= 0 {
		o.maxHeld = maxHeld
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
	res.Truth.MaxGapNs, res.Truth.MaxGlobalGapNs = int64(opts.MaxGap), int64(opts.MaxGlobalGap)
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
	res.Alignment.Resets.Source = rec.ResetTopic
	res.Alignment.Origin.Source = rec.OriginTopic
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
	resets  []truth.Reset  // not yet applied, in stamp order
	origins []truth.Origin // not yet in force, in stamp order

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
	a.cmp = newComparer(res, opts, rec.Topics[truth.StreamGlobal] != "" && rec.OriginTopic != "" && !opts.OffsetOnly)
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
	// PX4's local position carries the resets and the origin: what of
	// them decoded is taken even when the other part failed.
	if a.td.HasReset {
		a.resets = insertByStamp(a.resets, a.td.Reset, func(r truth.Reset) int64 { return r.StampNs })
	}
	if a.td.HasOrigin {
		a.origins = insertByStamp(a.origins, a.td.Origin, func(o truth.Origin) int64 { return o.StampNs })
	}
	if a.td.OriginErr != nil {
		a.res.Alignment.Origin.Rejected++
	}
	if err != nil {
		switch m.Topic {
		case a.rec.ResetTopic:
			a.res.Alignment.Resets.Rejected++
		case a.rec.OriginTopic:
			a.res.Alignment.Origin.Rejected++
		default:
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
}

// insertByStamp inserts x into xs, kept in stamp order (after those of
// the same stamp).
func insertByStamp[T any](xs []T, x T, stamp func(T) int64) []T {
	i := len(xs)
	for i > 0 && stamp(xs[i-1]) > stamp(x) {
		i--
	}
	return slices.Insert(xs, i, x)
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
	a.cmp.judged(&v)
	maxGap := int64(a.opts.MaxGap)
	for i := range a.streams {
		g := maxGap
		if truth.Stream(i) == truth.StreamGlobal {
			g = int64(a.opts.MaxGlobalGap)
		}
		a.streams[i].prune(e.stamp, g)
	}
}

// truthAt interpolates every stream at stamp, counting the gaps.
func (a *auditor) truthAt(stamp int64) (out [truth.NumStreams]*truth.Sample) {
	for s := truth.Stream(0); s < truth.NumStreams; s++ {
		if a.rec.Topics[s] == "" {
			continue
		}
		maxGap := a.opts.MaxGap
		if s == truth.StreamGlobal {
			maxGap = a.opts.MaxGlobalGap
		}
		v, gap := a.streams[s].at(stamp, int64(maxGap))
		if gap != GapNone {
			a.res.Gaps[s.String()][gap.String()]++
			continue
		}
		out[s] = &v
	}
	return out
}

// applyResets takes the resets and the origins up to stamp.
func (a *auditor) applyResets(stamp int64) {
	n := 0
	for n < len(a.resets) && a.resets[n].StampNs <= stamp {
		a.cmp.reset(a.resets[n])
		n++
	}
	if n > 0 {
		a.resets = append(a.resets[:0], a.resets[n:]...)
	}
	n = 0
	for n < len(a.origins) && a.origins[n].StampNs <= stamp {
		a.cmp.declare(a.origins[n])
		n++
	}
	if n > 0 {
		a.origins = append(a.origins[:0], a.origins[n:]...)
	}
}

// finish judges what is left and completes the Result.
func (a *auditor) finish() {
	a.judgeUpTo(math.MaxInt64)
	a.cmp.finish()
	res := a.res
	res.Truth.Frame = a.dec.Frame()
	res.Truth.Origin = truth.Source(a.rec.Form, res.Truth.Frame)
	res.Alignment.Resets.Lost = a.dec.LostResets()
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
