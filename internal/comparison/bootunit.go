package comparison

import (
	"math"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/evidence"
)

// BootPower is the power of the boot-level minimum detectable change.
const BootPower = 0.8

// A BootRow is the boot-level comparison of one metric of a pair.
type BootRow struct {
	Metric    string
	Direction analysis.Direction
	// Identical: every value on both sides is the same number (not
	// tested, as in the pooled rows).
	Identical bool
	// Cmp is the comparison, nil when Identical or when it could not be
	// made (Reason says why).
	Cmp    *analysis.BootComparison
	Reason string
	// AdjustedP is Cmp.P Holm-adjusted over FamilySize tests (the
	// families of the pooled rows); Verdict decided from it.
	AdjustedP  float64
	FamilySize int
	Verdict    analysis.Verdict
	// MDEUp and MDEDown are the changes the test would find with power
	// BootPower at the level alpha/FamilySize, from its standard error.
	MDEUp, MDEDown float64
	// MeanA and MeanB are the centres of the two sides the change is of:
	// the geometric means of the per-boot geometric means, or, on the
	// shift scale, the means of the per-boot means (NaN without Cmp).
	// Value is the value every repetition has when Identical.
	MeanA, MeanB float64
	Value        float64
}

// Change returns the boot-level change B/A-1 and its interval.
func (b BootRow) Change() (est, lo, hi float64) {
	if b.Cmp == nil {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return b.Cmp.Ratio - 1, b.Cmp.Lo - 1, b.Cmp.Hi - 1
}

// means returns the centres of the two sides the change of c is of: the
// geometric means of the per-boot geometric means, or, on the shift
// scale, the means of the per-boot means.
func means(c *analysis.BootComparison) (a, b float64) {
	if c.Shift {
		return analysis.MomentsOf(c.MeansA).Mean, analysis.MomentsOf(c.MeansB).Mean
	}
	return math.Exp(analysis.MomentsOf(c.MeansA).Mean), math.Exp(analysis.MomentsOf(c.MeansB).Mean)
}

// pairIndex returns the index of the pair of sides a and b in r.Pairs.
func (r *Comparison) pairIndex(a, b int) int {
	for i, p := range r.Pairs {
		if p.A == a && p.B == b {
			return i
		}
	}
	return -1
}

// bootRows compares every metric of pair p with the boot as the unit.
func (r *Comparison) bootRows(p PairReport) []BootRow {
	var out []BootRow
	for _, row := range p.Rows {
		br := BootRow{Metric: row.Metric.Name, Direction: row.Direction, Identical: row.Identical,
			AdjustedP: math.NaN(), MDEUp: math.NaN(), MDEDown: math.NaN(), MeanA: math.NaN(), MeanB: math.NaN()}
		if row.Identical {
			br.Value = row.MedianA
		} else {
			ba, okA := SideBoots(r.parts[p.A], row.Metric.Name)
			bb, okB := SideBoots(r.parts[p.B], row.Metric.Name)
			var ga, gb [][]float64
			for _, b := range ba {
				ga = append(ga, b.Values)
			}
			for _, b := range bb {
				gb = append(gb, b.Values)
			}
			switch {
			case !okA || !okB:
				br.Reason = "a repetition records no boot"
			default:
				c, err := analysis.CompareBootMeans(ga, gb, Confidence)
				if err != nil {
					br.Reason = strings.TrimPrefix(err.Error(), "analysis: ")
				} else {
					br.Cmp = &c
					br.MeanA, br.MeanB = means(&c)
				}
			}
		}
		out = append(out, br)
	}
	return out
}

// adjustBootRows Holm-adjusts the boot-level p-values in the families of
// the pooled rows (the headline over the pairs, the other metrics, the
// kernel evidence; or all together with OneFamily) and decides each
// verdict.
func (r *Comparison) adjustBootRows() {
	fams := map[int][]*BootRow{}
	for bi := range r.Boots {
		for i := range r.Boots[bi].Rows {
			row := &r.Boots[bi].Rows[i]
			if row.Cmp == nil {
				continue
			}
			f := 1
			switch {
			case r.Options.OneFamily:
			case row.Metric == r.Headline:
				f = 0
			case IsProfile(row.Metric):
				f = 3
			case evidence.IsEvidence(row.Metric):
				f = 2
			}
			fams[f] = append(fams[f], row)
		}
	}
	for _, fam := range fams {
		ps := make([]float64, len(fam))
		for i, row := range fam {
			ps[i] = row.Cmp.P
		}
		adj, err := analysis.Holm(ps)
		if err != nil {
			continue // p-values of t-tests are in [0, 1]
		}
		for i, row := range fam {
			row.AdjustedP, row.FamilySize = adj[i], len(fam)
			row.MDEUp, row.MDEDown = row.Cmp.MDE(r.Options.Alpha/float64(len(fam)), BootPower)
			row.Verdict = bootVerdict(row, r.Options.Alpha, r.Options.Threshold)
		}
	}
}

// bootVerdict decides the verdict of a boot-level row as the pooled rows
// decide theirs: no significant change above alpha, within noise below
// the noise band, else the direction.
func bootVerdict(row *BootRow, alpha, threshold float64) analysis.Verdict {
	est, _, _ := row.Change()
	switch {
	case !(row.AdjustedP <= alpha) || est == 0:
		return analysis.VerdictNoChange
	case math.Abs(est) < threshold:
		return analysis.VerdictWithinNoise
	}
	up := est > 0
	switch {
	case row.Direction == analysis.LowerIsBetter && up, row.Direction == analysis.HigherIsBetter && !up:
		return analysis.VerdictWorse
	case row.Direction == analysis.LowerIsBetter, row.Direction == analysis.HigherIsBetter:
		return analysis.VerdictBetter
	case up:
		return analysis.VerdictIncrease
	}
	return analysis.VerdictDecrease
}

// BootUnit reports whether the boot is the unit of the verdict: every
// pair's sides span two or more boots and its headline metric was
// compared by boot.
func (r *Comparison) BootUnit() bool {
	if len(r.Boots) != len(r.Pairs) || len(r.Pairs) == 0 {
		return false
	}
	for _, b := range r.Boots {
		if b.OneBoot() || b.Cmp == nil || len(b.Rows) == 0 {
			return false
		}
	}
	return true
}

// SideBootCount returns the number of boots the repetitions of side i
// ran in, as the boot level counted them: 0 when no boot level has the
// side (its repetitions record no boot).
func (r *Comparison) SideBootCount(i int) int {
	for _, b := range r.Boots {
		switch i {
		case b.A:
			return len(b.BootsA)
		case b.B:
			return len(b.BootsB)
		}
	}
	return 0
}

// BootLevelOf returns the boot level of pair p (nil when it has none).
func (r *Comparison) BootLevelOf(p PairReport) *BootLevel {
	for i := range r.Boots {
		if r.Boots[i].A == p.A && r.Boots[i].B == p.B {
			return &r.Boots[i]
		}
	}
	return nil
}

// BootRowOf returns the boot-level row of metric in pair p.
func (r *Comparison) BootRowOf(p PairReport, metric string) *BootRow {
	b := r.BootLevelOf(p)
	if b == nil {
		return nil
	}
	for i := range b.Rows {
		if b.Rows[i].Metric == metric {
			return &b.Rows[i]
		}
	}
	return nil
}

// A PerBoot is one boot of the per-boot table of the headline metric
// (Comparison.PerBoot).
type PerBoot struct {
	Boot   Boot
	Side   string // the side's label
	Number int    // boot of the plan from 1, or the order of the first runs
	Info   *BootInfo
	Median float64
	Spread float64 // standard deviation over the mean (NaN for one run or a mean of 0)
}

// perBoot returns every boot of every side on the headline metric, in the
// order of the plan (the campaign's slots) or of their first runs.
func (r *Comparison) perBoot() []PerBoot {
	var out []PerBoot
	seen := map[string]bool{}
	for si := range r.Sides {
		boots, ok := SideBoots(r.parts[si], r.Headline)
		if !ok {
			continue
		}
		for _, b := range boots {
			key := r.Sides[si].Label + "\x00" + b.ID
			if seen[key] {
				continue
			}
			seen[key] = true
			row := PerBoot{Boot: b, Side: r.Sides[si].Label, Median: analysis.Median(b.Values), Spread: math.NaN()}
			if s, err := analysis.Summarize(b.Values, Confidence); err == nil && s.Mean != 0 && len(b.Values) > 1 {
				row.Spread = s.StdDev / math.Abs(s.Mean)
			}
			if inf, ok := r.Options.BootInfo[b.ID]; ok {
				row.Info = &inf
			}
			out = append(out, row)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Info != nil && b.Info != nil {
			return a.Info.Slot < b.Info.Slot
		}
		return a.Boot.First.Before(b.Boot.First)
	})
	for i := range out {
		out[i].Number = i + 1
		if out[i].Info != nil {
			out[i].Number = out[i].Info.Slot + 1
		}
	}
	return out
}
