package testscale

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Full, Count and Sample say
// instead of failing or logging.
type recorder struct {
	testing.TB
	fatal, log []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, a ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, a...))
}
func (r *recorder) Logf(format string, a ...any) { r.log = append(r.log, fmt.Sprintf(format, a...)) }

func TestFull(t *testing.T) {
	for _, tc := range []struct {
		value string
		full  bool
		fatal string
	}{
		{"", false, ""},
		{"1", true, ""},
		{"true", true, ""},
		{"0", false, ""},
		{"false", false, ""},
		{"yes", false, `GHOST_TEST_FULL="yes": want 1`},
		{"full", false, `GHOST_TEST_FULL="full": want 1`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv(Env, tc.value)
			r := &recorder{TB: t}
			if got := Full(r); got != tc.full {
				t.Errorf("Full = %v, want %v", got, tc.full)
			}
			switch {
			case tc.fatal == "" && len(r.fatal) > 0:
				t.Errorf("failed: %v", r.fatal)
			case tc.fatal != "" && (len(r.fatal) != 1 || !strings.Contains(r.fatal[0], tc.fatal)):
				t.Errorf("failures %q, want one containing %q", r.fatal, tc.fatal)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		env          string
		full, scaled int
		want         int
		saysScaledTo string
	}{
		{"1", 1000, 10, 1000, ""},
		{"", 1000, 10, 10, "scaled down (10 of 1000 events): set GHOST_TEST_FULL=1 for the full run"},
		{"0", 24, 2, 2, "scaled down (2 of 24 events)"},
		{"", 5, 10, 5, ""},
	} {
		t.Run(fmt.Sprintf("%s/%d/%d", tc.env, tc.full, tc.scaled), func(t *testing.T) {
			t.Setenv(Env, tc.env)
			r := &recorder{TB: t}
			if got := Count(r, tc.full, tc.scaled, "events"); got != tc.want {
				t.Errorf("Count = %d, want %d", got, tc.want)
			}
			said := strings.Join(r.log, "\n")
			if tc.saysScaledTo == "" && said != "" || !strings.Contains(said, tc.saysScaledTo) {
				t.Errorf("logged %q, want %q", said, tc.saysScaledTo)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want []int
	}{
		{0, 3, nil},
		{5, 0, nil},
		{5, 1, []int{0}},
		{5, 2, []int{0, 4}},
		{5, 5, []int{0, 1, 2, 3, 4}},
		{3, 9, []int{0, 1, 2}},
		{10, 4, []int{0, 3, 6, 9}},
		{101, 5, []int{0, 25, 50, 75, 100}},
	} {
		if got := Spread(tc.n, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("Spread(%d, %d) = %v, want %v", tc.n, tc.k, got, tc.want)
		}
	}
	// Any size: k distinct ascending indices in range, ends included.
	for n := 1; n < 60; n++ {
		for k := 1; k <= n; k++ {
			got := Spread(n, k)
			if len(got) != k || got[0] != 0 || k > 1 && got[k-1] != n-1 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != k {
				t.Fatalf("Spread(%d, %d) = %v", n, k, got)
			}
		}
	}
}

func TestSample(t *testing.T) {
	// 1000 cases in families of very different sizes: a family of one, of
	// two, and large ones.
	type tcase struct{ i, family int }
	var cases []tcase
	for i := range 1000 {
		f := i % 7
		switch {
		case i == 500:
			f = 100
		case i == 3 || i == 998:
			f = 101
		}
		cases = append(cases, tcase{i, f})
	}
	family := func(c tcase) int { return c.family }

	t.Setenv(Env, "")
	r := &recorder{TB: t}
	got := Sample(r, cases, 100, family)
	if len(got) < 100 || len(got) > 120 {
		t.Errorf("%d cases for a budget of 100", len(got))
	}
	if !slices.IsSortedFunc(got, func(a, b tcase) int { return a.i - b.i }) {
		t.Error("the sample is not in the cases' order")
	}
	for f := range 7 {
		var members []int
		for _, c := range cases {
			if c.family == f {
				members = append(members, c.i)
			}
		}
		first, last := members[0], members[len(members)-1]
		if !slices.ContainsFunc(got, func(c tcase) bool { return c.i == first }) || !slices.ContainsFunc(got, func(c tcase) bool { return c.i == last }) {
			t.Errorf("family %d: first %d or last %d not sampled", f, first, last)
		}
	}
	for _, i := range []int{500, 3, 998} {
		if !slices.ContainsFunc(got, func(c tcase) bool { return c.i == i }) {
			t.Errorf("case %d of a small family not sampled", i)
		}
	}
	if len(r.log) != 1 || !strings.Contains(r.log[0], "of 1000 cases, every one of 9 families") || !strings.Contains(r.log[0], "GHOST_TEST_FULL=1") {
		t.Errorf("logged %q", r.log)
	}
	if again := Sample(r, cases, 100, family); !slices.Equal(again, got) {
		t.Error("two samples differ")
	}

	t.Setenv(Env, "1")
	r = &recorder{TB: t}
	if all := Sample(r, cases, 100, family); !slices.Equal(all, cases) || len(r.log) != 0 {
		t.Errorf("the full run sampled %d cases and logged %q", len(all), r.log)
	}
}
