package audit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// hashedAt is the hash of an assessment of stamp that differs with variant.
func hashedAt(t testing.TB, stamp int64, variant int) *engine.AssessmentHash {
	t.Helper()
	th := decisions.Thresholds{PositionKnownStdM: 1, PositionUnknownStdM: 2, VelocityKnownStdMps: 1, VelocityUnknownStdMps: 2,
		OrientationKnownStdRad: 1, OrientationUnknownStdRad: 2, SchemaVersion: 1}
	cov := make([]float64, decisions.CovarianceLen)
	for i := 0; i < 15; i++ {
		cov[i*15+i] = 0.01 * float64(1+variant)
	}
	a, err := decisions.Assess(stamp, cov, th)
	if err != nil {
		t.Fatal(err)
	}
	return engine.HashAssessment(&a, nil)
}

// The chain index against a plain model: every stamp's distinct hashes in
// arrival order, the smallest stamps forgotten beyond the bound, whatever
// the order stamps arrive in.
// A bound above the few newest entries search looks at first makes it
// search the rest too.
func TestChainIndexMatchesModel(t *testing.T) {
	for _, bound := range []int{8, 40} {
		t.Run(fmt.Sprint("bound ", bound), func(t *testing.T) { testChainIndexMatchesModel(t, bound) })
	}
}

func testChainIndexMatchesModel(t *testing.T, bound int) {
	for _, tc := range []struct {
		name   string
		stamps []int64
	}{
		{"in order", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}},
		{"repeats and conflicts", []int64{1, 1, 2, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 9, 10, 11}},
		{"out of order", []int64{5, 3, 9, 1, 2, 8, 7, 4, 6, 12, 10, 11, 20, 13, 14, 19, 15, 16, 18, 17, 2, 30}},
		{"long run (compaction)", func() []int64 {
			var s []int64
			for i := range int64(200) {
				s = append(s, i+3, i)
			}
			return s
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChainIndex(bound)
			model := map[int64][]string{}
			for k, s := range tc.stamps {
				h := hashedAt(t, s, k%3)
				c.add(h)
				if !slices.Contains(model[s], h.Hex()) {
					model[s] = append(model[s], h.Hex())
				}
				for len(model) > bound {
					oldest := int64(1 << 62)
					for m := range model {
						oldest = min(oldest, m)
					}
					delete(model, oldest)
				}
				for m := int64(-5); m <= 210; m++ {
					e := c.find(m)
					var got []string
					if e.count() > 0 {
						for i := range e.count() {
							got = append(got, e.at(i).hex())
							if !e.at(i).is(got[i]) || e.at(i).is(strings.ToUpper(got[i])) {
								t.Fatalf("digest %s does not compare as its lowercase hex alone", got[i])
							}
						}
					}
					if want := model[m]; !slices.Equal(got, want) {
						t.Fatalf("after adding %v: stamp %d holds %d hashes, want %d", tc.stamps[:k+1], m, len(got), len(want))
					}
				}
			}
			if len(c.ring) > max(2*bound, 64) {
				t.Errorf("storage grew to %d entries for a bound of %d", len(c.ring), bound)
			}
		})
	}
}

// BenchmarkChainIndex adds the hashed assessments of twice the default
// bound of stamps, in order, and looks each up again (steady state: the
// storage of the previous round is reused).
func BenchmarkChainIndex(b *testing.B) {
	as := make([]*engine.AssessmentHash, 2*DefaultMaxHeld)
	for i := range as {
		as[i] = hashedAt(b, int64(i), 0)
	}
	c := newChainIndex(DefaultMaxHeld)
	b.ReportAllocs()
	for b.Loop() {
		clear(c.ring)
		c.head, c.n = 0, 0 // the storage of the last round, reused
		for i, a := range as {
			c.add(a)
			if e := c.find(int64(i)); e.count() == 0 {
				b.Fatal(fmt.Sprint("lost ", i))
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/assessment")
}
