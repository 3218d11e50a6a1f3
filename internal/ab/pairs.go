package ab

import (
	"fmt"
	"math"
	"strings"

	"contend/analysis"
	"contend/internal/results"
)

// pairsText is the A/B run's check within pairs: the signed-rank test on
// the primary metric's difference in each round (File.PairDiffs), in a
// sentence, and a warning when it and the headline's test (p-value
// headP) disagree at alpha; "" with fewer than 5 pairs.
func pairsText(f *results.File, order Order, alpha, headP float64) (line, warning string) {
	d, rel := f.PairDiffs(f.Primary)
	if len(d) < 5 {
		return "", ""
	}
	r, err := analysis.SignedRank(d)
	if err != nil {
		return "", ""
	}
	est := fmt.Sprintf("%+.3g", r.Estimate)
	if rel {
		est = fmt.Sprintf("%+.1f%%", 100*math.Expm1(r.Estimate))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "within pairs: %s: B against A in each of %d pairs, HL %s, p=%s (Wilcoxon signed-rank)", f.Primary, len(d), est, formatP(r.P))
	if order == OrderRandom {
		b.WriteString("; the sides' order was drawn in each pair, so this p-value holds whatever the machine did between pairs")
	} else {
		b.WriteString("; with --order random it would hold whatever the machine did between pairs (a fixed order can fall in step with a load)")
	}
	if !math.IsNaN(headP) && (headP <= alpha) != (r.P <= alpha) {
		warning = fmt.Sprintf("the headline's test (p=%s) and the pairs (p=%s) disagree at alpha %s: the machine may have changed in step with the order of the sides; rerun with --order random and trust the pairs", formatP(headP), formatP(r.P), analysis.FormatAlpha(alpha))
	}
	return b.String(), warning
}

// formatP is a p-value in two significant digits, "<0.001" below.
func formatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.2g", p)
}
