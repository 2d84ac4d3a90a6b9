package engine

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// decodeFuzzEvents turns bytes into loop options and an event sequence.
// The first two bytes choose small buffer bounds and the timeout, so that
// overflow paths are reached; then every four bytes are one event:
//
//	b0: kind (b0%8: 0-2 belief, 3-4 assessment, 5 perception, 6 tick,
//	    7 end); bit 7 puts the stamp just below 2^63-1
//	b1: stamp (a small window, so stamps repeat)
//	b2: arrival step as a signed byte in ms (negative goes backwards)
//	b3: level or perception mode, an invalid field (b3>>5 == 7), a
//	    variant of the content (bit 4) that makes conflicting repeats; for
//	    a belief, bit 0 varies its covariance alone
func decodeFuzzEvents(t testing.TB, data []byte, levels *[3]decisions.SelfAssessment) (LoopOptions, []Event) {
	var opts LoopOptions
	if len(data) >= 2 {
		opts = LoopOptions{
			MaxPendingBeliefs:     1 + int(data[0]&7),
			MaxPendingAssessments: 1 + int(data[0]>>3&7),
			MaxPerceptionReports:  1 + int(data[0]>>6),
			MaxDecidedMemory:      1 + int(data[1]&7),
			AssessmentTimeout:     time.Duration(1+int(data[1]>>3)) * 10 * time.Millisecond,
		}
		data = data[2:]
	}
	var evs []Event
	var at int64
	for ; len(data) >= 4; data = data[4:] {
		b0, b1, b2, b3 := data[0], data[1], data[2], data[3]
		stamp := int64(b1)
		if b0&0x80 != 0 {
			stamp = math.MaxInt64 - int64(b1)
		}
		at += int64(int8(b2)) * ms
		invalid := b3>>5 == 7
		variant := b3&0x10 != 0
		switch b0 % 8 {
		case 0, 1, 2:
			b := belief(stamp)
			if variant {
				b.Flight.BatteryPct = 0.5
			}
			if invalid {
				b.Flight.Mode = decisions.FlightMode(7 + b3%4)
			}
			b.Covariance = make([]float64, decisions.CovarianceLen)
			for k := range b.Covariance {
				b.Covariance[k] = float64(b1) + float64(k) + float64(b3&1)/2
			}
			evs = append(evs, BeliefEvent{ArrivalNs: at, Belief: b})
		case 3, 4:
			a := levels[b3%3]
			a.BeliefStampSimNs = stamp
			if variant {
				a.Std[8] = 0
			}
			if invalid {
				a.OverallLevel = 3
			}
			evs = append(evs, AssessmentEvent{ArrivalNs: at, Assessment: a})
		case 5:
			evs = append(evs, PerceptionEvent{ArrivalNs: at, Report: decisions.PerceptionReport{
				StampSimNs: stamp, Mode: decisions.PerceptionMode(b3 % 9)}})
		case 6:
			evs = append(evs, TickEvent{ArrivalNs: at})
		default:
			evs = append(evs, EndEvent{ArrivalNs: at})
		}
	}
	return opts, evs
}

// FuzzLoop checks, for any event sequence: no panic and no step error with
// the reference policy; decisions strictly increasing in stamp (so at most
// one per stamp); every buffer within its bound; every Command accepted by
// the Runner's provenance checks; and the same output from a second run.
// The first run hands every belief's covariance in one storage the caller
// reuses (the Loop must copy what it keeps), the second donates storage
// drawn from a pool (BeliefEvent.Donor): a Loop that kept reused storage,
// or a pool that gave out storage still kept, would tell repeats from
// conflicts differently in the two.
func FuzzLoop(f *testing.F) {
	f.Add([]byte{0x00, 0x00})
	f.Add([]byte{0xff, 0x08, 0, 1, 0, 0, 3, 1, 1, 0, 1, 2, 1, 0, 4, 2, 1, 1, 7, 0, 1, 0})
	f.Add([]byte{0x09, 0x11, 0, 5, 0, 0, 1, 6, 0, 0, 2, 7, 0, 0, 3, 7, 1, 0, 3, 6, 1, 0, 3, 5, 1, 0, 6, 0, 127, 0})
	f.Add([]byte{0x00, 0xff, 5, 3, 0, 2, 0, 5, 1, 0, 3, 5, 1, 0, 5, 1, 0x81, 4, 0, 2, 0x80, 1, 0x84, 1, 0xff, 2})
	f.Add([]byte{0x24, 0x3a, 0, 9, 0, 0x10, 0, 9, 0, 0, 3, 9, 0, 0xe0, 3, 9, 0, 0x12, 0, 8, 0xf6, 0xe1, 6, 0, 100, 0})
	var levels [3]decisions.SelfAssessment
	for i, lvl := range []decisions.Level{known, uncertain, unknown} {
		levels[i] = assessment(f, 0, lvl)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, evs := decodeFuzzEvents(t, data, &levels)
		var outputs [2]bytes.Buffer
		for pass := range outputs {
			l := mustLoop(t, opts)
			inv := newInvariants(l)
			var out Output
			reused := make([]float64, decisions.CovarianceLen)
			var pool CovariancePool
			var drawn [][]float64
			for i, ev := range evs {
				if b, ok := ev.(BeliefEvent); ok {
					cov := reused
					if pass == 1 {
						cov, drawn = draw(&pool, drawn)
						b.Donor = &pool
					}
					copy(cov, b.Belief.Covariance)
					b.Belief.Covariance = cov
					ev = b
				}
				if err := l.Step(ev, &out); err != nil {
					t.Fatalf("event %d (%T): %v", i, ev, err)
				}
				inv.check(t, &out)
				checkSizes(t, l)
				encodeOutput(&outputs[pass], &out)
			}
		}
		if !bytes.Equal(outputs[0].Bytes(), outputs[1].Bytes()) {
			t.Fatal("two runs of the same events differ")
		}
	})
}

// draw returns storage for one covariance from pool, as a decoder drawing
// from it would: from what it took before, else a bulk from the pool, else
// a new block.
func draw(pool *CovariancePool, own [][]float64) ([]float64, [][]float64) {
	if len(own) == 0 {
		own = pool.Take(own)
	}
	if len(own) == 0 {
		block := make([]float64, 4*decisions.CovarianceLen)
		for i := range 4 {
			own = append(own, block[i*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen:(i+1)*decisions.CovarianceLen])
		}
	}
	k := len(own) - 1
	return own[k], own[:k]
}
