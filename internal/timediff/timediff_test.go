package timediff

import (
	"math"
	"math/big"
	"testing"
)

// exact is x-y (or x+y) in unbounded arithmetic, clamped to int64.
func clamp(z *big.Int) int64 {
	switch {
	case z.Cmp(big.NewInt(math.MaxInt64)) > 0:
		return math.MaxInt64
	case z.Cmp(big.NewInt(math.MinInt64)) < 0:
		return math.MinInt64
	}
	return z.Int64()
}

var edges = []int64{math.MinInt64, math.MinInt64 + 1, -1 << 62, -2, -1, 0, 1, 2, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}

func TestSubAndAdd(t *testing.T) {
	for _, a := range edges {
		for _, b := range edges {
			if got, want := Sub(a, b), clamp(new(big.Int).Sub(big.NewInt(a), big.NewInt(b))); got != want {
				t.Errorf("Sub(%d, %d) = %d, want %d", a, b, got, want)
			}
			if got, want := Add(a, b), clamp(new(big.Int).Add(big.NewInt(a), big.NewInt(b))); got != want {
				t.Errorf("Add(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
		if got, want := Abs(a), clamp(new(big.Int).Abs(big.NewInt(a))); got != want {
			t.Errorf("Abs(%d) = %d, want %d", a, got, want)
		}
	}
}

func TestSubUnsigned(t *testing.T) {
	us := []uint64{0, 1, 2, 1 << 62, math.MaxInt64 - 1, math.MaxInt64, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64}
	for _, a := range us {
		for _, b := range us {
			want := clamp(new(big.Int).Sub(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)))
			if got := SubUnsigned(a, b); got != want {
				t.Errorf("SubUnsigned(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func FuzzSub(f *testing.F) {
	f.Add(int64(math.MinInt64), int64(1))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if got, want := Sub(a, b), clamp(new(big.Int).Sub(big.NewInt(a), big.NewInt(b))); got != want {
			t.Fatalf("Sub(%d, %d) = %d, want %d", a, b, got, want)
		}
	})
}
