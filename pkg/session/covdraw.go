package session

import "github.com/ghost-robotics/ghost/pkg/decisions"

// covBlock is how many covariances one allocation serves while a pool warms
// up.
const covBlock = 64

// drawCovariance returns storage for one covariance from s's pool: from
// what s took before, else from the pool, else a new block.
func (s *Scratch) drawCovariance() []float64 {
	if len(s.own) == 0 {
		s.own = s.pool.Take(s.own)
	}
	if len(s.own) == 0 {
		// Warming up (or storage lost to rejected beliefs): one
		// allocation for a block, shared by its covariances until the
		// last of them is gone.
		block := make([]float64, covBlock*decisions.CovarianceLen)
		for i := range covBlock {
			s.own = append(s.own, block[i*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen])
		}
	}
	k := len(s.own) - 1
	c := s.own[k]
	s.own[k] = nil
	s.own = s.own[:k]
	return c
}
