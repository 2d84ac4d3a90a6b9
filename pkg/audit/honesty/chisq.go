package honesty

import "math"

// ChiSquareQuantile returns x with P(X <= x) = p for X chi-square with k
// degrees of freedom (k > 0, 0 < p < 1): the bounds a consistent
// estimator's NEES stays within. It inverts the regularized incomplete
// gamma function by bisection, to a relative 1e-12.
func ChiSquareQuantile(p float64, k int) float64 {
	if k <= 0 || !(p > 0 && p < 1) {
		return math.NaN()
	}
	a := float64(k) / 2
	lo, hi := 0.0, float64(k)+10*math.Sqrt(2*float64(k))+10
	for lowerGamma(a, hi/2) < p {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if lowerGamma(a, mid/2) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// lowerGamma is the regularized lower incomplete gamma function P(a, x):
// a series below x = a+1, a continued fraction (Lentz) above
// (Numerical Recipes, 6.2).
func lowerGamma(a, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(a)
	prefix := math.Exp(a*math.Log(x) - x - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1_000_000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if term < sum*1e-16 {
				break
			}
		}
		return prefix * sum
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 1_000_000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return 1 - prefix*h
}
