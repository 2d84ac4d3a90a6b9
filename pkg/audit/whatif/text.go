package whatif

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// TextWriter writes the comparison for a person: a block per flight, then
// the summary.
type TextWriter struct {
	w io.Writer
}

// NewTextWriter writes to w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{w: w} }

// Flight writes one flight's block.
func (t *TextWriter) Flight(r *FlightResult) error {
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "flight %s: %s\n", r.Path, headline(r))
	if r.Format != "" {
		fmt.Fprintf(tw, "  format\t%s\n", r.Format)
	}
	fmt.Fprintf(tw, "  baseline\t%s\n", baselineText(r))
	fmt.Fprintf(tw, "  candidate\t%s\n", r.Candidate)
	if r.Status == StatusUnreadable {
		return tw.Flush()
	}
	if r.Compared > 0 {
		fmt.Fprintf(tw, "  compared\t%d decisions, stamps %d .. %d (%s)\n", r.Compared, r.FirstStampNs, r.LastStampNs,
			seconds(r.LastStampNs-r.FirstStampNs))
	}
	if r.OnlyBaseline+r.OnlyCandidate > 0 {
		fmt.Fprintf(tw, "  decided by one side only\tbaseline %d, candidate %d (not compared)\n", r.OnlyBaseline, r.OnlyCandidate)
	}
	if r.RecordedSkipped > 0 {
		fmt.Fprintf(tw, "  recorded decisions left out\t%d (undecodable, or not after the previous stamp)\n", r.RecordedSkipped)
	}
	if r.Changed == 0 {
		return tw.Flush()
	}
	fmt.Fprintf(tw, "  by kind\t%s\n", kindCounts(r))
	if len(r.KindPairs) > 0 {
		fmt.Fprintf(tw, "  kind pairs\t%s\n", pairsText(r.KindPairs))
	}
	if d := r.FirstDivergence; d != nil {
		fmt.Fprintf(tw, "  first divergence\t%s (stamp %d): %s -> %s\n", at(d.StampNs, r.FirstStampNs), d.StampNs, d.Baseline, d.Candidate)
	}
	if d := r.CommandDivergence; d != nil {
		fmt.Fprintf(tw, "  commands differ from\t%s (stamp %d): %s -> %s; the %d compared decisions after it are counterfactual\n",
			at(d.StampNs, r.FirstStampNs), d.StampNs, d.Baseline, d.Candidate, r.Counterfactual)
	}
	for _, o := range r.Onsets {
		fmt.Fprintf(tw, "  onset %s\t%s\n", o.Kind, onsetText(&o, r.FirstStampNs))
	}
	for _, rc := range r.Reasons {
		rules := ""
		if len(rc.Rules) > 0 {
			rules = " (rule " + strings.Join(rc.Rules, ", ") + ")"
		}
		fmt.Fprintf(tw, "  reason %s\tbaseline %d, candidate %d%s\n", rc.Reason, rc.Baseline, rc.Candidate, rules)
	}
	if r.NewAbstains > 0 {
		fmt.Fprintf(tw, "  new abstains\t%d\n", r.NewAbstains)
	}
	if len(r.NewKinds) > 0 {
		fmt.Fprintf(tw, "  new kinds\t%s\n", strings.Join(r.NewKinds, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return t.rows(r)
}

// rows writes the flight's rows as a table of their own.
func (t *TextWriter) rows(r *FlightResult) error {
	fmt.Fprintln(t.w, "  rows (! the first decision that commands the vehicle differently; * after it: counterfactual,")
	fmt.Fprintln(t.w, "        the recorded vehicle followed the baseline from there)")
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	for _, row := range r.Rows {
		mark := " "
		switch row.Mark {
		case MarkFirst:
			mark = "!"
		case MarkCounterfactual:
			mark = "*"
		}
		fmt.Fprintf(tw, "    %s %s .. %s\t%d\t%s -> %s\n", mark, at(row.FromNs, r.FirstStampNs), at(row.ToNs, r.FirstStampNs),
			row.Decisions, row.Baseline, row.Candidate)
	}
	if r.RowsOmitted > 0 {
		fmt.Fprintf(tw, "    ... and %d more rows\t\t\n", r.RowsOmitted)
	}
	return tw.Flush()
}

// Summary writes the fleet summary.
func (t *TextWriter) Summary(s *Summary) error {
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "summary")
	fmt.Fprintf(tw, "  candidate\t%s\n", s.Candidate)
	fmt.Fprintf(tw, "  baseline\t%s\n", summaryBaseline(s.Baseline))
	fmt.Fprintf(tw, "  flights\t%d: %d changed, %d reasons only, %d unchanged; %d not compared, %d truncated, %d unreadable\n",
		s.Flights, s.Changed, s.ReasonsOnly, s.Unchanged, s.NotCompared, s.Truncated, s.Unreadable)
	fmt.Fprintf(tw, "  decisions\t%d compared, %d differ (%d in kind), %d counterfactual\n", s.Decisions, s.DecisionsChanged, s.KindChanged, s.Counterfactual)
	if len(s.KindPairs) > 0 {
		fmt.Fprintf(tw, "  kind pairs\t%s\n", pairsText(s.KindPairs))
	}
	for _, e := range []struct {
		label string
		sh    *Shift
	}{{"earliest onset shift", s.EarliestShift}, {"latest onset shift", s.LatestShift}} {
		if e.sh != nil {
			fmt.Fprintf(tw, "  %s\t%s %s in %s%s\n", e.label, e.sh.Kind, shiftText(e.sh.ShiftNs), e.sh.Path, counterfactualText(e.sh.Counterfactual))
		}
	}
	fmt.Fprintf(tw, "  new abstains\t%d in %d flights\n", s.NewAbstains, s.NewAbstainFlights)
	never := "none"
	if len(s.NeverBefore) > 0 {
		never = strings.Join(s.NeverBefore, ", ")
	}
	fmt.Fprintf(tw, "  kinds never decided before\t%s\n", never)
	if c := s.Cases; c != nil {
		fmt.Fprintf(tw, "  candidate's cases\t%s: %d passed, %d failed\n", c.File, c.Passed, c.Failed)
		for _, f := range c.Failures {
			fmt.Fprintf(tw, "    %s\t\n", f)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range s.Failures {
		if _, err := fmt.Fprintf(t.w, "  failed: %s (%s): %s\n", f.Path, f.Status, f.Error); err != nil {
			return err
		}
	}
	return nil
}

// headline is a flight's one-line verdict.
func headline(r *FlightResult) string {
	switch r.Status {
	case StatusUnreadable:
		return "UNREADABLE: " + r.Error
	case StatusNotCompared:
		return "NOT COMPARED: " + r.Error
	}
	var s string
	switch {
	case r.Changed == 0:
		s = fmt.Sprintf("unchanged, %d decisions compared", r.Compared)
	case r.KindChanged == 0:
		s = fmt.Sprintf("%d of %d decisions differ in reason only", r.Changed, r.Compared)
	default:
		s = fmt.Sprintf("%d of %d decisions differ (%d in kind)", r.Changed, r.Compared, r.KindChanged)
	}
	if r.Status == StatusTruncated {
		s += "; TRUNCATED, compared up to the damage: " + r.Error
	}
	return s
}

// summaryBaseline names the fleet's baseline.
func summaryBaseline(b string) string {
	if b == baselineRecorded {
		return "the recorded decisions (for a PX4 log, the configuration's policy)"
	}
	return b + " (a policy, on the same inputs)"
}

func baselineText(r *FlightResult) string {
	if r.Baseline != baselineRecorded {
		return r.Baseline + " (a policy, on the same inputs)"
	}
	if len(r.RecordedPolicies) == 0 {
		return "the recorded decisions"
	}
	return "the recorded decisions (of " + strings.Join(r.RecordedPolicies, ", ") + ")"
}

// kindCounts writes the compared decisions by kind, baseline -> candidate.
func kindCounts(r *FlightResult) string {
	var parts []string
	for _, k := range kindOrder() {
		b, c := countOf(r.BaselineKinds, k), countOf(r.CandidateKinds, k)
		if b > 0 || c > 0 {
			parts = append(parts, fmt.Sprintf("%s %d -> %d", k, b, c))
		}
	}
	return strings.Join(parts, ", ")
}

func countOf(cs []KindCount, kind string) uint64 {
	for _, c := range cs {
		if c.Kind == kind {
			return c.N
		}
	}
	return 0
}

func pairsText(ps []KindPair) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s->%s %d", p.From, p.To, p.N)
		if p.Counterfactual > 0 {
			parts[i] += fmt.Sprintf(" (%d counterfactual)", p.Counterfactual)
		}
	}
	return strings.Join(parts, ", ")
}

// onsetText says how a kind's onset moved.
func onsetText(o *Onset, origin int64) string {
	ep := ""
	if o.BaselineEpisodes != o.CandidateEpisodes {
		ep = fmt.Sprintf(", episodes %d -> %d", o.BaselineEpisodes, o.CandidateEpisodes)
	}
	cf := counterfactualText(o.Counterfactual)
	switch {
	case o.BaselineNs == nil:
		return fmt.Sprintf("new: first at %s%s%s", at(*o.CandidateNs, origin), ep, cf)
	case o.CandidateNs == nil:
		return fmt.Sprintf("no longer decided: was first at %s%s", at(*o.BaselineNs, origin), ep)
	case *o.ShiftNs == 0:
		return fmt.Sprintf("unchanged at %s%s%s", at(*o.BaselineNs, origin), ep, cf)
	}
	return fmt.Sprintf("%s: %s -> %s%s%s", shiftText(*o.ShiftNs), at(*o.BaselineNs, origin), at(*o.CandidateNs, origin), ep, cf)
}

func counterfactualText(cf bool) string {
	if cf {
		return " (counterfactual: after the first command divergence)"
	}
	return ""
}

// shiftText says a shift as earlier or later.
func shiftText(ns int64) string {
	switch {
	case ns < 0:
		return seconds(-ns) + " earlier"
	case ns > 0:
		return seconds(ns) + " later"
	}
	return "unchanged"
}

// at writes a stamp as seconds from origin: "+12.345 s".
func at(stamp, origin int64) string { return "+" + seconds(stamp-origin) }

// seconds writes ns as seconds with millisecond digits, exactly (no float
// rounding): "12.345 s".
func seconds(ns int64) string {
	neg := ns < 0
	u := uint64(ns)
	if neg {
		u = -u
	}
	ms := (u + 500_000) / 1_000_000
	s := strconv.FormatUint(ms/1000, 10) + "." + fmt.Sprintf("%03d", ms%1000) + " s"
	if neg {
		return "-" + s
	}
	return s
}

// JSONWriter writes one JSON object per line: a line per flight, then the
// summary's, so a batch of flights can be spread over machines and their
// lines joined.
type JSONWriter struct {
	w io.Writer
}

// NewJSONWriter writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Flight writes the flight's line.
func (j *JSONWriter) Flight(r *FlightResult) error { return j.line(r) }

// Summary writes the summary's line.
func (j *JSONWriter) Summary(s *Summary) error { return j.line(s) }

func (j *JSONWriter) line(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	_, err = j.w.Write(append(data, '\n'))
	return err
}
