package engine

import (
	"slices"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// drawer hands out covariance storage from a pool as a decoder drawing from
// it does (draw).
type drawer struct {
	pool *CovariancePool
	own  [][]float64
}

func (d *drawer) floats() []float64 {
	var c []float64
	c, d.own = draw(d.pool, d.own)
	return c
}

// The Loop keeps its own copy of every kept belief's covariance, recycled
// once the belief leaves the decided memory: the caller's storage may be
// reused after each Step, and recycled storage never changes what a
// remembered belief holds.
func TestLoopKeepsItsOwnCovariance(t *testing.T) {
	l, err := NewLoop(LoopOptions{MaxDecidedMemory: 8, MaxPendingBeliefs: 4})
	if err != nil {
		t.Fatal(err)
	}
	shared := make([]float64, decisions.CovarianceLen) // the caller's reused storage
	belief := func(stamp int64) decisions.Belief {
		for i := range shared {
			shared[i] = float64(stamp) + float64(i)
		}
		return decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: shared,
			Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	}
	var out Output
	const ms = int64(1_000_000)
	// 100 beliefs, each decided by the timeout: the decided memory turns
	// over many times and its storage is recycled.
	for s := int64(1); s <= 100; s++ {
		if err := l.Step(BeliefEvent{ArrivalNs: s * 200 * ms, Belief: belief(s * ms)}, &out); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.covFree); n > 16 {
		t.Errorf("%d covariances in the free list: storage is not recycled", n)
	}
	now := int64(101) * 200 * ms
	checkRepeats(t, l, func() BeliefEvent {
		now += ms
		return BeliefEvent{ArrivalNs: now, Belief: belief(97 * ms)} // remembered, decided
	})
}

// checkRepeats steps l with repeats of a remembered belief: identical, it
// is a duplicate; with one covariance value changed, or none, a conflict.
func checkRepeats(t *testing.T, l *Loop, repeat func() BeliefEvent) {
	t.Helper()
	for _, tc := range []struct {
		name     string
		edit     func(*decisions.Belief)
		conflict bool
	}{
		{"identical", func(*decisions.Belief) {}, false},
		{"one value differs", func(b *decisions.Belief) { b.Covariance[224]++ }, true},
		{"no covariance", func(b *decisions.Belief) { b.Covariance = nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := repeat()
			tc.edit(&ev.Belief)
			var out Output
			if err := l.Step(ev, &out); err != nil {
				t.Fatal(err)
			}
			conflict := len(out.Rejections) == 1 && out.Rejections[0].Reason == RejectConflictingBelief
			dup := len(out.Duplicates) == 1 && len(out.Rejections) == 0
			if conflict != tc.conflict || dup == tc.conflict {
				t.Fatalf("rejections %+v, duplicates %+v; want conflict %v", out.Rejections, out.Duplicates, tc.conflict)
			}
		})
	}
}

// A donated covariance is kept as it is, given back to its pool once the
// belief is forgotten, and drawn again by the decoder: storage circulates
// instead of being copied or allocated, and what a remembered belief holds
// never changes.
func TestLoopKeepsDonatedCovariance(t *testing.T) {
	l, err := NewLoop(LoopOptions{MaxDecidedMemory: 8, MaxPendingBeliefs: 4})
	if err != nil {
		t.Fatal(err)
	}
	var pool CovariancePool
	sc := &drawer{pool: &pool}
	const ms = int64(1_000_000)
	belief := func(stamp int64) decisions.Belief {
		cov := sc.floats()
		for i := range cov {
			cov[i] = float64(stamp) + float64(i)
		}
		return decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: cov,
			Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	}
	var out Output
	storage := map[*float64]bool{}
	const n = 2000
	var last *float64
	for s := int64(1); s <= n; s++ {
		b := belief(s * ms)
		storage[&b.Covariance[0]] = true
		last = &b.Covariance[0]
		if err := l.Step(BeliefEvent{ArrivalNs: s * 200 * ms, Belief: b, Donor: &pool}, &out); err != nil {
			t.Fatal(err)
		}
		checkCovarianceOwners(t, l, &pool, sc)
	}
	if p := l.pending.items(); len(p) != 1 || &p[0].belief.Covariance[0] != last {
		t.Fatal("the newest belief's donated covariance was copied, not kept")
	}
	// The Loop holds at most 13 covariances and gives back a bulk once it
	// has two spare: the decoder never needs more than a few blocks.
	if len(storage) > 4*covPoolBulk {
		t.Errorf("%d beliefs used %d storages: donated storage does not come back", n, len(storage))
	}
	now := int64(n+1) * 200 * ms
	checkRepeats(t, l, func() BeliefEvent {
		now += ms
		return BeliefEvent{ArrivalNs: now, Belief: belief((n - 3) * ms), Donor: &pool} // remembered, decided
	})
}

// checkCovarianceOwners fails unless every covariance storage has one
// owner: a belief the Loop keeps, the Loop's free list, the pool, or the
// decoder's stock.
func checkCovarianceOwners(t *testing.T, l *Loop, pool *CovariancePool, sc *drawer) {
	t.Helper()
	owner := map[*float64]string{}
	own := func(c []float64, who string) {
		if cap(c) == 0 {
			return
		}
		p := &c[:1][0]
		if o, ok := owner[p]; ok {
			t.Fatalf("a covariance storage is owned by %s and by %s", o, who)
		}
		owner[p] = who
	}
	for _, p := range l.pending.items() {
		own(p.belief.Covariance, "a pending belief")
	}
	for _, d := range l.decided.items() {
		own(d.belief.Covariance, "a decided belief")
	}
	for _, c := range l.covFree {
		own(c, "the Loop's free list")
	}
	pool.mu.Lock()
	free := slices.Clone(pool.free)
	pool.mu.Unlock()
	for _, c := range free {
		own(c, "the pool")
	}
	for _, c := range sc.own {
		own(c, "the decoder")
	}
}

// A pool hands out at most a bulk at a time and keeps at most
// covPoolMax.
func TestCovariancePoolBounds(t *testing.T) {
	var p CovariancePool
	spare := make([][]float64, covPoolMax+10)
	for i := range spare {
		spare[i] = make([]float64, decisions.CovarianceLen)
	}
	p.give(spare)
	if got := len(p.free); got != covPoolMax {
		t.Fatalf("pool holds %d, want %d", got, covPoolMax)
	}
	if got := len(p.Take(nil)); got != covPoolBulk {
		t.Fatalf("took %d, want %d", got, covPoolBulk)
	}

}
