package summary

import (
	"fmt"
	"io"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
	"contend/internal/units"
)

// WriteOutliers prints the outlier report of config c of f for show: one
// line per outlier, or one line saying there is none.
func WriteOutliers(w io.Writer, f *results.File, c int) {
	n := f.Counts(c)[results.StatusOK]
	if n < comparison.OutlierMinN {
		return
	}
	outs := comparison.Outliers(f, c)
	if len(outs) == 0 {
		fmt.Fprintf(w, "outliers: none (no modified z-score above %g)\n", analysis.OutlierThreshold)
		return
	}
	fmt.Fprintf(w, "outliers (modified z-score above %g; kept, not dropped):\n", analysis.OutlierThreshold)
	for _, o := range outs {
		m, _ := f.Metric(o.Metric)
		fmt.Fprintf(w, "  %s %s: repetition %d, z = %.1f\n", o.Metric, units.Human(m.Unit, o.Value), o.Ord, o.Z)
	}
}
