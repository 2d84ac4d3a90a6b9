package whatif

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Status says how far a flight was compared.
type Status string

// The statuses of a flight.
const (
	// StatusCompared: read to the end and compared.
	StatusCompared Status = "compared"
	// StatusTruncated: read up to damage and compared up to there.
	StatusTruncated Status = "truncated"
	// StatusNotCompared: read, but no stamp was decided by both sides (a
	// recording without decisions and no --baseline, or no belief at all).
	StatusNotCompared Status = "not_compared"
	// StatusUnreadable: the recording could not be opened or read.
	StatusUnreadable Status = "unreadable"
)

// FlightResult is one flight's comparison, reduced to what is printed:
// its size does not grow with the flight's length beyond the capped rows
// and lanes.
type FlightResult struct {
	// Type is "flight" in the JSON lines.
	Type string `json:"type"`
	// Path names the flight as given or as found below a directory.
	Path string `json:"path"`
	// Format says what the recording is ("ghost ROS 2 recording (CDR)", a
	// Python reference recording, a PX4 ULog).
	Format string `json:"format,omitempty"`
	Status Status `json:"status"`
	// Error is why the flight could not be read (unreadable), or the
	// damage it was read up to (truncated), or why nothing was compared.
	Error string `json:"error,omitempty"`
	// Baseline is "recorded" or the id of the baseline policy;
	// RecordedPolicies the policy ids the recorded decisions name (at most
	// maxPolicies).
	Baseline         string   `json:"baseline"`
	RecordedPolicies []string `json:"recorded_policies,omitempty"`
	Candidate        string   `json:"candidate"`

	// FirstStampNs and LastStampNs bound the stamps compared; times in the
	// text are seconds from FirstStampNs.
	FirstStampNs int64 `json:"first_stamp_ns"`
	LastStampNs  int64 `json:"last_stamp_ns"`
	// Compared counts the stamps both sides decided; Changed those whose
	// kind or reason differ, KindChanged those whose kind differs.
	Compared    uint64 `json:"compared"`
	Changed     uint64 `json:"changed"`
	KindChanged uint64 `json:"kind_changed"`
	// Counterfactual counts the compared stamps after the first command
	// divergence.
	Counterfactual uint64 `json:"counterfactual"`
	// OnlyBaseline and OnlyCandidate count stamps one side decided and the
	// other did not (a recorder that started late, a belief the candidate's
	// configuration rejects); they are not compared.
	OnlyBaseline  uint64 `json:"only_baseline"`
	OnlyCandidate uint64 `json:"only_candidate"`
	// RecordedSkipped counts recorded decisions left out: undecodable, or
	// not after the previous recorded stamp (a repeat).
	RecordedSkipped uint64 `json:"recorded_skipped,omitempty"`

	// BaselineKinds and CandidateKinds count the compared decisions by kind.
	BaselineKinds  []KindCount `json:"baseline_kinds"`
	CandidateKinds []KindCount `json:"candidate_kinds"`
	// KindPairs count the compared decisions whose kind differs, by pair.
	KindPairs []KindPair `json:"kind_pairs"`
	// FirstDivergence is the first compared decision that differs in kind
	// or reason; CommandDivergence the first whose command differs (see
	// Commands): from after it on, what the candidate decides is
	// counterfactual.
	FirstDivergence   *Divergence `json:"first_divergence,omitempty"`
	CommandDivergence *Divergence `json:"command_divergence,omitempty"`
	// Onsets are the failsafe kinds' first decisions on each side.
	Onsets []Onset `json:"onsets"`
	// Reasons are the reasons whose counts differ between the sides, with
	// the rules that give them.
	Reasons []ReasonChange `json:"reasons"`
	// NewAbstains counts compared stamps where the candidate abstains and
	// the baseline does not.
	NewAbstains uint64 `json:"new_abstains"`
	// NewKinds are the kinds the candidate decided in this flight and the
	// baseline did not.
	NewKinds []string `json:"new_kinds"`
	// Rows are the stretches of differing decisions, in stamp order, at
	// most Options.MaxRows; RowsOmitted counts those left out.
	Rows        []Row  `json:"rows"`
	RowsOmitted uint64 `json:"rows_omitted,omitempty"`

	// lanes are the two sides' kinds over the compared stamps, for the
	// HTML timeline; not in the JSON.
	lanes [2]lane
	// kinds are masks of the kinds each side decided (bit per kind).
	kinds [2]uint16
}

// KindCount is the number of decisions of one kind.
type KindCount struct {
	Kind string `json:"kind"`
	N    uint64 `json:"n"`
}

// KindPair counts decisions the baseline decided as From and the
// candidate as To; Counterfactual of them come after the first command
// divergence.
type KindPair struct {
	From           string `json:"from"`
	To             string `json:"to"`
	N              uint64 `json:"n"`
	Counterfactual uint64 `json:"counterfactual"`
}

// Divergence is one compared stamp where the sides differ.
type Divergence struct {
	StampNs   int64  `json:"stamp_ns"`
	Baseline  string `json:"baseline"`  // kind/reason
	Candidate string `json:"candidate"` // kind/reason
}

// Onset is a failsafe kind's first decision on each side: nil where that
// side never decided it. ShiftNs is the candidate's onset less the
// baseline's (negative: earlier), when both have one. Counterfactual is
// set when the candidate's onset comes after the first command
// divergence: the vehicle would already have been elsewhere.
type Onset struct {
	Kind              string `json:"kind"`
	BaselineNs        *int64 `json:"baseline_ns"`
	CandidateNs       *int64 `json:"candidate_ns"`
	ShiftNs           *int64 `json:"shift_ns"`
	Counterfactual    bool   `json:"counterfactual"`
	BaselineEpisodes  uint64 `json:"baseline_episodes"`
	CandidateEpisodes uint64 `json:"candidate_episodes"`
}

// ReasonChange is a reason decided a different number of times by the two
// sides, with the names of the rules that give it (empty for the built-in
// policies and recorded reasons no supplied policy gives).
type ReasonChange struct {
	Reason    string   `json:"reason"`
	Rules     []string `json:"rules,omitempty"`
	Baseline  uint64   `json:"baseline"`
	Candidate uint64   `json:"candidate"`
}

// Row is a stretch of consecutive compared stamps that differ the same
// way. Mark is "first" for the row that starts at the first command
// divergence, "counterfactual" for every row after it, "" before it.
type Row struct {
	FromNs    int64  `json:"from_ns"`
	ToNs      int64  `json:"to_ns"`
	Decisions uint64 `json:"decisions"`
	Baseline  string `json:"baseline"`  // kind/reason
	Candidate string `json:"candidate"` // kind/reason
	Mark      string `json:"mark,omitempty"`
}

// Row marks.
const (
	MarkFirst          = "first"
	MarkCounterfactual = "counterfactual"
)

// lane is one side's kinds over the compared stamps, as runs; truncated
// says runs past maxLaneRuns were not kept.
type lane struct {
	runs      []run
	truncated bool
}

type run struct {
	fromNs, toNs int64
	kind         decisions.Kind
	decisions    uint64
}

// Summary totals a fleet's comparisons.
type Summary struct {
	// Type is "summary" in the JSON lines.
	Type      string `json:"type"`
	Candidate string `json:"candidate"`
	Baseline  string `json:"baseline"`
	// Flights counts them all; Changed those with a kind changed,
	// ReasonsOnly those whose only changes are reasons, Unchanged those
	// compared without a change; Truncated, NotCompared and Unreadable
	// are also named in Failures.
	Flights     int `json:"flights"`
	Changed     int `json:"changed"`
	ReasonsOnly int `json:"reasons_only"`
	Unchanged   int `json:"unchanged"`
	Truncated   int `json:"truncated"`
	NotCompared int `json:"not_compared"`
	Unreadable  int `json:"unreadable"`
	// Decisions compared, and of them changed (kind or reason) and
	// counterfactual, over every flight.
	Decisions        uint64     `json:"decisions"`
	DecisionsChanged uint64     `json:"decisions_changed"`
	KindChanged      uint64     `json:"kind_changed"`
	Counterfactual   uint64     `json:"counterfactual"`
	KindPairs        []KindPair `json:"kind_pairs"`
	// EarliestShift and LatestShift are the smallest and largest onset
	// shifts over every flight and kind (first in path order on a tie).
	EarliestShift *Shift `json:"earliest_shift,omitempty"`
	LatestShift   *Shift `json:"latest_shift,omitempty"`
	// NewAbstains and NewAbstainFlights count the stamps, and the flights,
	// where the candidate abstains and the baseline did not.
	NewAbstains       uint64 `json:"new_abstains"`
	NewAbstainFlights int    `json:"new_abstain_flights"`
	// NeverBefore are the kinds the candidate decided in some flight and
	// the baseline decided in none.
	NeverBefore []string `json:"never_before"`
	// Failures names every flight that was not compared to its end.
	Failures []Failure `json:"failures"`
	// Cases is the candidate's table cases run by the policy test, when
	// given.
	Cases *CasesView `json:"cases,omitempty"`
	// ExitStatus is the command's exit status, when the caller sets it.
	ExitStatus int `json:"exit_status"`

	pairs                [decisions.NumKinds][decisions.NumKinds][2]uint64
	baseKinds, candKinds uint16
}

// Shift is one flight's onset shift of one kind.
type Shift struct {
	Path           string `json:"path"`
	Kind           string `json:"kind"`
	ShiftNs        int64  `json:"shift_ns"`
	Counterfactual bool   `json:"counterfactual"`
}

// Failure names a flight not compared to its end, and why.
type Failure struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	Error  string `json:"error"`
}

// CasesView is what the policy test says of the candidate's table cases.
type CasesView struct {
	File   string `json:"file"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
	// Failures are the failing cases' lines, as policy test prints them.
	Failures []string `json:"failures,omitempty"`
}
