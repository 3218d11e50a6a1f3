package analysis_test

import (
	"fmt"

	"contend/analysis"
)

func ExampleSummarize() {
	times := []float64{10.2, 10.4, 9.9, 10.1, 10.0, 10.3, 10.2}
	s, err := analysis.Summarize(times, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("median %.2f, %.1f%% CI [%.2f, %.2f], CV %.1f%%\n",
		s.Median, 100*s.Coverage, s.MedianLo, s.MedianHi, 100*s.CV)
	// Output: median 10.20, 98.4% CI [9.90, 10.40], CV 1.7%
}

func ExampleCompare() {
	old := []float64{10.2, 10.4, 9.9, 10.1, 10.0, 10.3, 10.25, 10.15}
	new := []float64{9.6, 9.7, 9.5, 9.8, 9.65, 9.4, 9.75, 9.55}
	c, err := analysis.Compare(old, new, analysis.CompareOptions{
		Better:    analysis.LowerIsBetter,
		Threshold: 0.02,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+.1f%% [%+.1f%%, %+.1f%%], p=%.4f (%s), delta %.2f (%s): %s\n",
		100*c.Change, 100*c.ChangeLo, 100*c.ChangeHi, c.P, c.Method, c.CliffsDelta, c.Magnitude, c.Verdict)
	// Output: -5.4% [-6.9%, -3.9%], p=0.0002 (exact), delta -1.00 (large): better
}

func ExampleMannWhitneyMinP() {
	for n := 3; n <= 5; n++ {
		fmt.Printf("%d+%d runs: smallest p %.4f\n", n, n, analysis.MannWhitneyMinP(n, n, analysis.TwoSided))
	}
	// Output:
	// 3+3 runs: smallest p 0.1000
	// 4+4 runs: smallest p 0.0286
	// 5+5 runs: smallest p 0.0079
}

func ExampleSequential() {
	s, err := analysis.NewSequential(0.05, 5, 30, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Printf("first decision possible after %d pairs at level %s\n", s.FirstTest, analysis.FormatAlpha(s.Levels[s.FirstTest]))
	// Output: first decision possible after 5 pairs at level 0.00794
}
