package runner

import (
	"sync"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// CovariancePool passes belief covariance storage from the goroutines that
// decode beliefs to the Loop that keeps them, and back, so that the Loop
// need not copy a covariance it keeps: a Scratch drawing from a pool
// (Scratch.DrawFrom) hands out storage that the event then donates
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

// take moves up to covPoolBulk covariances from p to the end of dst.
func (p *CovariancePool) take(dst [][]float64) [][]float64 {
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

// drawCovariance returns storage for one covariance from s's pool: from
// what s took before, else from the pool, else a new block.
func (s *Scratch) drawCovariance() []float64 {
	if len(s.own) == 0 {
		s.own = s.pool.take(s.own)
	}
	if len(s.own) == 0 {
		// Warming up (or storage lost to rejected beliefs): one
		// allocation for a block, shared by its covariances until the
		// last of them is gone.
		block := make([]float64, covPoolBulk*decisions.CovarianceLen)
		for i := range covPoolBulk {
			s.own = append(s.own, block[i*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen])
		}
	}
	k := len(s.own) - 1
	c := s.own[k]
	s.own[k] = nil
	s.own = s.own[:k]
	return c
}
