package main

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A replay or a verification keeps a working set bounded by its pipeline
// (read-ahead batches, chunks in flight, encoders, the Loop's memory) plus
// the recording's index, which grows with the recording's length. At Go's
// GC target the heap may reach twice the live heap, and how close it comes
// depends on the live heap at each collection: the longer the run, the
// more collections, the higher the highest of them, and every byte of
// index costs two of peak memory, so a longer recording needed markedly
// more memory (BENCHMARKS.md, "ten times the input"). startHeapCeiling holds the peak where it
// was once the run was warm (its live heap steady over a few collections):
// it sets the runtime's soft memory limit to the memory in use so far, so
// later growth is collected against instead of doubled. A live heap that
// grows on to three quarters of the limit (a recording with a far larger
// index than usual) lifts the limit for good, so no run collects more
// often than at the GC target alone. GOMEMLIMIT, when set, decides instead.

// heapSample is what startHeapCeiling reads of the runtime.
type heapSample struct {
	cycles uint64 // completed GC cycles
	live   uint64 // heap marked live by the last cycle
	inUse  uint64 // memory the runtime holds, as the memory limit counts it
}

// Warm-up: at least ceilingMinCycles GC cycles, the last ceilingStable
// of which found live heaps within 1/ceilingSpread of each other.
const (
	ceilingMinCycles = 6
	ceilingStable    = 3
	ceilingSpread    = 10
)

// ceiling is startHeapCeiling's state; observe is its whole policy.
type ceiling struct {
	lives    []uint64 // live heap after the last cycles seen, newest last
	cycles   uint64
	maxInUse uint64
	limit    uint64 // set, 0 before
	released bool
}

// observe takes one sample and returns the memory limit to set, if any
// (math.MaxInt64 lifts it).
func (c *ceiling) observe(s heapSample) (int64, bool) {
	c.maxInUse = max(c.maxInUse, s.inUse)
	if c.released {
		return 0, false
	}
	if c.limit > 0 {
		if s.live > c.limit/4*3 {
			c.released = true
			return math.MaxInt64, true
		}
		return 0, false
	}
	if s.cycles == c.cycles {
		return 0, false
	}
	c.cycles = s.cycles
	if c.lives = append(c.lives, s.live); len(c.lives) > ceilingStable {
		c.lives = append(c.lives[:0], c.lives[1:]...)
	}
	if s.cycles < ceilingMinCycles || len(c.lives) < ceilingStable {
		return 0, false
	}
	last := c.lives[len(c.lives)-ceilingStable:]
	lo, hi := last[0], last[0]
	for _, l := range last {
		lo, hi = min(lo, l), max(hi, l)
	}
	if hi-lo > hi/ceilingSpread {
		return 0, false
	}
	c.limit = c.maxInUse
	return int64(min(c.limit, math.MaxInt64)), true
}

var ceilingMetrics = []string{
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// startHeapCeiling watches the runtime every 50 ms until stop is called,
// which also lifts a limit it set.
func startHeapCeiling(getenv func(string) string) (stop func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		samples := make([]metrics.Sample, len(ceilingMetrics))
		for i, name := range ceilingMetrics {
			samples[i].Name = name
		}
		var c ceiling
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				if c.limit > 0 && !c.released {
					debug.SetMemoryLimit(math.MaxInt64)
				}
				return
			case <-tick.C:
			}
			metrics.Read(samples)
			s := heapSample{cycles: samples[0].Value.Uint64(), live: samples[1].Value.Uint64(),
				inUse: samples[2].Value.Uint64() - samples[3].Value.Uint64()}
			if limit, ok := c.observe(s); ok {
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
