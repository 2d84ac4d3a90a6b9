package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// figureNames are the figures every report has, in order; detail figures
// (detail-1, ...) come after the first when a stretch is crowded.
var figureNames = []string{"decisions", "levels", "std", "vehicle", "marks"}

// checkHTML applies the self-containment rules: nothing loaded from
// outside the file, no script, one well-formed <svg> per figure, and every
// in-page link landing on an element.
func checkHTML(t *testing.T, html []byte) {
	t.Helper()
	s := string(html)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url(", "src=", "@font-face"} {
		if strings.Contains(strings.ToLower(s), bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)(https?|ftp|file)://[^"'\s<>]*`).FindAllString(s, -1) {
		if m != "http://www.w3.org/2000/svg" {
			t.Errorf("report references %q", m)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)\b(href|src|action)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(s, -1) {
		if !strings.HasPrefix(m[2], "#") {
			t.Errorf("report links outside itself: %s", m[0])
		}
	}
	details := strings.Count(s, `id="fig-detail-`)
	if n := strings.Count(s, "<svg"); n != len(figureNames)+details {
		t.Errorf("report has %d <svg> elements, want %d (one per figure)", n, len(figureNames)+details)
	}
	for _, name := range figureNames {
		if !strings.Contains(s, `id="fig-`+name+`"`) {
			t.Errorf("figure %s missing", name)
		}
	}
	for i, chunk := range strings.Split(s, "<svg")[1:] {
		end := strings.Index(chunk, "</svg>")
		if end < 0 {
			t.Fatalf("svg %d not closed", i)
		}
		checkXML(t, "<svg"+chunk[:end+len("</svg>")])
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bid="([^"]+)"`).FindAllStringSubmatch(s, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(s, -1) {
		if !ids[m[1]] {
			t.Errorf("link to #%s has no target", m[1])
		}
	}
	if !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.HasSuffix(s, "</html>\n") {
		t.Error("report is not one complete HTML document")
	}
}

func checkXML(t *testing.T, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("svg is not well-formed XML: %v", err)
		}
	}
}

func render(t *testing.T, f *Flight, a Audit) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, f, a); err != nil {
		t.Fatal(err)
	}
	checkHTML(t, b.Bytes())
	return b.Bytes()
}

// everyKind is a recording with two decisions of every kind, each with its
// belief and assessment, plus a perception report.
func everyKind(t *testing.T) []recMsg {
	var msgs []recMsg
	msgs = append(msgs, perceptionMsg(t, decisions.PerceptionReport{StampSimNs: 0, Mode: decisions.PerceptionLowLight}, 0))
	for i := range 2 * decisions.NumKinds {
		stamp := int64(i) * 20 * ms
		b := belief(stamp, 0.01*float64(i+1), true, decisions.FlightModeOffboard, 1-float64(i)/20)
		a := assess(t, b)
		k := decisions.Kind(i / 2)
		msgs = append(msgs,
			beliefMsg(t, b, stamp+ms),
			assessmentMsg(t, a, stamp+2*ms),
			decisionMsg(t, rationale(stamp, k, "because_"+k.String(), a.SHA256()), stamp+2*ms))
	}
	return msgs
}

func TestCollectEdgeCases(t *testing.T) {
	oneBelief := belief(5*ms, 0.01, false, decisions.FlightModeInit, 0.9)
	tests := []struct {
		name      string
		msgs      func(t *testing.T) []recMsg
		decisions uint64
		episodes  []decisions.Kind
		hasStamps bool
	}{
		{"empty recording", func(*testing.T) []recMsg { return nil }, 0, nil, false},
		{"inputs, no decisions", func(t *testing.T) []recMsg {
			return []recMsg{beliefMsg(t, oneBelief, 6*ms), assessmentMsg(t, assess(t, oneBelief), 7*ms)}
		}, 0, nil, true},
		{"one decision", func(t *testing.T) []recMsg {
			a := assess(t, oneBelief)
			return []recMsg{beliefMsg(t, oneBelief, 6*ms), assessmentMsg(t, a, 7*ms),
				decisionMsg(t, rationale(5*ms, decisions.KindHold, "overall_uncertain", a.SHA256()), 7*ms)}
		}, 1, []decisions.Kind{decisions.KindHold}, true},
		{"every kind", everyKind, 2 * decisions.NumKinds, decisions.Kinds(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Collect(writeRecording(t, tc.msgs(t)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Counts.Decisions != tc.decisions || f.HasStamps != tc.hasStamps {
				t.Errorf("decisions %d, has stamps %v; want %d, %v", f.Counts.Decisions, f.HasStamps, tc.decisions, tc.hasStamps)
			}
			var kinds []decisions.Kind
			for _, e := range f.Episodes {
				kinds = append(kinds, e.Kind)
			}
			if !equalKinds(kinds, tc.episodes) {
				t.Errorf("episode kinds %v, want %v", kinds, tc.episodes)
			}
			html := string(render(t, f, NotAudited()))
			// Every kind decided shows on the band, linked to its row.
			for _, e := range f.Episodes {
				if !strings.Contains(html, `<a href="#episode-`+itoa(e.N)+`"><rect`) ||
					!strings.Contains(html, `fill="`+KindColor(e.Kind)+`"><title>episode `+itoa(e.N)+": "+e.Kind.String()) {
					t.Errorf("episode %d (%s) not drawn on the band", e.N, e.Kind)
				}
			}
			if tc.decisions == 0 && !strings.Contains(html, "No decisions in this recording.") {
				t.Error("empty episode table not explained")
			}
		})
	}
}

func equalKinds(a, b []decisions.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCollectMarks checks what the report derives from the recording
// alone: why a belief was decided without an assessment, and the inputs
// the decision path rejects.
func TestCollectMarks(t *testing.T) {
	b0 := belief(0, 0.01, true, decisions.FlightModeOffboard, 0.8)
	b1 := belief(20*ms, 0.01, true, decisions.FlightModeOffboard, 0.8)
	b2 := belief(40*ms, 0.01, true, decisions.FlightModeOffboard, 0.8)
	conflicting := b1
	conflicting.Flight.BatteryPct = 0.5
	a0, a1, a2 := assess(t, b0), assess(t, b1), assess(t, b2)
	msgs := []recMsg{
		beliefMsg(t, b0, 1*ms), assessmentMsg(t, a0, 2*ms),
		decisionMsg(t, rationale(0, decisions.KindProceed, "overall_known", a0.SHA256()), 2*ms),
		beliefMsg(t, b1, 21*ms),
		beliefMsg(t, b1, 22*ms),          // identical repeat: a no-op
		beliefMsg(t, conflicting, 23*ms), // same stamp, other content: rejected
		// b1 waits 100 ms, then is decided without its assessment...
		decisionMsg(t, rationale(20*ms, decisions.KindAbstainUncertain, "no_assessment", ""), 121*ms),
		// ... which arrives later: late, rejected.
		assessmentMsg(t, a1, 130*ms),
		beliefMsg(t, b2, 141*ms), assessmentMsg(t, a2, 142*ms),
		decisionMsg(t, rationale(40*ms, decisions.KindProceed, "overall_known", a2.SHA256()), 142*ms),
		{"/self_assessment", 150 * ms, []byte{0, 1, 0, 0, 7}}, // undecodable
		{"/decisions/actions", 151 * ms, []byte{0, 1, 0, 0, 1}},
	}
	f, err := Collect(writeRecording(t, msgs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Counts
	if c.Decisions != 3 || c.NoAssessment != 1 || c.Duplicates != 1 || c.Undecodable != 1 || c.Rejected != 3 {
		t.Errorf("counts %+v: want 3 decisions, 1 without assessment, 1 duplicate, 1 undecodable, 3 rejected", c)
	}
	want := []struct {
		kind MarkKind
		has  []string
	}{
		{MarkRejected, []string{"repeats stamp 20000000 with different content"}},
		{MarkNoAssessment, []string{"reason no_assessment", "waited 100 ms", "recorded 9 ms after the decision, too late"}},
		{MarkRejected, []string{"late self-assessment", "20000000"}},
		{MarkRejected, []string{"undecodable message on /self_assessment"}},
	}
	if len(f.Marks) != len(want) {
		t.Fatalf("marks %+v, want %d", f.Marks, len(want))
	}
	for i, w := range want {
		m := f.Marks[i]
		if m.Kind != w.kind {
			t.Errorf("mark %d is %s, want %s", i, m.Kind, w.kind)
		}
		for _, h := range w.has {
			if !strings.Contains(m.Text, h) {
				t.Errorf("mark %d %q lacks %q", i, m.Text, h)
			}
		}
	}
	if f.Actions.Messages != 1 || !strings.Contains(strings.Join(f.Notes, "\n"), "/decisions/actions") {
		t.Errorf("actions %+v, notes %q: want the receipts counted and noted", f.Actions, f.Notes)
	}
	if got := len(f.Episodes); got != 3 {
		t.Errorf("%d episodes, want 3 (proceed, abstain, proceed)", got)
	}
	a := Audit{Verdict: "FAIL", Reasons: []string{"1 chain broken"},
		Chain:    []Count{{"verified", 2}, {"broken", 1}},
		Problems: []Problem{{StampNs: 40 * ms, LogNs: 142 * ms, Text: "hash <mismatch> & more"}}}
	html := string(render(t, f, a))
	for _, s := range []string{`class="verdict FAIL"`, "1 chain broken", "verified 2, broken 1", "hash &lt;mismatch&gt; &amp; more", "not stated"} {
		if !strings.Contains(html, s) {
			t.Errorf("report lacks %q", s)
		}
	}
}

func TestCollectErrors(t *testing.T) {
	if _, err := Collect(filepath.Join(t.TempDir(), "missing.mcap"), Options{}); err == nil {
		t.Error("missing file: no error")
	}
	notMCAP := filepath.Join(t.TempDir(), "x.mcap")
	if err := os.WriteFile(notMCAP, []byte("hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(notMCAP, Options{}); !errors.Is(err, bag.ErrNotMCAP) {
		t.Errorf("not MCAP: %v, want ErrNotMCAP", err)
	}
	for _, o := range []Options{{MaxBuckets: 3}, {MaxBuckets: 1 << 21}, {MaxEpisodes: -1}, {MaxMarks: -1}} {
		if _, err := NewCollector(o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
	if err := Render(io.Discard, nil, Audit{}); !errors.Is(err, ErrNoFlight) {
		t.Errorf("Render(nil): %v", err)
	}
}

// TestCollectTruncated: a recording cut short still gives a report of what
// was read, with a note, and an error wrapping bag.ErrTruncated.
func TestCollectTruncated(t *testing.T) {
	path := writeRecording(t, everyKind(t))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Collect(path, Options{})
	if !errors.Is(err, bag.ErrTruncated) || f == nil {
		t.Fatalf("Collect: %v, flight %v: want a flight and ErrTruncated", err, f != nil)
	}
	if !strings.Contains(strings.Join(f.Notes, "\n"), "stops early") {
		t.Errorf("notes %q lack the truncation", f.Notes)
	}
	render(t, f, NotAudited())
}

// TestCollectFiles: the files of a split recording give the flight of the
// whole recording; a later file that cannot be opened ends the read there,
// and the flight of what was read comes with a note and the error.
func TestCollectFiles(t *testing.T) {
	msgs := everyKind(t)
	whole, err := Collect(writeRecording(t, msgs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	half := len(msgs) / 2
	first, second := writeRecording(t, msgs[:half]), writeRecording(t, msgs[half:])
	split, err := CollectFiles("split", []string{first, second}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	split.Recording = whole.Recording
	// Printed, so that the buckets' NaNs (no value) compare equal.
	if fmt.Sprintf("%+v", *split) != fmt.Sprintf("%+v", *whole) {
		t.Fatalf("the split recording's flight differs from the whole one's:\n%+v\n%+v", split.Counts, whole.Counts)
	}

	part, err := CollectFiles("split", []string{first, filepath.Join(t.TempDir(), "missing.mcap")}, Options{})
	if err == nil || part == nil || !strings.Contains(strings.Join(part.Notes, "\n"), "stops early") {
		t.Fatalf("a missing second file: %v, flight %v: want the first file's flight, a note and an error", err, part != nil)
	}
	if part.Counts.Decisions == 0 || part.Counts.Decisions >= whole.Counts.Decisions {
		t.Fatalf("%d decisions from the first file, of %d in all", part.Counts.Decisions, whole.Counts.Decisions)
	}
}

// TestBuckets feeds stamps over spans from a second to years and checks
// the bucket bounds and that no sample is lost or misplaced.
func TestBuckets(t *testing.T) {
	tests := []struct {
		name        string
		start, step int64
		n           int
		max         int
	}{
		{"short flight keeps millisecond buckets", 0, 20 * ms, 50, 2048},
		{"long flight coarsens", 0, 20 * ms, 100_000, 2048},
		{"small cap", 1_000_000_000, 7 * ms, 10_000, 16},
		{"negative stamps", -5_000 * ms, 3 * ms, 5_000, 64},
		{"huge span", 0, 1 << 55, 200, 32},
		{"descending", 1 << 40, -(1 << 30), 3000, 128},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCollector(Options{MaxBuckets: tc.max})
			if err != nil {
				t.Fatal(err)
			}
			stamps := make([]int64, tc.n)
			for i := range stamps {
				stamps[i] = tc.start + int64(i)*tc.step
				b := belief(stamps[i], 0.01, true, decisions.FlightModeOffboard, 0.5)
				b.Covariance = nil
				c.Belief(int64(i), &b)
			}
			f := c.Finish()
			if len(f.Buckets) > tc.max {
				t.Errorf("%d buckets, max %d", len(f.Buckets), tc.max)
			}
			if f.BucketNs < minWidth || f.BucketNs&(f.BucketNs-1) != 0 {
				t.Errorf("bucket width %d: not a power of two >= %d", f.BucketNs, minWidth)
			}
			var total uint64
			for _, b := range f.Buckets {
				total += uint64(b.Beliefs)
			}
			if total != uint64(tc.n) {
				t.Errorf("buckets hold %d beliefs, fed %d", total, tc.n)
			}
			for _, s := range stamps {
				i := floorDiv(s-f.BucketStartNs, f.BucketNs)
				if i < 0 || i >= int64(len(f.Buckets)) || f.Buckets[i].Beliefs == 0 {
					t.Fatalf("stamp %d: bucket %d empty or out of range", s, i)
				}
			}
			if tc.n > 4*tc.max && len(f.Buckets) < tc.max/2-1 {
				t.Errorf("%d buckets: coarsened too far (max %d)", len(f.Buckets), tc.max)
			}
		})
	}
}

// TestKindChangesExact: however coarse the buckets, every change of kind is
// an episode, even one decision long.
func TestKindChangesExact(t *testing.T) {
	c, err := NewCollector(Options{MaxBuckets: 16})
	if err != nil {
		t.Fatal(err)
	}
	var want []decisions.Kind
	for i := range 100_000 {
		k := decisions.KindProceed
		if i%9973 == 0 {
			k = decisions.Kind(i / 9973 % decisions.NumKinds)
		}
		if len(want) == 0 || want[len(want)-1] != k {
			want = append(want, k)
		}
		r := rationale(int64(i)*20*ms, k, "r", "")
		c.Decision(int64(i), &r)
	}
	f := c.Finish()
	var got []decisions.Kind
	for _, e := range f.Episodes {
		got = append(got, e.Kind)
	}
	if !equalKinds(got, want) {
		t.Errorf("%d episodes, want %d", len(got), len(want))
	}
	if f.MarksOmitted == 0 || len(f.Marks) != DefaultMaxMarks {
		t.Errorf("marks %d, omitted %d: want the cap applied", len(f.Marks), f.MarksOmitted)
	}
	render(t, f, NotAudited())
}

func TestEpisodeCap(t *testing.T) {
	c, err := NewCollector(Options{MaxEpisodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		r := rationale(int64(i)*ms, decisions.Kind(i%2), "r", "")
		c.Decision(0, &r)
	}
	f := c.Finish()
	if len(f.Episodes) != 3 || f.EpisodesOmitted != 7 {
		t.Errorf("%d episodes, %d omitted; want 3, 7", len(f.Episodes), f.EpisodesOmitted)
	}
	if f.Episodes[2].EndNs != 3*ms {
		t.Errorf("last kept episode ends at %d, want the next one's start %d", f.Episodes[2].EndNs, 3*ms)
	}
	html := string(render(t, f, NotAudited()))
	if !strings.Contains(html, "7 further episodes") {
		t.Error("omitted episodes not reported")
	}
}

func TestWriteFigures(t *testing.T) {
	f, err := Collect(writeRecording(t, everyKind(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "figs")
	paths, err := WriteFigures(dir, f, NotAudited())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(figureNames) {
		t.Fatalf("wrote %v", paths)
	}
	for i, p := range paths {
		if filepath.Base(p) != figureNames[i]+".svg" {
			t.Errorf("figure %d written as %s", i, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("<?xml")) || !bytes.Contains(data, []byte(`xmlns="http://www.w3.org/2000/svg"`)) {
			t.Errorf("%s is not a standalone SVG", p)
		}
		checkXML(t, string(data))
	}
}

// TestDeterministic: the same recording gives the same bytes.
func TestDeterministic(t *testing.T) {
	path := writeRecording(t, everyKind(t))
	var outs [2][]byte
	for i := range outs {
		f, err := Collect(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = render(t, f, NotAudited())
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two reports of one recording differ")
	}
}

func TestHelpers(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtDur(350_000), "350 µs"},
		{fmtDur(100 * ms), "100 ms"},
		{fmtDur(2_345_600), "2.3 ms"},
		{fmtDur(25_000 * ms), "25.0 s"},
		{fmtDur(-5 * ms), "-5 ms"},
		{fmtDur(math.MinInt64), "-9223372036.9 s"},
		{fmtSpan(120_000 * uint64(ms)), "120.000 s"},
		{fmtSpan(3_723_000 * uint64(ms)), "1 h 02 min 03 s"},
		{fmtSpan(math.MaxUint64), "5124095 h 34 min 33 s"},
		{capText("héllo", 2), "h…"},
		{tickLabel(90, 30), "90 s"},
		{tickLabel(7200, 3600), "2 h"},
		{tickLabel(0.25, 0.05), "0.25 s"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestExtremeStamps: stamps at the ends of int64 neither panic nor hang.
func TestExtremeStamps(t *testing.T) {
	for _, st := range [][2]int64{{math.MinInt64, math.MaxInt64}, {0, math.MaxInt64}, {math.MinInt64, 0}, {5, 5}} {
		c, err := NewCollector(Options{MaxBuckets: 16, MaxEpisodes: 4, MaxMarks: 4})
		if err != nil {
			t.Fatal(err)
		}
		r := rationale(st[0], decisions.KindHold, "x", "")
		c.Decision(st[1], &r)
		r = rationale(st[1], decisions.KindYieldToPilot, "x", "")
		c.Decision(st[0], &r)
		c.Perception(3, decisions.PerceptionReport{StampSimNs: st[1], Mode: 9})
		f := c.Finish()
		if len(f.Buckets) > 16 || f.FirstStampNs != min(st[0], st[1]) || f.LastStampNs != max(st[0], st[1]) {
			t.Errorf("%v: %d buckets, span %d..%d", st, len(f.Buckets), f.FirstStampNs, f.LastStampNs)
		}
		render(t, f, Audit{Problems: []Problem{{StampNs: st[0], Text: "p"}}})
	}
}
