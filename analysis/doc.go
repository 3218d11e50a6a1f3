// Package analysis holds the statistics of contend: summaries of the
// repetitions of one configuration, comparisons between configurations,
// outlier flags, and model fits of scalability curves.
//
// It takes numbers and returns numbers. It has no cgo, knows nothing of
// workloads, result files or the command line, and uses only the standard
// library and gonum. The unit of replication is one repetition (one process
// run); every function here treats its input as independent samples of that
// unit.
//
// Programmer errors (mismatched slice lengths) panic with an "analysis:"
// prefix; bad data (NaN, Inf, empty input where a value is required) is
// returned as an error; conditions that make a result weak but not wrong
// (too few samples for an interval) are returned as Warnings.
package analysis
