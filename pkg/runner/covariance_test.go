package runner

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
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
	stamp := int64(97) * ms // remembered, decided
	now := int64(101) * 200 * ms
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
			b := belief(stamp)
			tc.edit(&b)
			now += ms
			if err := l.Step(BeliefEvent{ArrivalNs: now, Belief: b}, &out); err != nil {
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
