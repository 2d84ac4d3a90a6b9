package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

// plan sends everything while the fault is off, and while it is on loses
// about the given share and delays within delay +- jitter, never below 0.
func TestPlan(t *testing.T) {
	for _, tt := range []struct {
		name          string
		on            bool
		loss          float64
		delay, jitter time.Duration
		wantLostMin   int
		wantLostMax   int
	}{
		{"off", false, 1, time.Second, time.Second, 0, 0},
		{"on, no loss", true, 0, 0, 0, 0, 0},
		{"on, all lost", true, 1, 0, 0, 10000, 10000},
		{"on, 10 %", true, 0.1, 0, 0, 800, 1200},
		{"on, 30 % and jitter", true, 0.3, 25 * time.Millisecond, 50 * time.Millisecond, 2700, 3300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &link{loss: tt.loss, delay: tt.delay, jitter: tt.jitter, rng: rand.New(rand.NewPCG(1, 1))}
			l.on.Store(tt.on)
			lost := 0
			for i := range 10000 {
				send, after := l.plan(i % 2)
				if !send {
					lost++
					continue
				}
				if after < 0 || (tt.on && after > tt.delay+tt.jitter) || (!tt.on && after != 0) {
					t.Fatalf("packet %d after %v (delay %v, jitter %v, on %v)", i, after, tt.delay, tt.jitter, tt.on)
				}
			}
			if lost < tt.wantLostMin || lost > tt.wantLostMax {
				t.Errorf("lost %d of 10000, want %d to %d", lost, tt.wantLostMin, tt.wantLostMax)
			}
			if got := l.counts[0].lost + l.counts[1].lost; got != uint64(lost) {
				t.Errorf("counted %d lost, lost %d", got, lost)
			}
			if got := l.counts[0].packets + l.counts[1].packets; got != 10000 {
				t.Errorf("counted %d packets, want 10000", got)
			}
		})
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-loss", "1.5"}, {"-loss", "-0.1"}, {"-delay", "-1s"}, {"-jitter", "-1ms"}} {
		if err := run(args, nil); err == nil {
			t.Errorf("run(%v) accepted", args)
		}
	}
}
