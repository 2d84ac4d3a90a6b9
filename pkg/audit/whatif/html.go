package whatif

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit/report"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// HTMLWriter writes the comparison as one self-contained HTML page in the
// report's style: a section per changed flight with its timeline (the
// baseline's and the candidate's lanes side by side on one time axis), a
// line per other flight, then the fleet summary. It writes as flights
// come, so the page's size, not the writer's memory, grows with the fleet.
type HTMLWriter struct {
	w       *bufio.Writer
	err     error
	started bool
	n       int // flights written
}

// NewHTMLWriter writes the page to w; Summary ends it.
func NewHTMLWriter(w io.Writer) *HTMLWriter {
	return &HTMLWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// extraCSS styles what only this page has.
const extraCSS = `.cf{color:#8a4b00;font-weight:600}`

func (h *HTMLWriter) s(parts ...string) {
	for _, p := range parts {
		if h.err != nil {
			return
		}
		_, h.err = h.w.WriteString(p)
	}
}

func (h *HTMLWriter) row(label, htmlText string) {
	h.s("<tr><td>", esc(label), "</td><td>", htmlText, "</td></tr>\n")
}

func esc(s string) string { return html.EscapeString(s) }

// start writes the page's head, title and legend once.
func (h *HTMLWriter) start(candidate, baseline string) {
	if h.started {
		return
	}
	h.started = true
	title := "What-if: " + candidate + " against " + baseline
	if baseline == baselineRecorded {
		title = "What-if: " + candidate + " against the recorded decisions"
	}
	h.s("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
	h.s(`<meta name="viewport" content="width=device-width,initial-scale=1">`)
	h.s("<title>", esc(title), "</title><style>", report.Style(), extraCSS, "</style></head><body>\n")
	h.s("<h1>", esc(title), "</h1>\n")
	h.s(`<p>Every flight re-decided under the candidate policy and compared, belief stamp by belief stamp, with the baseline. `,
		`A changed flight shows the baseline's decisions above the candidate's on the stamps both decided, the stretches where their kinds differ, `,
		`and, hatched, everything after the first decision that would have commanded the vehicle differently: from there the recorded vehicle is what the baseline made of it, `,
		`so what the candidate decides later is counterfactual. The <a href="#summary">fleet summary</a> is at the end.</p>`+"\n")
	h.s(`<table class="legend">`, report.KindLegend())
	h.s(`<tr><td><span class="sw" style="background:`, report.Ink, `"></span></td><td>the two lanes' kinds differ</td></tr>`, "\n")
	h.s(`<tr><td><span class="sw" style="background:`, report.HatchSwatch, `"></span></td>`,
		`<td>counterfactual: after the first decision that commands the vehicle differently</td></tr>`, "\n")
	h.s("<tr><td>┆</td><td>the first divergence (kind or reason) and the first command divergence</td></tr></table>\n")
}

// Flight writes one flight: a section with its timeline when a kind or a
// reason changed, a line otherwise.
func (h *HTMLWriter) Flight(r *FlightResult) error {
	h.start(r.Candidate, r.Baseline)
	h.n++
	id := "flight-" + strconv.Itoa(h.n)
	switch {
	case r.Status == StatusUnreadable || r.Status == StatusNotCompared:
		h.s(`<p id="`, id, `" class="note">`, esc(r.Path), ": ", esc(headline(r)), "</p>\n")
		return h.err
	case r.Changed == 0:
		h.s(`<p id="`, id, `" class="muted">`, esc(r.Path), ": ", esc(headline(r)), "</p>\n")
		return h.err
	}
	h.s(`<h2 id="`, id, `">`, esc(r.Path), "</h2>\n")
	h.flightTable(r)
	fig := report.DrawLanes(lanesFigure(r, id))
	h.s("<figure>")
	if h.err == nil {
		_, h.err = h.w.Write(fig.SVG)
	}
	h.s("</figure>\n")
	h.rows(r)
	return h.err
}

// flightTable writes a changed flight's figures.
func (h *HTMLWriter) flightTable(r *FlightResult) {
	h.s(`<table class="head">`)
	h.row("result", esc(headline(r)))
	if r.Format != "" {
		h.row("format", esc(r.Format))
	}
	h.row("baseline", esc(baselineText(r)))
	h.row("candidate", esc(r.Candidate))
	h.row("compared", esc(fmt.Sprintf("%d decisions, stamps %d .. %d (%s)", r.Compared, r.FirstStampNs, r.LastStampNs, seconds(r.LastStampNs-r.FirstStampNs))))
	if r.OnlyBaseline+r.OnlyCandidate > 0 {
		h.row("decided by one side only", esc(fmt.Sprintf("baseline %d, candidate %d (not compared)", r.OnlyBaseline, r.OnlyCandidate)))
	}
	h.row("by kind", esc(kindCounts(r)))
	if len(r.KindPairs) > 0 {
		h.row("kind pairs", esc(pairsText(r.KindPairs)))
	}
	if d := r.FirstDivergence; d != nil {
		h.row("first divergence", esc(fmt.Sprintf("%s (stamp %d): %s -> %s", at(d.StampNs, r.FirstStampNs), d.StampNs, d.Baseline, d.Candidate)))
	}
	if d := r.CommandDivergence; d != nil {
		h.row("commands differ from", esc(fmt.Sprintf("%s (stamp %d): %s -> %s", at(d.StampNs, r.FirstStampNs), d.StampNs, d.Baseline, d.Candidate))+
			` <span class="cf">`+esc(fmt.Sprintf("the %d compared decisions after it are counterfactual", r.Counterfactual))+"</span>")
	}
	for _, o := range r.Onsets {
		h.row("onset "+o.Kind, esc(onsetText(&o, r.FirstStampNs)))
	}
	for _, rc := range r.Reasons {
		text := fmt.Sprintf("baseline %d, candidate %d", rc.Baseline, rc.Candidate)
		if len(rc.Rules) > 0 {
			text += " (rule " + strings.Join(rc.Rules, ", ") + ")"
		}
		h.row("reason "+rc.Reason, esc(text))
	}
	if r.NewAbstains > 0 {
		h.row("new abstains", strconv.FormatUint(r.NewAbstains, 10))
	}
	if len(r.NewKinds) > 0 {
		h.row("new kinds", esc(strings.Join(r.NewKinds, ", ")))
	}
	h.s("</table>\n")
}

// rows writes a changed flight's rows.
func (h *HTMLWriter) rows(r *FlightResult) {
	h.s(`<table><tr><th></th><th class="num">from</th><th class="num">to</th><th class="num">decisions</th><th>baseline</th><th>candidate</th></tr>`, "\n")
	for _, row := range r.Rows {
		mark := ""
		switch row.Mark {
		case MarkFirst:
			mark = `<span class="cf">first command divergence</span>`
		case MarkCounterfactual:
			mark = `<span class="cf">counterfactual</span>`
		}
		h.s("<tr><td>", mark, `</td><td class="num">`, esc(at(row.FromNs, r.FirstStampNs)), `</td><td class="num">`, esc(at(row.ToNs, r.FirstStampNs)),
			`</td><td class="num">`, strconv.FormatUint(row.Decisions, 10), `</td><td class="kind">`, esc(row.Baseline),
			`</td><td class="kind">`, esc(row.Candidate), "</td></tr>\n")
	}
	if r.RowsOmitted > 0 {
		h.s(`<tr><td colspan="6" class="muted">... and `, strconv.FormatUint(r.RowsOmitted, 10), " more rows</td></tr>\n")
	}
	h.s("</table>\n")
}

// lanesFigure is a changed flight's timeline.
func lanesFigure(r *FlightResult, id string) report.LanesFigure {
	f := report.LanesFigure{
		Name: id, Title: "Baseline and candidate decisions (time from the first compared stamp)",
		OriginNs: r.FirstStampNs, StartNs: r.FirstStampNs, EndNs: r.LastStampNs,
		DifferLabel: "kind differs",
	}
	for s, label := range [2]string{"baseline", "candidate"} {
		l := report.KindLane{Label: label, Truncated: r.lanes[s].truncated}
		for _, ru := range r.lanes[s].runs {
			l.Runs = append(l.Runs, report.KindRun{StartNs: ru.fromNs, EndNs: ru.toNs, Kind: ru.kind,
				Title: fmt.Sprintf("%s: %s, %s .. %s, %d decisions", label, ru.kind, at(ru.fromNs, r.FirstStampNs), at(ru.toNs, r.FirstStampNs), ru.decisions)})
		}
		f.Lanes = append(f.Lanes, l)
	}
	f.Differ = differ(&r.lanes[0], &r.lanes[1], r.FirstStampNs)
	if d := r.CommandDivergence; d != nil {
		f.Hatched = &report.Span{StartNs: d.StampNs, EndNs: r.LastStampNs, Label: "counterfactual"}
	}
	if d := r.FirstDivergence; d != nil && (r.CommandDivergence == nil || d.StampNs != r.CommandDivergence.StampNs) {
		f.Marks = append(f.Marks, report.Span{StartNs: d.StampNs, Label: "first divergence " + at(d.StampNs, r.FirstStampNs)})
	}
	if d := r.CommandDivergence; d != nil {
		f.Marks = append(f.Marks, report.Span{StartNs: d.StampNs, Label: "commands differ from " + at(d.StampNs, r.FirstStampNs)})
	}
	return f
}

// differ lists the stretches where the two lanes' kinds differ. Both lanes
// hold runs over the same compared stamps, so a kind changes in either only
// where one of its runs starts; a cut lane ends the comparison where it
// ends.
func differ(a, b *lane, origin int64) []report.Span {
	if len(a.runs) == 0 || len(b.runs) == 0 {
		return nil
	}
	end := min(a.runs[len(a.runs)-1].toNs, b.runs[len(b.runs)-1].toNs)
	var out []report.Span
	var last [2]decisions.Kind
	for i, j := 0, 0; ; {
		from := max(a.runs[i].fromNs, b.runs[j].fromNs)
		if from > end {
			break
		}
		to := end
		if i+1 < len(a.runs) {
			to = min(to, a.runs[i+1].fromNs)
		}
		if j+1 < len(b.runs) {
			to = min(to, b.runs[j+1].fromNs)
		}
		if ka, kb := a.runs[i].kind, b.runs[j].kind; ka != kb {
			if n := len(out); n > 0 && out[n-1].EndNs == from && last == [2]decisions.Kind{ka, kb} {
				out[n-1].EndNs = to
			} else {
				out = append(out, report.Span{StartNs: from, EndNs: to, Label: fmt.Sprintf("%s -> %s from %s", ka, kb, at(from, origin))})
				last = [2]decisions.Kind{ka, kb}
			}
		}
		advanced := false
		if i+1 < len(a.runs) && a.runs[i+1].fromNs == to {
			i, advanced = i+1, true
		}
		if j+1 < len(b.runs) && b.runs[j+1].fromNs == to {
			j, advanced = j+1, true
		}
		if !advanced {
			break
		}
	}
	return out
}

// Summary writes the fleet summary and ends the page.
func (h *HTMLWriter) Summary(s *Summary) error {
	h.start(s.Candidate, s.Baseline)
	h.s(`<h2 id="summary">Fleet summary</h2>`, "\n", `<table class="head">`)
	h.row("candidate", esc(s.Candidate))
	h.row("baseline", esc(summaryBaseline(s.Baseline)))
	h.row("flights", esc(fmt.Sprintf("%d: %d changed, %d reasons only, %d unchanged; %d not compared, %d truncated, %d unreadable",
		s.Flights, s.Changed, s.ReasonsOnly, s.Unchanged, s.NotCompared, s.Truncated, s.Unreadable)))
	h.row("decisions", esc(fmt.Sprintf("%d compared, %d differ (%d in kind), %d counterfactual", s.Decisions, s.DecisionsChanged, s.KindChanged, s.Counterfactual)))
	if len(s.KindPairs) > 0 {
		h.row("kind pairs", esc(pairsText(s.KindPairs)))
	}
	for _, e := range []struct {
		label string
		sh    *Shift
	}{{"earliest onset shift", s.EarliestShift}, {"latest onset shift", s.LatestShift}} {
		if e.sh != nil {
			h.row(e.label, esc(fmt.Sprintf("%s %s in %s%s", e.sh.Kind, shiftText(e.sh.ShiftNs), e.sh.Path, counterfactualText(e.sh.Counterfactual))))
		}
	}
	h.row("new abstains", esc(fmt.Sprintf("%d in %d flights", s.NewAbstains, s.NewAbstainFlights)))
	never := "none"
	if len(s.NeverBefore) > 0 {
		never = strings.Join(s.NeverBefore, ", ")
	}
	h.row("kinds never decided before", esc(never))
	if c := s.Cases; c != nil {
		text := esc(fmt.Sprintf("%s: %d passed, %d failed", c.File, c.Passed, c.Failed))
		for _, f := range c.Failures {
			text += "<br>" + esc(f)
		}
		h.row("candidate's cases", text)
	}
	for _, f := range s.Failures {
		h.row("failed", esc(fmt.Sprintf("%s (%s): %s", f.Path, f.Status, f.Error)))
	}
	h.s("</table>\n</body></html>\n")
	if h.err != nil {
		return fmt.Errorf("write page: %w", h.err)
	}
	if err := h.w.Flush(); err != nil {
		return fmt.Errorf("write page: %w", err)
	}
	return nil
}
