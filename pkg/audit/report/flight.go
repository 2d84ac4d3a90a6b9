package report

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Flight is what a report shows of one recording: counts, per-bucket
// aggregates on the belief-stamp time axis, the decision episodes and the
// marks. Its size is bounded by Options, not by the recording's length.
type Flight struct {
	// Recording names the recording as the caller gave it.
	Recording string
	// Library and Profile are the MCAP header's writer and profile.
	Library, Profile string
	// HasStamps is false when no message carried a stamp (empty recording);
	// the stamp and log fields below are then zero.
	HasStamps bool
	// FirstStampNs and LastStampNs bound every stamp seen (beliefs,
	// assessments, perception reports, decisions), in simulation ns. The
	// report's time axis is seconds from FirstStampNs.
	FirstStampNs, LastStampNs int64
	// FirstLogNs and LastLogNs bound the log (receive) times read.
	FirstLogNs, LastLogNs int64
	// BucketStartNs is where Buckets[0] starts; bucket i covers
	// [BucketStartNs+i*BucketNs, BucketStartNs+(i+1)*BucketNs).
	BucketStartNs int64
	// BucketNs is the width of a bucket, a power of two of nanoseconds.
	BucketNs int64
	// Buckets aggregates the inputs and decisions by stamp.
	Buckets []Bucket
	// Episodes are the maximal runs of one decision kind, in recording order.
	Episodes []Episode
	// EpisodesOmitted counts episodes beyond Options.MaxEpisodes: they are
	// still in the buckets' kind masks, not in Episodes.
	EpisodesOmitted uint64
	// Marks are the decisions taken without an assessment and the rejected
	// inputs, in recording order.
	Marks []Mark
	// MarksOmitted counts marks beyond Options.MaxMarks (still counted in
	// the buckets).
	MarksOmitted uint64
	// Policies counts decisions by policy id, in the order first seen.
	Policies []Count
	// Counts are the totals.
	Counts Counts
	// Actions is the action trail: the receipts of every action the
	// decisions started, and the escalations derived from them.
	Actions Actions
	// Unfollowed are the spans of "decided X, vehicle in Y", in recording
	// order (unfollowed.go); UnfollowedOmitted counts those beyond the
	// bound.
	Unfollowed        []Unfollowed
	UnfollowedOmitted uint64
	// Notes are things the reader of the report must know about the input
	// (unusable channels, a truncated recording), one line each.
	Notes []string
	// Truth is the audit of the beliefs against a simulator's truth, when
	// the caller ran one (report --truth); nil otherwise.
	Truth *Truth
}

// Counts are a Flight's totals.
type Counts struct {
	// Beliefs, Assessments, Perception and Decisions count the decoded
	// messages of each input topic and of the decisions topic.
	Beliefs, Assessments, Perception, Decisions uint64
	// ByKind counts decisions by kind; OtherKinds those outside the catalog.
	ByKind     [decisions.NumKinds]uint64
	OtherKinds uint64
	// NoAssessment counts decisions taken without a self-assessment.
	NoAssessment uint64
	// Rejected counts inputs the decision path refuses (see MarkRejected).
	Rejected uint64
	// Duplicates counts beliefs repeating a stamp with identical content
	// (accepted as no-ops, not rejected).
	Duplicates uint64
	// Undecodable counts messages that did not decode (also in Rejected).
	Undecodable uint64
}

// Count is a named count.
type Count struct {
	Name string
	N    uint64
}

// Bucket aggregates what happened in one slice of the time axis. Masks
// keep every value seen, so a short excursion is never averaged away; the
// figures draw the worst value of each bucket.
type Bucket struct {
	// Beliefs, Assessments, Decisions count messages by stamp.
	Beliefs, Assessments, Decisions uint32
	// NoAssessment counts decisions taken without a self-assessment.
	NoAssessment uint32
	// Rejected counts rejected inputs.
	Rejected uint32
	// Kinds has bit k set when a decision of kind k was taken; bit
	// OtherBit for a kind outside the catalog.
	Kinds uint16
	// Overall and Block have bit l set when an assessment's overall (or
	// block's) level l was seen; bit OtherBit for a level out of range.
	Overall uint16
	Block   [3]uint16
	// StdMax is the largest standard deviation per axis (block*3+axis); NaN
	// when no assessment gave a number for that axis.
	StdMax [9]float64
	// StdNone has bit i set when axis i had no standard deviation (NaN,
	// "none") in some assessment.
	StdNone uint16
	// Thresholds are the latest thresholds used by an assessment in the
	// bucket; valid when HasThresholds.
	Thresholds    decisions.Thresholds
	HasThresholds bool
	// Armed has bit 0 set when a belief was disarmed, bit 1 when armed.
	Armed uint8
	// Modes has bit m set when a belief had flight mode m; bit OtherBit
	// for a mode outside the catalog.
	Modes uint16
	// BatteryPct and BatteryV are the ranges of the battery fraction [0,1]
	// and voltage; NaN when unknown throughout the bucket.
	BatteryPctMin, BatteryPctMax float64
	BatteryVMin, BatteryVMax     float64
	// Perception has bit m set when a perception report with mode m was
	// stamped in the bucket; bit OtherBit for a mode outside the catalog.
	Perception uint16
	// PerceptionLast is the mode of the bucket's latest-stamped report
	// (stamped PerceptionLastNs), the mode in force after the bucket; valid
	// when Perception != 0.
	PerceptionLast   decisions.PerceptionMode
	PerceptionLastNs int64
}

// OtherBit is the mask bit standing for values outside a catalog.
const OtherBit = 15

func newBucket() Bucket {
	b := Bucket{
		BatteryPctMin: math.NaN(), BatteryPctMax: math.NaN(),
		BatteryVMin: math.NaN(), BatteryVMax: math.NaN(),
	}
	for i := range b.StdMax {
		b.StdMax[i] = math.NaN()
	}
	return b
}

// merge folds o, the later bucket, into b.
func (b *Bucket) merge(o *Bucket) {
	b.Beliefs = satAdd(b.Beliefs, o.Beliefs)
	b.Assessments = satAdd(b.Assessments, o.Assessments)
	b.Decisions = satAdd(b.Decisions, o.Decisions)
	b.NoAssessment = satAdd(b.NoAssessment, o.NoAssessment)
	b.Rejected = satAdd(b.Rejected, o.Rejected)
	b.Kinds |= o.Kinds
	b.Overall |= o.Overall
	for i := range b.Block {
		b.Block[i] |= o.Block[i]
	}
	for i := range b.StdMax {
		b.StdMax[i] = nanMax(b.StdMax[i], o.StdMax[i])
	}
	b.StdNone |= o.StdNone
	if o.HasThresholds {
		b.Thresholds, b.HasThresholds = o.Thresholds, true
	}
	b.Armed |= o.Armed
	b.Modes |= o.Modes
	b.BatteryPctMin = nanMin(b.BatteryPctMin, o.BatteryPctMin)
	b.BatteryPctMax = nanMax(b.BatteryPctMax, o.BatteryPctMax)
	b.BatteryVMin = nanMin(b.BatteryVMin, o.BatteryVMin)
	b.BatteryVMax = nanMax(b.BatteryVMax, o.BatteryVMax)
	if o.Perception != 0 && (b.Perception == 0 || o.PerceptionLastNs >= b.PerceptionLastNs) {
		b.PerceptionLast, b.PerceptionLastNs = o.PerceptionLast, o.PerceptionLastNs
	}
	b.Perception |= o.Perception
}

func satAdd(a, b uint32) uint32 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint32
}

// nanMax is the larger of a and b, ignoring NaN (NaN only when both are).
func nanMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// nanMin is the smaller of a and b, ignoring NaN.
func nanMin(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

// bit returns the mask bit of v in a catalog of n values.
func bit(v uint8, n int) uint16 {
	if int(v) < n && v < OtherBit {
		return 1 << v
	}
	return 1 << OtherBit
}

// Episode is a maximal run of decisions of one kind.
type Episode struct {
	// N numbers the episode from 1; its table row has id "episode-N".
	N int
	// Kind is the decision kind of the run.
	Kind decisions.Kind
	// StartNs is the stamp of the run's first decision; LastNs of its last.
	StartNs, LastNs int64
	// EndNs is the stamp of the next run's first decision (the kind held
	// until then), or LastNs for the last run of the recording.
	EndNs int64
	// Decisions counts the run's decisions; NoAssessment those taken
	// without a self-assessment.
	Decisions, NoAssessment uint64
	// Reasons are the run's reasons in the order first seen, with counts
	// (at most maxReasons; later ones are counted in OtherReasons).
	Reasons      []Count
	OtherReasons uint64
	// PolicyID is the policy of the run's first decision.
	PolicyID string
	// FirstHash is the self_assessment_sha256 of the run's first decision;
	// empty when that decision was taken without an assessment.
	FirstHash string
}

// DurationNs is EndNs-StartNs (saturating).
func (e *Episode) DurationNs() int64 {
	return int64(min(uint64(e.EndNs)-uint64(e.StartNs), math.MaxInt64))
}

// Reason returns the run's first reason, or "".
func (e *Episode) Reason() string {
	if len(e.Reasons) == 0 {
		return ""
	}
	return e.Reasons[0].Name
}

const maxReasons = 4

func (e *Episode) addReason(r string) {
	for i := range e.Reasons {
		if e.Reasons[i].Name == r {
			e.Reasons[i].N++
			return
		}
	}
	if len(e.Reasons) >= maxReasons {
		e.OtherReasons++
		return
	}
	e.Reasons = append(e.Reasons, Count{Name: r, N: 1})
}

// MarkKind says what a Mark points at.
type MarkKind uint8

// Mark kinds.
const (
	// MarkNoAssessment: a belief was decided without a self-assessment.
	MarkNoAssessment MarkKind = iota
	// MarkRejected: an input the decision path refuses (undecodable,
	// invalid, a repeated stamp with other content, a late assessment).
	MarkRejected
	// MarkProblem: the audit found a problem (from Audit.Problems).
	MarkProblem
)

var markNames = [...]string{"decided without assessment", "rejected input", "audit problem"}

// String names the kind as the report's legend does.
func (k MarkKind) String() string {
	if int(k) < len(markNames) {
		return markNames[k]
	}
	return "mark"
}

// Mark is one event the report points at on the time axis.
type Mark struct {
	Kind MarkKind
	// StampNs places the mark on the time axis; LogNs is its log time.
	StampNs, LogNs int64
	// Text says what happened and, when the recording tells, why.
	Text string
}
