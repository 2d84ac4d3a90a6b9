package honesty

import (
	"math"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// Gap says why a belief got no truth from a stream.
type Gap uint8

// The gaps. NumGaps bounds them.
const (
	GapNone   Gap = iota
	GapBefore     // no truth sample at or before the belief's stamp
	GapAfter      // no truth sample at or after it
	GapFar        // the sample before or after is more than MaxGap away
	NumGaps
)

var gapNames = [NumGaps]string{"none", "no_sample_before", "no_sample_after", "too_far"}

// String returns the gap's JSON name.
func (g Gap) String() string {
	if g < NumGaps {
		return gapNames[g]
	}
	return "gap"
}

// stream holds one truth stream's recent samples, in stamp order.
type stream struct {
	samples []truth.Sample
	// dropped counts samples pruned before any belief could use them
	// because the buffer was full.
	dropped uint64
}

// maxStreamSamples bounds a stream's buffer: far more than a horizon of
// truth at any simulator's rate.
const maxStreamSamples = 1 << 16

// add inserts s in stamp order; a sample with the stamp of one held
// replaces it.
func (b *stream) add(s truth.Sample) {
	n := len(b.samples)
	if n == 0 || b.samples[n-1].StampNs < s.StampNs {
		b.samples = append(b.samples, s)
	} else {
		i, found := slices.BinarySearchFunc(b.samples, s.StampNs, func(x truth.Sample, t int64) int {
			switch {
			case x.StampNs < t:
				return -1
			case x.StampNs > t:
				return 1
			}
			return 0
		})
		if found {
			b.samples[i] = s
		} else {
			b.samples = slices.Insert(b.samples, i, s)
		}
	}
	if len(b.samples) > maxStreamSamples {
		k := len(b.samples) - maxStreamSamples
		b.samples = append(b.samples[:0], b.samples[k:]...)
		b.dropped += uint64(k)
	}
}

// prune drops the samples no belief from stamp on can need: all before
// the last one at or before stamp-maxGap.
func (b *stream) prune(stamp, maxGap int64) {
	keep := 0
	for keep+1 < len(b.samples) && b.samples[keep+1].StampNs <= stamp-maxGap {
		keep++
	}
	if keep > 0 {
		b.samples = append(b.samples[:0], b.samples[keep:]...)
	}
}

// at returns the stream's value at stamp, interpolated linearly from the
// samples around it (a sample at stamp itself is taken as it is), or why
// there is none: no sample on one side, or one more than maxGap away.
func (b *stream) at(stamp, maxGap int64) (truth.Sample, Gap) {
	i, _ := slices.BinarySearchFunc(b.samples, stamp, func(x truth.Sample, t int64) int {
		switch {
		case x.StampNs < t:
			return -1
		case x.StampNs > t:
			return 1
		}
		return 0
	})
	// samples[i] is the first at or after stamp.
	if i < len(b.samples) && b.samples[i].StampNs == stamp {
		return b.samples[i], GapNone
	}
	switch {
	case i == 0:
		return truth.Sample{}, GapBefore
	case i == len(b.samples):
		return truth.Sample{}, GapAfter
	}
	s0, s1 := b.samples[i-1], b.samples[i]
	if stamp-s0.StampNs > maxGap || s1.StampNs-stamp > maxGap {
		return truth.Sample{}, GapFar
	}
	return interpolate(s0, s1, stamp), GapNone
}

// interpolate returns the sample at stamp on the line from s0 to s1
// (s0.StampNs < stamp < s1.StampNs). An attitude is interpolated linearly
// in the hemisphere of s0 and normalized (nlerp): over the few
// milliseconds between truth samples it is slerp to well below the
// quantities compared.
func interpolate(s0, s1 truth.Sample, stamp int64) truth.Sample {
	w := float64(stamp-s0.StampNs) / float64(s1.StampNs-s0.StampNs)
	out := truth.Sample{Stream: s0.Stream, StampNs: stamp}
	if s0.Stream != truth.StreamAttitude {
		for k := range out.Value {
			out.Value[k] = s0.Value[k] + w*(s1.Value[k]-s0.Value[k])
		}
		return out
	}
	q1 := s1.Q
	if s0.Q[0]*q1[0]+s0.Q[1]*q1[1]+s0.Q[2]*q1[2]+s0.Q[3]*q1[3] < 0 {
		q1 = [4]float64{-q1[0], -q1[1], -q1[2], -q1[3]}
	}
	var n float64
	for k := range out.Q {
		out.Q[k] = s0.Q[k] + w*(q1[k]-s0.Q[k])
		n += out.Q[k] * out.Q[k]
	}
	n = math.Sqrt(n)
	for k := range out.Q {
		out.Q[k] /= n
	}
	return out
}
