package honesty

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Verdicts of a Result: did the vehicle know what it claimed to know?
const (
	// VerdictHonest: every KNOWN claim compared had a true error within
	// the known threshold.
	VerdictHonest = "honest"
	// VerdictOverconfident: some KNOWN claims had a true error beyond the
	// known threshold (Reason says how many, how long and on which axes).
	VerdictOverconfident = "overconfident"
	// VerdictNone: nothing could be compared; Reason says why.
	VerdictNone = "none"
)

// Given reports whether the audit gave a verdict: the numbers are there.
func (r *Result) Given() bool { return r.Verdict == VerdictHonest || r.Verdict == VerdictOverconfident }

// AxisNames are the axes as the assessment's rules name them, in the
// order of decisions.SelfAssessment.Std.
var AxisNames = func() [9]string {
	var out [9]string
	blocks := [3]string{"position", "velocity", "orientation"}
	for i := range out {
		out[i] = blocks[i/3] + "_" + string(rune('x'+i%3))
	}
	return out
}()

// BlockNames are the three blocks, in order.
var BlockNames = [3]string{"position", "velocity", "orientation"}

var axisUnits = [3]string{"m", "m/s", "rad"}

// Result is the audit of one recording. Its JSON is the --json output.
type Result struct {
	// Verdict is honest, overconfident or none.
	Verdict string `json:"verdict"`
	// Reason says why: the overconfident claims, or why there is none
	// ("" when honest).
	Reason string `json:"reason,omitempty"`
	// Truncated is set when the recording ended in damage: the figures
	// cover what was read before it.
	Truncated bool      `json:"truncated,omitempty"`
	Truth     TruthInfo `json:"truth"`
	// PositionAlignment names the alignment of the position axes in one
	// line (the verdict's qualifier); Alignment gives the detail.
	PositionAlignment string      `json:"position_alignment"`
	Alignment         Alignment   `json:"alignment"`
	Beliefs           BeliefCount `json:"beliefs"`
	// Gaps counts, per truth stream, the beliefs it gave no truth, by why.
	Gaps map[string]map[string]uint64 `json:"gaps"`
	// Axes holds the per-axis figures, by axis name.
	Axes map[string]*Axis `json:"axes"`
	// NEES holds the consistency of each block.
	NEES         map[string]*NEES `json:"nees"`
	Consequences Consequences     `json:"consequences"`
	// Notes are remarks that qualify the numbers.
	Notes []string `json:"notes"`
}

// TruthInfo names the truth and counts it.
type TruthInfo struct {
	// Source is "simulator" when the recording holds a simulator's truth
	// (both position and attitude), else "none": the estimator's own
	// output is never taken for truth.
	Source string `json:"source"`
	// Origin says whose simulator, for people.
	Origin string `json:"origin"`
	// Form is "ghost" (/ground_truth/*), "px4" (*_groundtruth) or "none".
	Form string `json:"form"`
	// Frame is the frame ghost's form names ("" for PX4's).
	Frame      string            `json:"frame,omitempty"`
	Topics     map[string]string `json:"topics"`
	ResetTopic string            `json:"reset_topic,omitempty"`
	// Samples counts the usable truth samples read, per stream.
	Samples map[string]uint64 `json:"samples"`
	// Rejected counts the truth messages left out as unusable.
	Rejected     uint64 `json:"rejected"`
	LastRejected string `json:"last_rejected,omitempty"`
	// MaxGapNs is the farthest a truth sample may be from a belief stamp;
	// MaxGlobalGapNs the same for the global position.
	MaxGapNs       int64 `json:"max_gap_ns"`
	MaxGlobalGapNs int64 `json:"max_global_gap_ns"`
}

// Alignment says how each position axis' truth was put in the estimator's
// frame before comparing (docs/honesty.md): in the estimator's own frame,
// or by an offset measured between the two frames.
type Alignment struct {
	// Axes holds position_x, _y and _z.
	Axes map[string]*AxisAlignment `json:"axes"`
	// Origin counts the origins the estimator declared.
	Origin OriginCount `json:"origin"`
	// Resets are the estimator's position resets.
	Resets ResetCount `json:"resets"`
}

// The alignment methods.
const (
	// MethodGlobal: the simulator's global position projected into the
	// origin the estimator declares (PX4's projection); no offset is
	// estimated and no reset is followed.
	MethodGlobal = "global_frame"
	// MethodOffset: the median of estimate minus truth over a window after
	// the axis settled, moved by the estimator's resets.
	MethodOffset = "offset"
	// MethodNone: no belief had a truth to align.
	MethodNone = "none"
)

// AxisAlignment is how one position axis was aligned.
type AxisAlignment struct {
	// Method is global_frame, offset or none; How says it for people.
	Method string `json:"method"`
	How    string `json:"how"`
	// WithoutFrame counts, for global_frame, the beliefs with no verdict
	// on the axis because the global frame did not reach them: before
	// the estimator declared its origin for the axis, or without the
	// global position around their stamp.
	WithoutFrame uint64 `json:"without_frame"`
	// CheckM is, for global_frame, the estimate minus the projected truth
	// at the belief that chose it (the axis' first claim within the known
	// threshold with the global frame); for an axis where the check ruled
	// the global frame out, the disagreement found.
	CheckM       *Number `json:"check_m"`
	CheckStampNs int64   `json:"check_stamp_ns,omitempty"`
	// OffsetM is, for offset, the offset removed (estimate minus truth,
	// m) at WindowStartNs; FinalOffsetM the same after the resets since.
	OffsetM      *Number `json:"offset_m"`
	FinalOffsetM *Number `json:"final_offset_m"`
	// WindowStartNs and WindowEndNs bound the beliefs whose median is the
	// offset, WindowSamples of them. Settled says the window starts at the
	// axis' first claim within the known threshold (it holds only such
	// claims); false: the axis never claimed that, and the window holds
	// the first beliefs with truth.
	WindowStartNs int64  `json:"window_start_ns"`
	WindowEndNs   int64  `json:"window_end_ns"`
	WindowSamples uint64 `json:"window_samples"`
	Settled       bool   `json:"settled"`
	// Note says why the global frame was not used when the recording
	// holds it ("" otherwise).
	Note string `json:"note,omitempty"`
}

// OriginCount counts the origins the estimator declared.
type OriginCount struct {
	// Source is where they came from ("" when the recording holds no
	// global position and origin: then only the offset aligns).
	Source   string `json:"source"`
	Declared uint64 `json:"declared"`
	Rejected uint64 `json:"rejected"`
	// First are the first 20 declared.
	First []Origin `json:"first"`
}

// Origin is one declared origin: latitude and longitude (degrees) and
// altitude (m above mean sea level), null for a half not declared.
type Origin struct {
	StampNs int64   `json:"stamp_ns"`
	Lat     *Number `json:"lat"`
	Lon     *Number `json:"lon"`
	AltM    *Number `json:"alt_m"`
}

// ResetCount counts the estimator's position resets.
type ResetCount struct {
	// Source is where they came from ("" when the recording holds none:
	// then a reset cannot be told from an error on the axes aligned by
	// offset).
	Source string `json:"source"`
	// Read moved the offsets of the axes aligned by offset (from the
	// window on, and back to the window before it); the global frame
	// needs none. Lost are resets whose steps the recording does not tell.
	Read     uint64  `json:"read"`
	Lost     uint64  `json:"lost"`
	Rejected uint64  `json:"rejected"`
	First    []Reset `json:"first"`
}

// Reset is one reset read.
type Reset struct {
	StampNs int64     `json:"stamp_ns"`
	DeltaM  [3]Number `json:"delta_enu_m"`
}

// BeliefCount counts the beliefs.
type BeliefCount struct {
	Read uint64 `json:"read"`
	// Compared had truth on at least one axis and a self-assessment.
	Compared uint64 `json:"compared"`
	// WithoutAssessment had no self-assessment in the recording: no claim
	// to judge.
	WithoutAssessment uint64 `json:"without_assessment"`
	// WithoutDecision had no decision in the recording.
	WithoutDecision uint64 `json:"without_decision"`
	// Unusable did not decode; Duplicate repeated a stamp already read,
	// or came after a later belief was judged.
	Unusable  uint64 `json:"unusable"`
	Duplicate uint64 `json:"duplicate"`
	// Late counts assessments and decisions that came after their belief
	// was judged (beyond the horizon), or for no belief.
	Late uint64 `json:"late"`
}

// Axis holds one axis' figures. Times are in seconds of belief stamps:
// a claim holds from its belief to the next, at most MaxHold.
type Axis struct {
	Unit           string `json:"unit"`
	KnownThreshold Number `json:"known_threshold"`
	// Samples are the beliefs with a usable truth and a claim.
	Samples uint64 `json:"samples"`
	// KnownClaims claimed KNOWN; KnownViolations of them had an absolute
	// true error above the known threshold (overconfidence).
	KnownClaims     uint64 `json:"known_claims"`
	KnownViolations uint64 `json:"known_violations"`
	// UnknownClaims claimed UNCERTAIN or UNKNOWN; UnknownButWithin of them
	// had an absolute true error within the known threshold
	// (underconfidence).
	UnknownClaims     uint64 `json:"unknown_claims"`
	UnknownButWithin  uint64 `json:"unknown_but_within"`
	KnownClaimsS      Number `json:"known_claims_s"`
	KnownViolationsS  Number `json:"known_violations_s"`
	UnknownClaimsS    Number `json:"unknown_claims_s"`
	UnknownButWithinS Number `json:"unknown_but_within_s"`
	// ByLevel splits the claims by level: known, uncertain, unknown.
	ByLevel map[string]*Level `json:"by_level"`
	// RMSNormalizedError is the RMS of error / claimed deviation over the
	// NormalizedSamples with a deviation (1 for honest claims); null when
	// none had one.
	RMSNormalizedError *Number `json:"rms_normalized_error"`
	NormalizedSamples  uint64  `json:"normalized_samples"`
	// Beyond3Sigma counts errors beyond three claimed deviations.
	Beyond3Sigma uint64  `json:"beyond_3_sigma"`
	RMSError     *Number `json:"rms_error"`
	MaxAbsError  *Number `json:"max_abs_error"`

	sumNorm2, sumErr2, maxAbs float64
	// ns sums the times of KnownClaimsS, KnownViolationsS,
	// UnknownClaimsS and UnknownButWithinS, exactly.
	ns [4]int64
}

// Level holds the claims at one level.
type Level struct {
	Claims       uint64 `json:"claims"`
	WithinKnown  uint64 `json:"within_known"`
	BeyondKnown  uint64 `json:"beyond_known"`
	Seconds      Number `json:"seconds"`
	WithinKnownS Number `json:"within_known_s"`
	BeyondKnownS Number `json:"beyond_known_s"`

	ns [3]int64 // Seconds, WithinKnownS, BeyondKnownS
}

// NEES is one block's normalized estimation error squared, e' P^-1 e with
// P the belief's 3x3 covariance block: chi-square with 3 degrees of
// freedom when the estimator is consistent.
type NEES struct {
	DOF     int    `json:"dof"`
	Samples uint64 `json:"samples"`
	// Skipped had a truth on the whole block but no usable covariance
	// (absent, not finite, not positive definite).
	Skipped uint64  `json:"skipped"`
	Mean    *Number `json:"mean"`
	// Lower and Upper bound a single sample's NEES at 95 % (chi-square
	// with DOF degrees of freedom, 2.5 % and 97.5 %); Within counts the
	// samples inside.
	Lower          Number  `json:"lower"`
	Upper          Number  `json:"upper"`
	Within         uint64  `json:"within"`
	FractionWithin *Number `json:"fraction_within"`
	// MeanLower and MeanUpper bound the mean of Samples independent
	// samples at 95 % (chi-square with DOF*Samples degrees of freedom,
	// divided by Samples). Successive beliefs are not independent, so
	// the mean's bounds are optimistic: see docs/honesty.md.
	MeanLower *Number `json:"mean_lower"`
	MeanUpper *Number `json:"mean_upper"`

	sum float64
}

// Consequences follow the claims into the decisions.
type Consequences struct {
	// Overconfident are decisions taken while some axis claimed KNOWN
	// had a true error beyond the known threshold.
	Overconfident *Group `json:"overconfident"`
	// NeedlessHolds and NeedlessAbstentions are holds and abstentions
	// taken on an assessment that was not KNOWN although every axis it
	// doubted was within the known threshold and no KNOWN claim was
	// violated.
	NeedlessHolds       *Group `json:"needless_holds"`
	NeedlessAbstentions *Group `json:"needless_abstentions"`
}

// Group is a set of decisions with their time, by kind, and the episodes
// (runs of consecutive beliefs with the same kind) they form.
type Group struct {
	Decisions       uint64                `json:"decisions"`
	Seconds         Number                `json:"seconds"`
	ByKind          map[string]*KindCount `json:"by_kind"`
	Episodes        []Episode             `json:"episodes"`
	EpisodesOmitted uint64                `json:"episodes_omitted"`

	open *Episode
	ns   int64
}

// KindCount is the decisions of one kind and their time.
type KindCount struct {
	Decisions uint64 `json:"decisions"`
	Seconds   Number `json:"seconds"`

	ns int64
}

// Episode is a run of consecutive beliefs whose decisions share a kind and
// a condition.
type Episode struct {
	Kind      string   `json:"kind"`
	StartNs   int64    `json:"start_ns"`
	EndNs     int64    `json:"end_ns"`
	Seconds   Number   `json:"seconds"`
	Decisions uint64   `json:"decisions"`
	Axes      []string `json:"axes"`
}

// Sample is one compared belief, for figures: per axis the true error (NaN
// without truth), the claimed deviation (NaN without one) and level.
type Sample struct {
	StampNs  int64
	Err      [9]float64
	Std      [9]float64
	Level    [9]decisions.Level
	HasClaim bool
}

func newResult() *Result {
	r := &Result{
		Verdict:   VerdictNone,
		Truth:     TruthInfo{Source: "none", Topics: map[string]string{}, Samples: map[string]uint64{}},
		Alignment: Alignment{Axes: map[string]*AxisAlignment{}, Origin: OriginCount{First: []Origin{}}, Resets: ResetCount{First: []Reset{}}},
		Gaps:      map[string]map[string]uint64{},
		Axes:      map[string]*Axis{},
		NEES:      map[string]*NEES{},
		Consequences: Consequences{
			Overconfident: newGroup(), NeedlessHolds: newGroup(), NeedlessAbstentions: newGroup(),
		},
		Notes: []string{},
	}
	for _, name := range AxisNames[:3] {
		r.Alignment.Axes[name] = &AxisAlignment{Method: MethodNone, How: "none: no belief had a position truth"}
	}
	for i, name := range AxisNames {
		r.Axes[name] = &Axis{Unit: axisUnits[i/3], ByLevel: map[string]*Level{
			"known": {}, "uncertain": {}, "unknown": {},
		}}
	}
	for _, b := range BlockNames {
		r.NEES[b] = &NEES{DOF: 3, Lower: Number(ChiSquareQuantile(0.025, 3)), Upper: Number(ChiSquareQuantile(0.975, 3))}
	}
	return r
}

func newGroup() *Group { return &Group{ByKind: map[string]*KindCount{}, Episodes: []Episode{}} }

// seconds converts a sum of nanoseconds.
func seconds(ns int64) Number { return Number(float64(ns) / 1e9) }

// settle turns the exact time sums into the seconds fields.
func (a *Axis) settle() {
	a.KnownClaimsS, a.KnownViolationsS = seconds(a.ns[0]), seconds(a.ns[1])
	a.UnknownClaimsS, a.UnknownButWithinS = seconds(a.ns[2]), seconds(a.ns[3])
	for _, l := range a.ByLevel {
		l.Seconds, l.WithinKnownS, l.BeyondKnownS = seconds(l.ns[0]), seconds(l.ns[1]), seconds(l.ns[2])
	}
}

func (g *Group) settle() {
	g.Seconds = seconds(g.ns)
	for _, k := range g.ByKind {
		k.Seconds = seconds(k.ns)
	}
}

// Reading says what the block's NEES means: "consistent" when its mean lies
// within the bounds expected of independent samples, "errors larger than
// claimed" above them (the covariance claims too much), "errors smaller
// than claimed" below them (it claims too little: cautious, not unsafe),
// "-" without samples.
func (n *NEES) Reading() string {
	switch {
	case n.Mean == nil || n.MeanLower == nil:
		return "-"
	case *n.Mean > *n.MeanUpper:
		return "errors larger than claimed"
	case *n.Mean < *n.MeanLower:
		return "errors smaller than claimed"
	}
	return "consistent"
}
