package report

import (
	"bytes"
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/internal/testscale"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// dayLong feeds c a 24-hour flight at 50 Hz: a belief, its assessment and
// its decision per stamp, the kind changing every few seconds to minutes,
// some beliefs decided without an assessment, perception changes.
func dayLong(tb testing.TB, c *Collector, hours int64) {
	n := hours * 3600 * 50
	const period = 20 * ms
	var as [8]decisions.SelfAssessment
	for i := range as {
		as[i] = assess(tb, belief(0, 0.0001*float64(int(1)<<(2*i)), true, decisions.FlightModeOffboard, 1))
	}
	hashes := [8]string{}
	for i := range as {
		hashes[i] = as[i].SHA256()
	}
	b := belief(0, 0, true, decisions.FlightModeOffboard, 1)
	b.Covariance = nil
	kind := decisions.KindProceed
	for i := range n {
		stamp := i * period
		log := stamp + ms
		b.StampSimNs = stamp
		b.Flight.BatteryPct = 1 - float64(i)/float64(n)
		b.Flight.BatteryV = 12 + 4*b.Flight.BatteryPct
		c.Belief(log, &b)
		lvl := int(i/2000) % len(as)
		hash := hashes[lvl]
		if i%50_000 < 20 { // a short silence of the assessor every 1000 s
			hash = ""
		} else {
			a := as[lvl]
			a.BeliefStampSimNs = stamp
			c.Assessment(log, &a)
		}
		if i%1777 == 0 {
			kind = decisions.Kind(i / 1777 % decisions.NumKinds)
		}
		if i%250 == 0 {
			c.Perception(log, decisions.PerceptionReport{StampSimNs: stamp, Mode: decisions.PerceptionMode(i / 90_000 % 8)})
		}
		r := rationale(stamp, kind, "r_"+kind.String(), hash)
		c.Decision(log+ms, &r)
	}
}

// TestDayLongReportSize: a day at 50 Hz renders to less than 10 MB, with
// every kind on the band. A day is 13 million messages (minutes under the
// race detector): the full run feeds it all, the plain run two hours.
func TestDayLongReportSize(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds millions of messages")
	}
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	hours := int64(testscale.Count(t, 24, 2, "hours"))
	dayLong(t, c, hours)
	f := c.Finish()
	if len(f.Buckets) > DefaultMaxBuckets {
		t.Errorf("%d buckets", len(f.Buckets))
	}
	html := render(t, f, NotAudited())
	t.Logf("%d h at 50 Hz: %d buckets of %s, %d episodes, %d marks (%d omitted), report %.1f MB",
		hours, len(f.Buckets), fmtDur(f.BucketNs), len(f.Episodes), len(f.Marks), f.MarksOmitted, float64(len(html))/1e6)
	if len(html) >= 10<<20 {
		t.Errorf("report of a day is %d bytes, want < 10 MB", len(html))
	}
	for _, k := range decisions.Kinds() {
		if f.Counts.ByKind[k] == 0 || !bytes.Contains(html, []byte(`fill="`+KindColor(k)+`"><title>episode`)) {
			t.Errorf("kind %s not on the band", k)
		}
	}
}

func BenchmarkDayLongCollectRender(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, err := NewCollector(Options{})
		if err != nil {
			b.Fatal(err)
		}
		dayLong(b, c, 24)
		if err := Render(io.Discard, c.Finish(), NotAudited()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCollectorMessage(b *testing.B) {
	msgs := everyKind(&testing.T{})
	b.ReportAllocs()
	c, err := NewCollector(Options{})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		m := msgs[i%len(msgs)]
		c.Message(m.topic, "", m.log, m.data)
		i++
	}
}
