package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestHeapCeiling(t *testing.T) {
	const MB = 1 << 20
	type step struct {
		s     heapSample
		limit int64 // 0: none set by this sample
	}
	warm := func(from uint64) []step { // five cycles of a steady 16 MB live heap
		var st []step
		for i := range uint64(5) {
			st = append(st, step{s: heapSample{cycles: from + i, live: 16 * MB, inUse: 30 * MB}})
		}
		return st
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"too few cycles", []step{
			{s: heapSample{cycles: 1, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 2, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 3, live: 16 * MB, inUse: 30 * MB}},
		}},
		{"steady after six cycles", append(warm(1), step{s: heapSample{cycles: 6, live: 16 * MB, inUse: 34 * MB}, limit: 34 * MB})},
		{"the highest use so far", append(append([]step{{s: heapSample{cycles: 0, live: 1 * MB, inUse: 40 * MB}}}, warm(1)...),
			step{s: heapSample{cycles: 6, live: 16 * MB, inUse: 30 * MB}, limit: 40 * MB})},
		{"samples within one cycle count once", []step{
			{s: heapSample{cycles: 6, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 6, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 6, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 7, live: 16 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 8, live: 16 * MB, inUse: 30 * MB}, limit: 30 * MB},
		}},
		{"growing live heap", []step{
			{s: heapSample{cycles: 6, live: 10 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 7, live: 12 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 8, live: 14 * MB, inUse: 30 * MB}},
			{s: heapSample{cycles: 9, live: 16 * MB, inUse: 30 * MB}},
		}},
		{"lifted when the live heap outgrows it, for good", append(warm(1), []step{
			{s: heapSample{cycles: 6, live: 16 * MB, inUse: 32 * MB}, limit: 32 * MB},
			{s: heapSample{cycles: 8, live: 24 * MB, inUse: 32 * MB}},
			{s: heapSample{cycles: 9, live: 25 * MB, inUse: 40 * MB}, limit: math.MaxInt64},
			{s: heapSample{cycles: 10, live: 16 * MB, inUse: 40 * MB}},
			{s: heapSample{cycles: 11, live: 16 * MB, inUse: 40 * MB}},
			{s: heapSample{cycles: 12, live: 16 * MB, inUse: 40 * MB}},
		}...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c ceiling
			for i, st := range tt.steps {
				limit, ok := c.observe(st.s)
				if ok != (st.limit != 0) || limit != st.limit {
					t.Fatalf("sample %d %+v: limit %d, %v; want %d", i, st.s, limit, ok, st.limit)
				}
			}
		})
	}
}

// On a steady heap the watcher sets a limit, and stop lifts it again; with
// GOMEMLIMIT set it never sets one.
func TestHeapCeilingSetsAndLiftsTheLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	for _, env := range []string{"1GiB", ""} {
		stop := startHeapCeiling(func(k string) string {
			if k == "GOMEMLIMIT" {
				return env
			}
			return ""
		})
		// A small steady live heap (8 blocks), renewed, then a collection
		// and a tick of the watcher: warm within a few collections, the
		// live heap far below the limit. Collections run here, not paced
		// by a busy loop, so that what they find live does not depend on
		// how much the loop allocated while they marked: under load, a
		// paced cycle's live heap swings by more than the watcher
		// accepts as steady. The bound only ends a run that never warms.
		garbage := make([][]byte, 8)
		engaged := false
		bound := 10 * time.Second // warm in well under a second here
		if env != "" {
			bound = time.Second // nothing to wait for
		}
		for deadline := time.Now().Add(bound); !engaged && time.Now().Before(deadline); {
			for i := range garbage {
				garbage[i] = make([]byte, 64<<10)
			}
			runtime.GC()
			time.Sleep(60 * time.Millisecond)
			engaged = debug.SetMemoryLimit(-1) != before
		}
		stop()
		if want := env == ""; engaged != want {
			t.Errorf("GOMEMLIMIT=%q: limit set while running: %v, want %v", env, engaged, want)
		}
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Fatalf("GOMEMLIMIT=%q: memory limit %d after stop, was %d", env, after, before)
		}
	}
}
