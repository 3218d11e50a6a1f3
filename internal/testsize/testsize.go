// Package testsize gives the tests' simulations and randomized
// equivalence checks their size: a default sized for the desk (the
// packages' tests together in under a minute on 2 cores), or the full
// size with CONTEND_FULL_SIM=1, which .ci/run sets. A test's statistical
// bound is computed for the size it runs (BinomialQuantile, Tolerance),
// so that both sizes still fail a broken implementation.
package testsize

import (
	"math"
	"os"
)

// Env is the environment variable that asks for the full size.
const Env = "CONTEND_FULL_SIM"

// Full reports whether the full size was asked for (CONTEND_FULL_SIM=1).
func Full() bool { return os.Getenv(Env) == "1" }

// Pick returns full when the full size was asked for, else small.
func Pick(small, full int) int {
	if Full() {
		return full
	}
	return small
}

// BinomialQuantile returns the smallest k with P(X <= k) >= q for X of
// Binomial(n, p): the largest count of rare events (false positives at
// rate p) that n trials give with probability q.
func BinomialQuantile(n int, p, q float64) int {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v } // log x!
	cdf := 0.0
	for k := 0; k <= n; k++ {
		// the log of C(n, k) p^k (1-p)^(n-k)
		cdf += math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
		if cdf >= q {
			return k
		}
	}
	return n
}

// Tolerance returns z standard errors of a rate p estimated from n
// trials: z·sqrt(p(1-p)/n).
func Tolerance(p float64, n int, z float64) float64 {
	return z * math.Sqrt(p*(1-p)/float64(n))
}
