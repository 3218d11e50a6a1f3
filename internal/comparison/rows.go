package comparison

import (
	"contend/analysis"
	"contend/internal/results"
)

// A PairReport compares side B with side A (indices into Sides).
type PairReport struct {
	A, B int
	Rows []MetricRow
	// Replication is the unit of replication of the pair, ReplicationNote
	// the sentence that says it under the headline (ReplicationOf).
	Replication     Replication
	ReplicationNote string
	// Instability is what makes the headline doubtful (Instability).
	Instability Instability
}

// A MetricRow is one metric of a PairReport.
type MetricRow struct {
	Metric    results.Metric
	Direction analysis.Direction
	// Identical is true when every value on both sides is the same
	// number (such as a page count fixed by the parameters): nothing to
	// test, and not counted in the Holm families.
	Identical bool
	Cmp       *analysis.Comparison // nil when Identical
	// NA and NB are the numbers of values of sides A and B, MedianA and
	// MedianB their medians (Cmp's summaries', the same numbers, when
	// there is a comparison).
	NA, NB           int
	MedianA, MedianB float64
}
