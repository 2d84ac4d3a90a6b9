package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the code's output")

// goldenFlight is a flight built by hand: four episodes, one of them mixing
// a decision without an assessment with one that had one. The expected
// table (testdata/episodes.golden) was written by hand from the definition
// of an episode, not from the code's output.
func goldenFlight(t *testing.T) *Flight {
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := func(ch string) string { return strings.Repeat(ch, 64) }
	seq := []struct {
		atMs   int64
		kind   decisions.Kind
		reason string
		hash   string
	}{
		{0, decisions.KindProceed, "overall_known", h("a")},
		{20, decisions.KindProceed, "overall_known", h("e")},
		{40, decisions.KindHold, "overall_uncertain", h("b")},
		{60, decisions.KindHold, "overall_uncertain", h("f")},
		{80, decisions.KindAbstainUncertain, "no_assessment", ""},
		{100, decisions.KindAbstainUncertain, "overall_unknown", h("c")},
		{120, decisions.KindEngageLand, "battery_critical", h("d")},
	}
	for _, d := range seq {
		stamp := 1000*ms + d.atMs*ms
		r := rationale(stamp, d.kind, d.reason, d.hash)
		c.Decision(stamp+ms, &r)
	}
	return c.Finish()
}

func TestEpisodesGolden(t *testing.T) {
	f := goldenFlight(t)
	var b strings.Builder
	b.WriteString("# id\tkind\tstart\tend\tduration\tdecisions\treasons\thash\tfull hash\n")
	for _, r := range EpisodeRows(f) {
		b.WriteString(strings.Join([]string{r.ID, r.Kind, r.Start, r.End, r.Duration, r.Decisions, r.Reasons, r.Hash, r.FullHash}, "\t"))
		b.WriteString("\n")
	}
	path := filepath.Join("testdata", "episodes.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("episode table differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	// The rendered table carries the same rows, anchored.
	html := string(render(t, f, NotAudited()))
	for _, r := range EpisodeRows(f) {
		if !strings.Contains(html, `<tr id="`+r.ID+`">`) {
			t.Errorf("row %s not in the HTML", r.ID)
		}
		if r.FullHash != "" && !strings.Contains(html, `title="`+r.FullHash+`"`) {
			t.Errorf("row %s lacks its full hash", r.ID)
		}
	}
}
