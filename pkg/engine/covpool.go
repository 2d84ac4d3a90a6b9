package engine

import "sync"

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
