package ab

import (
	"fmt"
	"math"
	"strings"

	"contend/analysis"
	"contend/internal/results"
)

// PairDiffs returns the differences of metric within each measured round
// of f (an A/B file: configurations 0 and 1, a round holding one
// repetition of each): ln(b/a) when every value is positive (a relative
// change, as the headline's), else b - a; rounds where a side failed are
// left out. rel says which.
func PairDiffs(f *results.File, metric string) (d []float64, rel bool) {
	type pair struct {
		v   [2]float64
		has [2]bool
	}
	byRound := map[int]*pair{}
	var rounds []int
	cols := f.Columns()
	vals, has := cols.Metric(metric)
	for i := range cols.Len() {
		c := cols.Config(i)
		if !has[i] || cols.Warmup(i) || cols.Status(i) != results.StatusOK || c < 0 || c > 1 {
			continue
		}
		p := byRound[cols.Round(i)]
		if p == nil {
			p = &pair{}
			byRound[cols.Round(i)] = p
			rounds = append(rounds, cols.Round(i))
		}
		p.v[c], p.has[c] = vals[i], true
	}
	rel = true
	var ps []*pair
	for _, r := range rounds {
		if p := byRound[r]; p.has[0] && p.has[1] {
			ps = append(ps, p)
			rel = rel && p.v[0] > 0 && p.v[1] > 0
		}
	}
	for _, p := range ps {
		if rel {
			d = append(d, math.Log(p.v[1]/p.v[0]))
		} else {
			d = append(d, p.v[1]-p.v[0])
		}
	}
	return d, rel
}

// pairsText is the A/B run's check within pairs: the signed-rank test on
// the primary metric's difference in each round (PairDiffs), in a
// sentence, and a warning when it and the headline's test (p-value
// headP) disagree at alpha; "" with fewer than 5 pairs.
func pairsText(f *results.File, order Order, alpha, headP float64) (line, warning string) {
	d, rel := PairDiffs(f, f.Primary)
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
