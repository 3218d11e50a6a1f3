package comparison

import (
	"math"
	"strconv"

	"contend/analysis"
	"contend/internal/results"
)

// Instability is what makes the headline of a pair doubtful although its
// test is exact: a side whose headline metric varies by more than
// analysis.UnstableCV, or a run whose load average rose above the online
// CPUs. Build puts it in each PairReport; reports print it beside the verdict
// (report.HeadlineFor).
type Instability struct {
	// CV holds the coefficient of variation (stdev/mean) of the headline
	// metric of sides A and B of the pair; Unstable says which exceed
	// analysis.UnstableCV (3 or more values).
	CV       [2]float64
	Unstable [2]bool
	// Load is the highest 1-minute load average recorded at the start of
	// a measured repetition of either side, CPUs the fewest online CPUs
	// of their files; Loaded is Load > CPUs.
	Load   float64
	CPUs   int
	Loaded bool
}

// Any is true when the pair is unstable or loaded.
func (in Instability) Any() bool { return in.Unstable[0] || in.Unstable[1] || in.Loaded }

// instability returns what makes pair p's headline doubtful (see
// Instability).
func (r *Comparison) instability(p PairReport) Instability {
	var in Instability
	for k, s := range [2]int{p.A, p.B} {
		xs := r.Sides[s].Values(r.Headline)
		if len(xs) >= 3 {
			if cv := analysis.CV(xs); !math.IsNaN(cv) {
				in.CV[k] = cv
				in.Unstable[k] = cv > analysis.UnstableCV
			}
		}
		if s >= len(r.parts) {
			continue
		}
		for _, pt := range r.parts[s] {
			if n, err := strconv.Atoi(pt.File.Env["cpu.online"]); err == nil && n > 0 && (in.CPUs == 0 || n < in.CPUs) {
				in.CPUs = n
			}
			in.Load = max(in.Load, maxLoad(pt.File, pt.Configs))
		}
	}
	in.Loaded = in.CPUs > 0 && in.Load > float64(in.CPUs)
	return in
}

// maxLoad is the highest load average recorded by a measured repetition
// of configs of f.
func maxLoad(f *results.File, configs []int) float64 {
	in := func(c int) bool {
		for _, x := range configs {
			if x == c {
				return true
			}
		}
		return len(configs) == 0
	}
	m := 0.0
	if f.Reps == nil {
		cols := f.Columns()
		for i := range cols.Len() {
			if !cols.Warmup(i) && in(cols.Config(i)) {
				m = max(m, cols.LoadAvg(i))
			}
		}
		return m
	}
	for _, rep := range f.Reps {
		if !rep.Warmup && in(rep.Config) {
			m = max(m, rep.LoadAvg)
		}
	}
	return m
}
