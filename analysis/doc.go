// Package analysis holds the statistics of contend: summaries of the
// repetitions of one configuration, comparisons between configurations,
// outlier flags, drift checks, stopping rules, and model fits of
// scalability curves.
//
// It takes numbers and returns numbers. It has no cgo, knows nothing of
// workloads, result files or the command line, and uses only the standard
// library and gonum. The unit of replication is one repetition (one process
// run); every function here treats its input as independent samples of that
// unit.
//
// Two-sample functions compare B (the new configuration) against A (the
// baseline): shifts are B - A, relative changes B/A - 1, and U counts the
// pairs in which B is larger. Relative quantities are fractions (0.05 is
// 5%).
//
// The pieces:
//
//   - Summarize: median with a distribution-free interval, quartiles, mean,
//     standard deviation (summary.go).
//   - Compare: relative change of the medians with an interval, p-value,
//     Cliff's delta, minimum detectable effect and a Verdict in words;
//     AdjustHolm corrects many comparisons together (compare.go).
//   - The tests and estimates behind it: MannWhitney, Welch, HodgesLehmann,
//     RelativeChange, CliffsDelta, MinDetectableChange (the 80%-power
//     increase and decrease, mde.go), Holm.
//   - Outliers by modified z-scores (outlier.go); MannKendall and Spearman
//     for drift over run order (trend.go); Sequential, a group-sequential
//     stopping rule for A/B runs with Lan-DeMets alpha spending over the
//     rank test's exact null (sequential.go).
//   - Moments: a sample's size, mean and sum of squared deviations by
//     Welford's update (moments.go).
//
// Programmer errors (mismatched slice lengths, levels outside (0, 1))
// panic with an "analysis:" prefix; bad data (NaN, Inf, empty input where
// a value is required) is returned as an error, wrapping ErrNoData for
// empty input; conditions that make a result weak but not wrong (too few
// samples for an interval) are returned as Warnings.
//
// Reference values in testdata/reference.json come from SciPy and NumPy,
// computed by testdata/gen_reference.py.
package analysis
