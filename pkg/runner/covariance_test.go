package runner

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

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

func TestScratchReusesItsStorage(t *testing.T) {
	var s Scratch
	batch := func() [][]float64 {
		s.Reset()
		got := make([][]float64, 0, 100)
		for range 100 {
			got = append(got, s.Floats(decisions.CovarianceLen))
		}
		return got
	}
	first := batch()
	for i, f := range first {
		if len(f) != decisions.CovarianceLen || cap(f) != decisions.CovarianceLen {
			t.Fatalf("slice %d: len %d cap %d", i, len(f), cap(f))
		}
		f[0] = float64(i)
	}
	for i, f := range first {
		if f[0] != float64(i) {
			t.Fatalf("slice %d overlaps another within a batch", i)
		}
	}
	batch()                                                       // takes one block of the first batch's size
	if n := testing.AllocsPerRun(10, func() { batch() }); n > 1 { // the slice of slices
		t.Fatalf("%v allocations per batch once grown, want the storage reused", n)
	}
}

// DecodeInto gives, by value, the events Decode gives, for every default
// input, and nothing for another topic or a corrupt message.
func TestDecodeIntoMatchesDecode(t *testing.T) {
	b := decisions.Belief{StampSimNs: 5, OrientationQ: [4]float64{1, 0, 0, 0}, Covariance: make([]float64, decisions.CovarianceLen),
		Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	b.Covariance[3] = 2
	a, err := decisions.Assess(5, b.Covariance, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	vs := ros2msg.BeliefToWire(&b)
	sa := ros2msg.SelfAssessmentToWire(&a)
	pm := ros2msg.PerceptionToWire(decisions.PerceptionReport{StampSimNs: 5, Mode: 1})
	topics := DefaultTopics()
	var s Scratch
	var d Decoded
	dec := NewDecoder(DefaultInputs())
	for _, tc := range []struct {
		key string
		msg interface{ MarshalCDR() ([]byte, error) }
	}{{KeyState, &vs}, {KeySelfAssessment, &sa}, {KeyPerceptionMode, &pm}} {
		data, err := tc.msg.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		want, err := dec.Decode(topics[tc.key], 9, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.DecodeInto(topics[tc.key], 9, data, &s, &d); err != nil {
			t.Fatal(err)
		}
		got := d.Event()
		if ga, ok := got.(AssessmentEvent); ok {
			// Both sealed (each its own seal): compare content and hash.
			wa := want.(AssessmentEvent)
			gh, gok := ga.Assessment.SealedSHA256()
			wh, wok := wa.Assessment.SealedSHA256()
			if !ga.Assessment.Equal(&wa.Assessment) || !gok || !wok || gh != wh || ga.ArrivalNs != wa.ArrivalNs {
				t.Errorf("%s: DecodeInto gives %+v, Decode %+v", tc.key, got, want)
			}
		} else if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s: DecodeInto gives %+v, Decode %+v", tc.key, got, want)
		}
		_, isAssessment := d.Assessment()
		if isAssessment != (tc.key == KeySelfAssessment) {
			t.Errorf("%s: Assessment() says %v", tc.key, isAssessment)
		}
		if err := dec.DecodeInto(topics[tc.key], 9, data[:len(data)-3], &s, &d); !errors.Is(err, ErrCorrupt) || d.Event() != nil {
			t.Errorf("%s: truncated: error %v, event %v", tc.key, err, d.Event())
		}
	}
	if err := dec.DecodeInto("/elsewhere", 9, []byte{0, 1, 0, 0}, &s, &d); err != nil || d.Event() != nil {
		t.Errorf("another topic: error %v, event %v", err, d.Event())
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
	var sc Scratch
	sc.DrawFrom(&pool)
	const ms = int64(1_000_000)
	belief := func(stamp int64) decisions.Belief {
		cov := sc.Floats(decisions.CovarianceLen)
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
		checkCovarianceOwners(t, l, &pool, &sc)
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
// Scratch's stock.
func checkCovarianceOwners(t *testing.T, l *Loop, pool *CovariancePool, sc *Scratch) {
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
		own(c, "the Scratch")
	}
}

// A pool hands out at most a bulk at a time and keeps at most
// covPoolMax; a Scratch drawing from it gives each covariance storage of
// its own that Reset does not take back.
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
	if got := len(p.take(nil)); got != covPoolBulk {
		t.Fatalf("took %d, want %d", got, covPoolBulk)
	}

	var sc Scratch
	sc.DrawFrom(new(CovariancePool))
	seen := map[*float64]bool{}
	for range 3 {
		for range covPoolBulk + 1 {
			c := sc.Floats(decisions.CovarianceLen)
			if len(c) != decisions.CovarianceLen || cap(c) != decisions.CovarianceLen || seen[&c[0]] {
				t.Fatalf("len %d cap %d, seen before %v", len(c), cap(c), seen[&c[0]])
			}
			seen[&c[0]] = true
		}
		sc.Reset()
	}
	if c := sc.Floats(7); len(c) != 7 || seen[&c[0]] {
		t.Fatalf("another length: len %d, from the pool %v", len(c), seen[&c[0]])
	}
}
