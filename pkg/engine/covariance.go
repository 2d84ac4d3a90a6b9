package engine

import (
	"sync"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// CovariancePool passes belief covariance storage from the goroutines that
// decode beliefs to the Loop that keeps them, and back, so that the Loop
// need not copy a covariance it keeps: a decoder drawing from a pool
// (the session's Scratch.DrawFrom) hands out storage that the event then donates
// (BeliefEvent.Donor), the Loop keeps that storage as it is, and gives it
// back to the pool once it forgets the belief.
//
// Storage moves in bulk, a lock per covPoolBulk covariances, and the pool
// keeps at most covPoolMax of them: what it refuses, and what a Loop never
// keeps, is the collector's. The zero value is ready; safe for concurrent
// use.
type CovariancePool struct {
	mu   sync.Mutex
	free [][]float64
}

const (
	covPoolBulk = 64
	covPoolMax  = 4096
)

// Take moves up to 64 covariances (a bulk) from p to the end of dst and
// returns dst; the caller owns them.
func (p *CovariancePool) Take(dst [][]float64) [][]float64 {
	p.mu.Lock()
	n := min(len(p.free), covPoolBulk)
	rest := len(p.free) - n
	dst = append(dst, p.free[rest:]...)
	clear(p.free[rest:])
	p.free = p.free[:rest]
	p.mu.Unlock()
	return dst
}

// give moves cs into p, as many as it keeps.
func (p *CovariancePool) give(cs [][]float64) {
	p.mu.Lock()
	n := min(len(cs), covPoolMax-len(p.free))
	p.free = append(p.free, cs[:n]...)
	p.mu.Unlock()
}

// keepCovariance returns the Loop's own copy of an admitted belief's
// covariance, in recycled storage, or the covariance itself when its
// storage was donated from the pool the Loop gives storage back to.
//
// The Loop keeps every admitted belief, by value, in the pending buffer and
// then in the decided memory, and compares a repeat of its stamp with it
// bit for bit (decisions.Belief.Equal): that is what tells an identical
// repeat from a conflict. Callers may therefore hand it a covariance in
// storage they reuse (the session's decoders): the Loop copies the 225 values
// of what it keeps, and only that, once the step commits. A copy is exact
// and costs a memmove of 1.8 KB; a hash would cost more per belief and let
// two covariances it cannot tell apart pass as a repeat. Each kept belief
// owns its copy until it leaves both buffers (releaseCovariance), so the
// storage in use is bounded by MaxPendingBeliefs + MaxDecidedMemory + 1
// covariances and is not allocated again in steady state.
//
// A donated covariance (BeliefEvent.Donor) is the Loop's already: it is
// kept as it is, which saves the memmove and, when the decoder ran on
// another core, the cache misses of reading its storage there.
func (l *Loop) keepCovariance(cov []float64, donor *CovariancePool) []float64 {
	if len(cov) == 0 {
		return cov
	}
	if donor != nil && len(cov) == decisions.CovarianceLen {
		if l.covPool == nil {
			l.covPool = donor
		}
		if l.covPool == donor {
			return cov
		}
	}
	var c []float64
	if n := len(l.covFree); n > 0 && cap(l.covFree[n-1]) >= len(cov) {
		c = l.covFree[n-1][:len(cov)]
		l.covFree[n-1] = nil
		l.covFree = l.covFree[:n-1]
	} else {
		c = make([]float64, len(cov))
	}
	copy(c, cov)
	return c
}

// releaseCovariance takes back the storage of a kept belief that left the
// Loop's buffers for good.
func (l *Loop) releaseCovariance(c []float64) {
	if cap(c) == 0 {
		return
	}
	l.covFree = append(l.covFree, c[:0])
	// With a pool, what the Loop's own copies do not need goes back to
	// the decoders, a bulk at a time.
	if n := len(l.covFree); l.covPool != nil && n >= 2*covPoolBulk {
		give := l.covFree[n-covPoolBulk:]
		for i := range give {
			give[i] = give[i][:decisions.CovarianceLen]
		}
		l.covPool.give(give)
		clear(give)
		l.covFree = l.covFree[:n-covPoolBulk]
	}
}
