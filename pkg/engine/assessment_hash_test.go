package engine

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// TestAssessmentHashIsTheContentsOnly: a hash, made with or without a memo,
// is the contract's hash of the content, and For accepts that content only:
// every change of any input makes For refuse it.
func TestAssessmentHashIsTheContentsOnly(t *testing.T) {
	base := memoAssessment(t, 9)
	var memo TextMemo
	for _, h := range []*AssessmentHash{HashAssessment(&base, nil), HashAssessment(&base, &memo)} {
		if h.Hex() != base.SHA256() || !h.For(&base) || h.BeliefStampSimNs() != base.BeliefStampSimNs {
			t.Fatalf("hash %s (for its content %v), want %s", h.Hex(), h.For(&base), base.SHA256())
		}
		copied := base
		if !h.For(&copied) {
			t.Fatal("a copy of the content is refused")
		}
		for k, m := range memoMutations {
			x := base
			m(&x)
			if h.For(&x) {
				t.Fatalf("mutation %d: the hash vouches for content it was not computed from", k)
			}
			if HashAssessment(&x, &memo).Hex() != x.SHA256() {
				t.Fatalf("mutation %d: the memo's hash is not the changed content's", k)
			}
		}
	}
	var zero AssessmentHash
	var none *AssessmentHash
	if zero.For(&decisions.SelfAssessment{}) || none.For(&base) || none.Hex() != "" {
		t.Fatal("the zero or nil hash vouches for something")
	}
}

// Hashes made with one memo share its blocks of storage: each must stay
// its own assessment's after many more are made, across blocks.
func TestHashesFromOneMemoStayTheirs(t *testing.T) {
	var memo TextMemo
	as := make([]decisions.SelfAssessment, 3*hashSlab+5)
	hs := make([]*AssessmentHash, len(as))
	for i := range as {
		as[i] = memoAssessment(t, int64(i))
		as[i].Std[i%9] *= 1 + float64(i)/1000
		hs[i] = HashAssessment(&as[i], &memo)
	}
	for i := range as {
		if !hs[i].For(&as[i]) || hs[i].Hex() != as[i].SHA256() {
			t.Fatalf("assessment %d: hash %s, its own %s", i, hs[i].Hex(), as[i].SHA256())
		}
	}
}

// TestHashAssessmentAllocations: a hash made with a memo allocates nothing
// of its own (its storage and its hex come in blocks); without one, the
// hash and its hex string.
func TestHashAssessmentAllocations(t *testing.T) {
	a := memoAssessment(t, 1)
	var memo TextMemo
	HashAssessment(&a, &memo) // the first blocks
	if n := testing.AllocsPerRun(hashSlab/4, func() { HashAssessment(&a, &memo) }); n != 0 {
		t.Errorf("with a memo: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { HashAssessment(&a, nil) }); n != 2 {
		t.Errorf("without a memo: %v allocations, want 2", n)
	}
}
