package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNoFlight is returned by Render and WriteFigures for a nil Flight.
var ErrNoFlight = errors.New("no flight to report")

// maxMarkRows bounds the rows of the marks and problems tables.
const maxMarkRows = 1000

// css is the report's whole style sheet: system fonts only, nothing loaded.
const css = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0 auto;max-width:1240px;padding:16px;color:#222;background:#fff}
h1{font-size:22px;margin:4px 0 12px}
h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px}
td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f4f4f4}
table.head td:first-child{font-weight:600;white-space:nowrap;color:#444}
.verdict{display:inline-block;padding:1px 10px;border-radius:4px;font-weight:700;color:#222;background:#eee;border:2px dashed #222}
.PASS{background:#fff;border-style:solid}.FAIL{background:#222;color:#fff;border-style:solid}
.sw{display:inline-block;width:11px;height:11px;margin-right:5px;vertical-align:-1px;border:1px solid #0003}
.sym{display:inline-block;width:13px;margin-right:3px;text-align:center;font-weight:700}
table.legend td{border-bottom:1px solid #f4f4f4}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.kind{white-space:nowrap}
figure{margin:10px 0}
figure svg{max-width:100%;height:auto;display:block}
tr:target{background:#fff3b0}
.note{color:#8a4b00}
.muted{color:#666}
`

// Render writes the report of f with the audit a as one self-contained
// HTML document: inline CSS and SVG, no script, no reference outside the
// file.
func Render(w io.Writer, f *Flight, a Audit) error {
	if f == nil {
		return ErrNoFlight
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{w: bw}
	t := newTimeAxis(f)
	title := "Decision audit report"
	if f.Recording != "" {
		title += ": " + f.Recording
	}
	p.s("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
	p.s(`<meta name="viewport" content="width=device-width,initial-scale=1">`)
	p.s("<title>", esc(title), "</title><style>", css, "</style></head><body>\n")
	p.s("<h1>", esc(title), "</h1>\n")
	p.header(f, a, t)
	p.s("<h2>Timeline</h2>\n")
	for _, fig := range Figures(f, a) {
		p.s(`<figure>`)
		p.b(fig.SVG)
		p.s("</figure>\n")
	}
	p.truthSection(f, a)
	p.legend()
	p.episodes(f, t)
	p.actions(f, a, t)
	p.unfollowed(f, t)
	p.marks(f, a, t)
	p.s(`<p class="muted">Time is the belief stamp, in seconds from the first stamp of the recording. `,
		`Each figure shows the worst value seen in each time slice (`, esc(fmtDur(f.BucketNs)), `), so short events stay visible; `,
		`the decision band, the action lane and the episode and action tables keep every change of decision kind and every receipt exactly.</p>`)
	p.s("</body></html>\n")
	if p.err != nil {
		return fmt.Errorf("write report: %w", p.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// printer writes strings, keeping the first error.
type printer struct {
	w   *bufio.Writer
	err error
}

func (p *printer) s(parts ...string) {
	for _, s := range parts {
		if p.err != nil {
			return
		}
		_, p.err = p.w.WriteString(s)
	}
}

func (p *printer) b(data []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(data)
	}
}

func (p *printer) row(label string, html string) {
	p.s("<tr><td>", esc(label), "</td><td>", html, "</td></tr>\n")
}

func (p *printer) header(f *Flight, a Audit, t timeAxis) {
	p.s(`<table class="head">`)
	rec := esc(f.Recording)
	if f.Library != "" {
		rec += ` <span class="muted">(written by ` + esc(f.Library) + `)</span>`
	}
	p.row("recording", rec)
	if f.HasStamps {
		p.row("span", fmt.Sprintf("%s of belief stamps; times below are seconds from the first stamp", esc(fmtSpan(uint64(f.LastStampNs)-uint64(f.FirstStampNs)))))
		p.row("date", esc(flightDate(f)))
	} else {
		p.row("span", "no stamped message in the recording")
	}
	var pol []string
	if len(a.PolicyIDs) > 0 {
		for _, id := range a.PolicyIDs {
			pol = append(pol, `<span class="mono">`+esc(id)+`</span>`)
		}
	} else {
		for _, c := range f.Policies {
			pol = append(pol, fmt.Sprintf(`<span class="mono">%s</span> (%d decisions)`, esc(c.Name), c.N))
		}
	}
	if len(pol) == 0 {
		pol = append(pol, `<span class="muted">none (no decisions)</span>`)
	}
	p.row("policy", strings.Join(pol, ", "))
	verdict := a.Verdict
	if verdict == "" {
		verdict = "not audited"
	}
	class := "verdict"
	if verdict == "PASS" || verdict == "FAIL" {
		class += " " + verdict
	}
	v := `<span class="` + class + `">` + esc(verdict) + `</span>`
	for _, r := range a.Reasons {
		v += `<br>` + esc(r)
	}
	p.row("audit verdict", v)
	if len(a.Hints) > 0 {
		var hs []string
		for _, h := range a.Hints {
			hs = append(hs, esc(h))
		}
		p.row("to fix", strings.Join(hs, "<br>"))
	}
	p.row("hash chain", countsHTML(a.Chain))
	p.row("policy re-run", countsHTML(a.Rerun))
	src := `<span class="muted">not stated</span>`
	if a.Source != "" {
		src = esc(a.Source)
	}
	p.row("input source", src)
	if a.Target != "" {
		p.row("target vehicle", esc(a.Target))
	}
	var kinds []string
	for _, k := range kindOrder {
		kinds = append(kinds, fmt.Sprintf(`<span class="sw" style="background:%s"></span>%s %d`, kindColor[k], esc(k.String()), f.Counts.ByKind[k]))
	}
	if f.Counts.OtherKinds > 0 {
		kinds = append(kinds, fmt.Sprintf(`<span class="sw" style="background:%s"></span>outside the catalog %d`, colGrey, f.Counts.OtherKinds))
	}
	p.row("decisions", fmt.Sprintf("%d in %d episodes: ", f.Counts.Decisions, uint64(len(f.Episodes))+f.EpisodesOmitted)+strings.Join(kinds, " &nbsp; "))
	c := f.Counts
	p.row("inputs", fmt.Sprintf("%d beliefs, %d self-assessments, %d perception reports; %d beliefs decided without an assessment; %d inputs rejected; %d identical repeats",
		c.Beliefs, c.Assessments, c.Perception, c.NoAssessment, c.Rejected, c.Duplicates))
	p.row("actions", esc(actionsSummary(f, a)))
	if f.HasStamps {
		p.row("mode vs decision", esc(modeSummary(f)))
		if s := UnfollowedSummary(f); s != "" {
			p.row("decided X, vehicle in Y", esc(s))
		}
	}
	for _, n := range f.Notes {
		p.row("note", `<span class="note">`+esc(n)+`</span>`)
	}
	p.s("</table>\n")
}

func countsHTML(cs []Count) string {
	if len(cs) == 0 {
		return `<span class="muted">not checked</span>`
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %d", esc(c.Name), c.N))
	}
	return strings.Join(parts, ", ")
}

// year2000 is where a time in ns since 1970 starts to look like a wall
// clock rather than a simulation or boot time.
const year2000 = 946684800 * int64(time.Second)

// flightDate says when the flight took place, when the recording tells:
// from stamps that are wall-clock times, else from log times that are.
func flightDate(f *Flight) string {
	const layout = "2006-01-02 15:04:05"
	utc := func(ns int64) string { return time.Unix(0, ns).UTC().Format(layout) }
	switch {
	case f.FirstStampNs >= year2000:
		return "flown " + utc(f.FirstStampNs) + " to " + utc(f.LastStampNs) + " UTC (the belief stamps are wall-clock time)"
	case f.FirstLogNs >= year2000:
		return "recorded " + utc(f.FirstLogNs) + " to " + utc(f.LastLogNs) + " UTC (log times; the belief stamps are not wall-clock time)"
	}
	return "no wall-clock time in the recording: its stamps and log times are simulation or boot time (log times span " +
		fmtSpan(uint64(f.LastLogNs)-uint64(f.FirstLogNs)) + ")"
}

// fmtSpan writes a duration (last minus first, taken unsigned so no span
// overflows) for people: "120.000 s", "1 h 02 min 03 s".
func fmtSpan(ns uint64) string {
	if ns < 600*uint64(time.Second) {
		return fmtSec(float64(ns) / 1e9)
	}
	s := ns / uint64(time.Second)
	if s < 3600 {
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min %02d s", s/3600, s/60%60, s%60)
}

// EpisodeRow is one row of the episode table as text (the golden tests
// compare these).
type EpisodeRow struct {
	ID, Kind, Start, End, Duration, Decisions, Reasons, Hash, FullHash string
}

// EpisodeRows returns the episode table's rows for f, as Render prints them.
func EpisodeRows(f *Flight) []EpisodeRow {
	t := newTimeAxis(f)
	n := min(len(f.Episodes), maxTableRows)
	rows := make([]EpisodeRow, 0, n)
	for i := range n {
		e := &f.Episodes[i]
		var rs []string
		for _, r := range e.Reasons {
			rs = append(rs, fmt.Sprintf("%s ×%d", r.Name, r.N))
		}
		if e.OtherReasons > 0 {
			rs = append(rs, fmt.Sprintf("others ×%d", e.OtherReasons))
		}
		dec := strconv.FormatUint(e.Decisions, 10)
		if e.NoAssessment > 0 {
			dec += fmt.Sprintf(" (%d without assessment)", e.NoAssessment)
		}
		hash, full := "none (decided without assessment)", ""
		if e.FirstHash != "" {
			hash, full = capText(e.FirstHash, 12), e.FirstHash
			if len(e.FirstHash) > 12 {
				hash = e.FirstHash[:12] + "…"
			}
		}
		rows = append(rows, EpisodeRow{
			ID:        "episode-" + strconv.Itoa(e.N),
			Kind:      e.Kind.String(),
			Start:     fmtSec(t.seconds(e.StartNs)),
			End:       fmtSec(t.seconds(e.EndNs)),
			Duration:  fmtSpan(uint64(e.EndNs) - uint64(e.StartNs)),
			Decisions: dec,
			Reasons:   strings.Join(rs, ", "),
			Hash:      hash,
			FullHash:  full,
		})
	}
	return rows
}

func (p *printer) episodes(f *Flight, t timeAxis) {
	p.s("<h2>Episodes</h2>\n")
	p.s(`<p class="muted">An episode is a maximal run of one decision kind; it ends where the next begins (the last one at its last decision). `,
		`Hash: the self-assessment SHA-256 of the episode's first decision (hover for all 64 digits).</p>`)
	if len(f.Episodes) == 0 {
		p.s("<p>No decisions in this recording.</p>\n")
		return
	}
	p.s(`<table><tr><th>#</th><th>kind</th><th class="num">start</th><th class="num">end</th><th class="num">duration</th>`,
		`<th class="num">decisions</th><th>reason</th><th>first assessment hash</th></tr>`, "\n")
	rows := EpisodeRows(f)
	for i, r := range rows {
		e := &f.Episodes[i]
		p.s(`<tr id="`, r.ID, `"><td class="num">`, strconv.Itoa(e.N), `</td><td class="kind"><span class="sw" style="background:`, KindColor(e.Kind), `"></span>`,
			esc(r.Kind), `</td><td class="num">`, r.Start, `</td><td class="num">`, r.End, `</td><td class="num">`, r.Duration,
			`</td><td class="num">`, esc(r.Decisions), `</td><td class="mono">`, esc(r.Reasons), `</td><td class="mono"`)
		if r.FullHash != "" {
			p.s(` title="`, esc(r.FullHash), `"`)
		}
		p.s(">", esc(r.Hash), "</td></tr>\n")
	}
	p.s("</table>\n")
	if omitted := uint64(len(f.Episodes)-len(rows)) + f.EpisodesOmitted; omitted > 0 {
		p.s(`<p class="note">`, strconv.FormatUint(omitted, 10), ` further episodes are not listed; the decision band shows them.</p>`)
	}
}

func (p *printer) marks(f *Flight, a Audit, t timeAxis) {
	p.s("<h2>Marks</h2>\n")
	if len(f.Marks) == 0 && len(a.Problems) == 0 {
		p.s("<p>No belief was decided without an assessment, no input was rejected and the audit listed no problem.</p>\n")
		return
	}
	p.s(`<p class="muted">Consecutive marks with the same text share a row.</p>`)
	p.s(`<table><tr><th>what</th><th class="num">time</th><th class="num">count</th><th>details</th></tr>`, "\n")
	rows, listed := 0, uint64(0)
	var cur *Mark
	var first, last int64
	var n uint64
	flush := func() {
		if cur == nil || rows >= maxMarkRows {
			return
		}
		rows++
		listed += n
		st, when := "before any stamp", fmtSec(t.seconds(max(first, t.origin)))
		if first != minStamp {
			st = "first stamp " + strconv.FormatInt(first, 10) + " ns"
		}
		if last != first {
			when += " to " + fmtSec(t.seconds(max(last, t.origin)))
		}
		p.s(`<tr><td>`, esc(cur.Kind.String()), `</td><td class="num" title="`, st, `">`,
			when, `</td><td class="num">`, strconv.FormatUint(n, 10), "</td><td>", esc(cur.Text), "</td></tr>\n")
	}
	add := func(m Mark) {
		if cur != nil && cur.Kind == m.Kind && cur.Text == m.Text {
			last, n = m.StampNs, n+1
			return
		}
		flush()
		cur, first, last, n = &m, m.StampNs, m.StampNs, 1
	}
	for _, pr := range a.Problems {
		add(Mark{Kind: MarkProblem, StampNs: pr.StampNs, LogNs: pr.LogNs, Text: pr.Text})
	}
	for _, m := range f.Marks {
		add(m)
	}
	flush()
	p.s("</table>\n")
	total := uint64(len(f.Marks)+len(a.Problems)) + f.MarksOmitted + a.ProblemsOmitted
	if total > listed {
		p.s(`<p class="note">`, strconv.FormatUint(total-listed, 10), ` further marks are not listed; the marks figure counts them.</p>`)
	}
}

// minStamp stands for "no stamp" in marks placed before any stamped message.
const minStamp = -1 << 63

// FigureFile is a figure as a standalone SVG file.
type FigureFile struct {
	Name string // <figure name>.svg
	Data []byte
}

// FigureFiles returns every figure of the report (Figures, then
// TruthFigures) as the standalone SVG files WriteFigures writes.
func FigureFiles(f *Flight, a Audit) ([]FigureFile, error) {
	if f == nil {
		return nil, ErrNoFlight
	}
	var out []FigureFile
	for _, fig := range append(Figures(f, a), TruthFigures(f)...) {
		data := append([]byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"), fig.SVG...)
		out = append(out, FigureFile{Name: fig.Name + ".svg", Data: append(data, '\n')})
	}
	return out, nil
}

// WriteFigures writes each figure to dir as <name>.svg, creating dir, and
// returns the paths written.
func WriteFigures(dir string, f *Flight, a Audit) ([]string, error) {
	files, err := FigureFiles(f, a)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	var paths []string
	for _, file := range files {
		path := filepath.Join(dir, file.Name)
		if err := os.WriteFile(path, file.Data, 0o644); err != nil {
			return paths, fmt.Errorf("figures: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
