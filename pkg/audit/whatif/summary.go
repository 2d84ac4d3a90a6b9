package whatif

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// newSummary starts the fleet summary of a run under opts.
func newSummary(opts Options) *Summary {
	return &Summary{Type: "summary", Candidate: opts.Candidate.ID(), Baseline: baselineName(opts.Baseline)}
}

// add takes one flight's result; flights are added in the order written,
// so ties between shifts go to the first in that order.
func (s *Summary) add(r *FlightResult) {
	s.Flights++
	switch r.Status {
	case StatusTruncated:
		s.Truncated++
	case StatusNotCompared:
		s.NotCompared++
	case StatusUnreadable:
		s.Unreadable++
	}
	if r.Status != StatusCompared {
		s.Failures = append(s.Failures, Failure{Path: r.Path, Status: r.Status, Error: r.Error})
	}
	if r.Status == StatusCompared || r.Status == StatusTruncated {
		switch {
		case r.KindChanged > 0:
			s.Changed++
		case r.Changed > 0:
			s.ReasonsOnly++
		case r.Status == StatusCompared:
			s.Unchanged++
		}
	}
	s.Decisions += r.Compared
	s.DecisionsChanged += r.Changed
	s.KindChanged += r.KindChanged
	s.Counterfactual += r.Counterfactual
	for _, p := range r.KindPairs {
		from, _ := decisions.ParseKind(p.From)
		to, _ := decisions.ParseKind(p.To)
		s.pairs[from][to][0] += p.N
		s.pairs[from][to][1] += p.Counterfactual
	}
	for _, o := range r.Onsets {
		if o.ShiftNs == nil || *o.ShiftNs == 0 {
			continue
		}
		sh := &Shift{Path: r.Path, Kind: o.Kind, ShiftNs: *o.ShiftNs, Counterfactual: o.Counterfactual}
		if s.EarliestShift == nil || sh.ShiftNs < s.EarliestShift.ShiftNs {
			s.EarliestShift = sh
		}
		if s.LatestShift == nil || sh.ShiftNs > s.LatestShift.ShiftNs {
			s.LatestShift = sh
		}
	}
	s.NewAbstains += r.NewAbstains
	if r.NewAbstains > 0 {
		s.NewAbstainFlights++
	}
	s.baseKinds |= r.kinds[baseSide]
	s.candKinds |= r.kinds[candSide]
}

// finish lists the fleet's totals.
func (s *Summary) finish() {
	s.KindPairs = pairList(&s.pairs)
	if s.KindPairs == nil {
		s.KindPairs = []KindPair{}
	}
	s.NeverBefore = []string{}
	for k := range decisions.Kind(decisions.NumKinds) {
		if s.candKinds&(1<<k) != 0 && s.baseKinds&(1<<k) == 0 {
			s.NeverBefore = append(s.NeverBefore, k.String())
		}
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
}
