package comparison

import (
	"contend/analysis"
	"contend/internal/results"
)

// A PairReport compares side B with side A (indices into Sides).
type PairReport struct {
	A, B int
	Rows []MetricRow
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
}
