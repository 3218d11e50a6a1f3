package analysis

import "math"

// Fairness describes how evenly work or time was shared between the
// threads (or tasks) of one repetition. Per-thread values are not
// independent samples; Fairness summarises them as a single repetition's
// property.
type Fairness struct {
	N         int
	Mean      float64
	PopStdDev float64 // population standard deviation, as sysbench's "threads fairness"
	Min, Max  float64
	// Jain is Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all
	// values are equal, 1/n when one thread did everything.
	Jain float64
	// MinMax is Min/Max: 1 when equal, 0 when a thread starved.
	MinMax float64
}

// FairnessOf computes the Fairness of per-thread values xs. An empty xs
// gives the zero Fairness.
func FairnessOf(xs []float64) Fairness {
	f := Fairness{N: len(xs)}
	if len(xs) == 0 {
		return f
	}
	var sum, sq float64
	f.Min, f.Max = xs[0], xs[0]
	for _, x := range xs {
		sum += x
		sq += x * x
		f.Min, f.Max = math.Min(f.Min, x), math.Max(f.Max, x)
	}
	f.Mean = sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - f.Mean) * (x - f.Mean)
	}
	f.PopStdDev = math.Sqrt(ss / float64(len(xs)))
	if sq > 0 {
		f.Jain = sum * sum / (float64(len(xs)) * sq)
	}
	if f.Max > 0 {
		f.MinMax = f.Min / f.Max
	}
	return f
}
