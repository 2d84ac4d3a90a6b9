// Package testscale tells a slow test how many of its cases to run: every
// one in the full run (GHOST_TEST_FULL=1, as CI runs the suite, with or
// without the race detector), a deterministic sample otherwise, so that a
// plain `go test ./...` stays quick. Every sample keeps each family of
// cases (its first and last members and an even spread between), so a
// scaled-down test still fails on what it exists to catch, and says in its
// log that it was scaled down (go test shows a passing test's log with -v,
// a failing one's always). -short keeps the skips it has and runs the
// sample. It is for tests only: it chooses which cases run, never what a
// case checks, and it never draws at random.
package testscale

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// Env names the environment variable that asks for the full run.
const Env = "GHOST_TEST_FULL"

// Full reports whether the full run was asked for: Env set to a value
// strconv.ParseBool reads as true. Any other non-empty value fails t, so a
// misspelt request does not quietly run the sample.
func Full(t testing.TB) bool {
	t.Helper()
	v, ok := os.LookupEnv(Env)
	if !ok || v == "" {
		return false
	}
	full, err := strconv.ParseBool(v)
	if err != nil {
		t.Fatalf("%s=%q: want 1 for the full run or 0 for the sample", Env, v)
	}
	return full
}

// Scaled logs that t runs scaled down, what it runs instead, and how to
// run it all.
func Scaled(t testing.TB, what string) {
	t.Helper()
	t.Logf("scaled down (%s): set %s=1 for the full run", what, Env)
}

// Count returns full in the full run and scaled otherwise, logging the
// scale; what names the unit counted ("events", "hours").
func Count(t testing.TB, full, scaled int, what string) int {
	t.Helper()
	if Full(t) || scaled >= full {
		return full
	}
	Scaled(t, fmt.Sprintf("%d of %d %s", scaled, full, what))
	return scaled
}

// Spread returns k indices of [0, n) in ascending order, evenly spread with
// the first and the last included; every index when k >= n, none when
// n <= 0 or k <= 0, and the first alone when k == 1.
func Spread(n, k int) []int {
	if n <= 0 || k <= 0 {
		return nil
	}
	if k >= n {
		k = n
	}
	out := make([]int, k)
	if k == 1 {
		return out
	}
	for i := range out {
		// i*(n-1)/(k-1) is strictly increasing when k <= n, so no index
		// repeats.
		out[i] = i * (n - 1) / (k - 1)
	}
	return out
}

// Sample returns, in the full run, every case; otherwise about budget of
// them chosen by Spread within each family (the cases with equal
// family(c)), each family in proportion to its size and at least
// min(2, its size), in their original order. It logs the scale.
func Sample[C any, F comparable](t testing.TB, cases []C, budget int, family func(C) F) []C {
	t.Helper()
	if Full(t) || budget >= len(cases) {
		return cases
	}
	members := map[F][]int{}
	var order []F
	for i, c := range cases {
		f := family(c)
		if _, seen := members[f]; !seen {
			order = append(order, f)
		}
		members[f] = append(members[f], i)
	}
	keep := make([]bool, len(cases))
	for _, f := range order {
		idx := members[f]
		k := max(2, (budget*len(idx)+len(cases)-1)/len(cases))
		for _, j := range Spread(len(idx), k) {
			keep[idx[j]] = true
		}
	}
	var out []C
	for i, c := range cases {
		if keep[i] {
			out = append(out, c)
		}
	}
	Scaled(t, fmt.Sprintf("%d of %d cases, every one of %d families", len(out), len(cases), len(order)))
	return out
}
