package whatif

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got %s\nwant %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, want %d", path, len(gl), len(wl))
	}
}

// The fixed fleet against its recorded decisions, as text, JSON lines and
// HTML: the golden files are the outputs' reference.
func TestFleetGolden(t *testing.T) {
	cand := shippedPolicy(t, "px4_failsafe_tight_position.yaml")
	opts := Options{Candidate: cand, Workers: 2, Compare: CompareOptions{RuleNames: RuleNames(cand)}}
	text, jsonl, page, sum := runFleet(t, fleet(t), opts)
	golden(t, "fleet.txt", text)
	golden(t, "fleet.jsonl", jsonl)
	golden(t, "fleet.html", page)

	// What the golden files must show, whatever they are regenerated to.
	if sum.Flights != 7 || sum.Unreadable != 2 || sum.Truncated != 1 || sum.Changed+sum.ReasonsOnly+sum.Unchanged != 5 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Unchanged < 1 || sum.Changed < 2 {
		t.Errorf("the candidate's own flight should be unchanged and the px4_failsafe_like flights changed: %+v", sum)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var v struct {
			Type, Path string
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a JSON line does not parse: %v\n%s", err, line)
		}
		if v.Type == "flight" {
			names = append(names, v.Path)
		}
	}
	if !slices.IsSorted(names) || len(names) != 7 || !strings.Contains(jsonl, `"type":"summary"`) {
		t.Errorf("JSON lines: flights %q (want 7, sorted), then the summary", names)
	}
	checkPage(t, page)
}

// checkPage checks the page is one document whose figures are well-formed
// XML, with no script and nothing loaded from outside.
func checkPage(t *testing.T, page string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") || strings.Count(page, "<html") != 1 {
		t.Errorf("not one HTML document")
	}
	for _, bad := range []string{"<script", "http://", "https://", "src="} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	rest := page
	n := 0
	for {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			t.Fatal("an unclosed svg")
		}
		svg := rest[i : i+j+len("</svg>")]
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := d.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Errorf("figure %d is not well-formed: %v", n, err)
				}
				break
			}
		}
		n++
		rest = rest[i+j:]
	}
	if n == 0 {
		t.Error("no timeline on the page")
	}
}

// The same flights give the same bytes whatever the number of workers and
// the order the flights are given in.
func TestDeterministicAcrossWorkers(t *testing.T) {
	cand := shippedPolicy(t, "px4_failsafe_tight_position.yaml")
	for _, baseline := range []decisions.Policy{nil, shippedPolicy(t, "px4_failsafe_like.yaml")} {
		flights := fleet(t)
		var outs [][3]string
		for _, workers := range []int{1, 3, 8} {
			slices.Reverse(flights)
			text, jsonl, page, _ := runFleet(t, flights, Options{Candidate: cand, Baseline: baseline, Workers: workers})
			outs = append(outs, [3]string{text, jsonl, page})
		}
		for i := range outs[1:] {
			for k, name := range []string{"text", "JSON", "HTML"} {
				if outs[i+1][k] != outs[0][k] {
					t.Errorf("baseline %v: %s with %d workers differs from 1 worker's", baseline != nil, name, []int{1, 3, 8}[i+1])
				}
			}
		}
	}
}

// A recording that cannot be read is a named failure, never left out, and
// the others are compared all the same.
func TestUnreadableIsNamed(t *testing.T) {
	cand := shippedPolicy(t, "px4_failsafe_tight_position.yaml")
	text, jsonl, _, sum := runFleet(t, fleet(t), Options{Candidate: cand})
	want := map[string]Status{
		"flights/d_not_mcap.mcap": StatusUnreadable, "flights/g_missing.mcap": StatusUnreadable, "flights/e_cut.mcap": StatusTruncated,
	}
	if len(sum.Failures) != len(want) {
		t.Fatalf("failures %+v", sum.Failures)
	}
	for _, f := range sum.Failures {
		if want[f.Path] != f.Status || f.Error == "" {
			t.Errorf("failure %+v", f)
		}
		if !strings.Contains(text, "failed: "+f.Path+" ("+string(f.Status)+")") {
			t.Errorf("the text summary does not name %s", f.Path)
		}
	}
	if !strings.Contains(text, "flight flights/g_missing.mcap: UNREADABLE: open flights/g_missing.mcap: no such file") {
		t.Errorf("the missing flight has no block of its own:\n%s", text)
	}
	if n := strings.Count(jsonl, `"type":"flight"`); n != 7 {
		t.Errorf("%d flight lines, want 7", n)
	}
	if sum.Decisions == 0 {
		t.Error("nothing compared beside the failures")
	}
}

// A candidate that is the recorded policy changes nothing; nor does a
// baseline that is the candidate.
func TestSamePolicyChangesNothing(t *testing.T) {
	like := shippedPolicy(t, "px4_failsafe_like.yaml")
	flights := fleet(t)
	var like30 Flight
	for _, f := range flights {
		if f.Name == "flights/a_like_30s.mcap" {
			like30 = f
		}
	}
	for _, baseline := range []decisions.Policy{nil, like} {
		_, _, _, sum := runFleet(t, []Flight{like30}, Options{Candidate: like, Baseline: baseline})
		if sum.Flights != 1 || sum.Unchanged != 1 || sum.Decisions != 601 || sum.DecisionsChanged != 0 {
			t.Errorf("baseline %v: %+v", baseline != nil, sum)
		}
	}
}

// The fleet summary totals the flights' results.
func TestSummary(t *testing.T) {
	flight := func(name, base, cand string) *FlightResult {
		r := compare(t, base, cand, CompareOptions{})
		r.Path, r.Status = name, StatusCompared
		return r
	}
	results := []*FlightResult{
		flight("a", "0:proceed/a 1:proceed/a 2:engage_land/l", "0:proceed/a 1:engage_land/l 2:engage_land/l"),              // land 1 s earlier
		flight("b", "0:hold/h 1:hold/h 2:hold/h 3:hold/h", "0:hold/h 1:abstain_uncertain/u 2:hold/h 3:hold/h"),             // a new abstain
		flight("c", "0:proceed/a 1:engage_land/l", "0:proceed/a 1:engage_land/x"),                                          // reason only
		flight("d", "0:proceed/a 1:engage_land/l 2:engage_land/l", "0:proceed/a 1:proceed/a 2:engage_land/l"),              // land 1 s later
		flight("e", "0:proceed/a 1:proceed/a 2:engage_land/l 3:proceed/a", "0:proceed/a 1:hold/h 2:hold/h 3:engage_rtl/r"), // land gone, rtl new
		flight("f", "0:proceed/a", "0:proceed/a"),
		{Path: "g", Status: StatusUnreadable, Error: "broken"},
	}
	s := newSummary(Options{Candidate: shippedPolicy(t, "px4_failsafe_like.yaml")})
	for _, r := range results {
		s.add(finishResult(r))
	}
	s.finish()
	if s.Flights != 7 || s.Changed != 4 || s.ReasonsOnly != 1 || s.Unchanged != 1 || s.Unreadable != 1 {
		t.Errorf("counts %+v", s)
	}
	if s.EarliestShift == nil || *s.EarliestShift != (Shift{Path: "a", Kind: "engage_land", ShiftNs: -1e9}) {
		t.Errorf("earliest %+v", s.EarliestShift)
	}
	if s.LatestShift == nil || *s.LatestShift != (Shift{Path: "d", Kind: "engage_land", ShiftNs: 1e9, Counterfactual: true}) {
		t.Errorf("latest %+v", s.LatestShift)
	}
	if s.NewAbstains != 1 || s.NewAbstainFlights != 1 {
		t.Errorf("new abstains %d in %d", s.NewAbstains, s.NewAbstainFlights)
	}
	if !slices.Equal(s.NeverBefore, []string{"engage_rtl", "abstain_uncertain"}) {
		t.Errorf("never before %v", s.NeverBefore)
	}
	if len(s.Failures) != 1 || s.Failures[0].Path != "g" {
		t.Errorf("failures %+v", s.Failures)
	}
	want := []KindPair{
		{From: "proceed", To: "hold", N: 1}, {From: "proceed", To: "engage_land", N: 1},
		{From: "hold", To: "abstain_uncertain", N: 1},
		{From: "engage_land", To: "proceed", N: 1}, {From: "engage_land", To: "hold", N: 1, Counterfactual: 1},
		{From: "proceed", To: "engage_rtl", N: 1, Counterfactual: 1},
	}
	if len(s.KindPairs) != len(want) {
		t.Errorf("kind pairs %+v", s.KindPairs)
	}
	for _, p := range want {
		if !slices.Contains(s.KindPairs, p) {
			t.Errorf("kind pairs %+v lack %+v", s.KindPairs, p)
		}
	}
}

// A write error stops the run and is returned.
func TestWriteErrorStops(t *testing.T) {
	cand := shippedPolicy(t, "px4_failsafe_tight_position.yaml")
	w := &failingWriter{after: 2}
	if _, err := Run(fleet(t), Options{Candidate: cand, Workers: 2}, w); !errors.Is(err, errDiskFull) {
		t.Fatalf("err %v", err)
	}
	if w.flights != 3 {
		t.Errorf("%d flights written, want the run to stop at the failing third", w.flights)
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{ after, flights int }

func (f *failingWriter) Flight(*FlightResult) error {
	f.flights++
	if f.flights > f.after {
		return errDiskFull
	}
	return nil
}

func (f *failingWriter) Summary(*Summary) error { return nil }

func TestSeconds(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000 s", 1_499_999: "0.001 s", 1_500_000: "0.002 s", -2_000_000_000: "-2.000 s",
		12_345_678_901: "12.346 s", 1<<63 - 1: "9223372036.855 s", -1 << 63: "-9223372036.855 s"} {
		if got := seconds(ns); got != want {
			t.Errorf("seconds(%d) = %s, want %s", ns, got, want)
		}
	}
}
