package comparison

import (
	"math"
	"sort"
	"time"

	"contend/analysis"
	"contend/internal/results"
)

// AssumedBootCost is the cost of a boot used for the recommendation of
// runs per boot when none was measured (a campaign's ledger measures it)
// nor given.
const AssumedBootCost = 2 * time.Minute

// A Boot is the runs of one side in one boot.
type Boot struct {
	ID     string
	Values []float64
	// Seconds per run: the span of the boot's repetition starts divided
	// by their count minus one (NaN with a single run).
	RunCost float64
	// Kernel is the kernel release its file recorded, Part the file of
	// its first run; Load the median 1-minute load average at the start
	// of its runs (NaN when none recorded one); First the start of its
	// first run.
	Kernel string
	Part   string
	Load   float64
	First  time.Time
}

// BootInfo is what a campaign's ledger knows of a boot, keyed by boot id
// in Options.BootInfo: its place in the plan and its settling.
type BootInfo struct {
	Slot int // boot of the plan, from 0
	// Settle is how long the step waited for the machine to settle,
	// SettleLoad the 1-minute load average it saw last; HasSettle false
	// when the ledger has no settle record.
	Settle     time.Duration
	SettleLoad float64
	HasSettle  bool
}

// BootLevel is the boot-level part of the comparison of one pair of
// sides on the headline metric: filled when every successful repetition
// of both sides records its boot (results.Rep.BootID).
type BootLevel struct {
	A, B   int // sides
	Metric string
	Alpha  float64
	// BootsA and BootsB are the boots of each side in the order their
	// first repetition ran.
	BootsA, BootsB []Boot
	// Cmp is the boot-level comparison, nil when a side spans one boot
	// or the values are not all positive (Reason says why).
	Cmp    *analysis.BootComparison
	Reason string
	// Rows holds the boot-level comparison of every metric of the pair,
	// in the order of its PairReport's rows (bootunit.go), when both
	// sides span two or more boots.
	Rows []BootRow
	// Plan recommends the next campaign from the components and the
	// costs; CostBoot and CostRun are in seconds, CostBootMeasured true
	// when CostBoot came from a campaign's ledger; CostBootSource is
	// "measured", "given" (--boot-cost) or "assumed" (AssumedBootCost).
	Plan             analysis.BootPlan
	CostBoot         float64
	CostBootMeasured bool
	CostBootSource   string
	CostRun          float64
}

// OneBoot reports whether a side spans a single boot.
func (b *BootLevel) OneBoot() bool { return len(b.BootsA) < 2 || len(b.BootsB) < 2 }

// SideBoots groups the successful measured repetitions of side s by boot;
// ok is false when one of them has no boot id.
func SideBoots(parts []Part, metric string) (boots []Boot, ok bool) {
	idx := map[string]int{}
	starts := map[string][]time.Time{}
	loads := map[string][]float64{}
	for _, p := range parts {
		sel := map[int]bool{}
		for _, c := range p.Configs {
			sel[c] = true
		}
		cols := p.File.Columns()
		vals, has := cols.Metric(metric)
		for r := range cols.Len() {
			if cols.Warmup(r) || !sel[cols.Config(r)] || cols.Status(r) != results.StatusOK || !has[r] {
				continue
			}
			v, id := vals[r], cols.BootID(r)
			if id == "" {
				return nil, false
			}
			i, seen := idx[id]
			if !seen {
				i = len(boots)
				idx[id] = i
				boots = append(boots, Boot{ID: id, Kernel: PartEnv(p)["kernel.release"], Part: p.Name})
			}
			boots[i].Values = append(boots[i].Values, v)
			starts[id] = append(starts[id], cols.Start(r))
			if l := cols.LoadAvg(r); l > 0 {
				loads[id] = append(loads[id], l)
			}
		}
	}
	for i := range boots {
		s := starts[boots[i].ID]
		sort.Slice(s, func(a, b int) bool { return s[a].Before(s[b]) })
		boots[i].First = s[0]
		boots[i].Load = math.NaN()
		if l := loads[boots[i].ID]; len(l) > 0 {
			boots[i].Load = analysis.Median(l)
		}
		boots[i].RunCost = math.NaN()
		if len(s) > 1 {
			boots[i].RunCost = s[len(s)-1].Sub(s[0]).Seconds() / float64(len(s)-1)
		}
	}
	return boots, len(boots) > 0
}

// buildBootLevel fills r.Boots: one BootLevel per pair whose sides both
// record their boots.
func (r *Comparison) buildBootLevel() {
	for _, p := range r.Pairs {
		ba, okA := SideBoots(r.parts[p.A], r.Headline)
		bb, okB := SideBoots(r.parts[p.B], r.Headline)
		if !okA || !okB {
			continue
		}
		bl := BootLevel{A: p.A, B: p.B, Metric: r.Headline, Alpha: r.Options.Alpha, BootsA: ba, BootsB: bb}
		if !bl.OneBoot() {
			var ga, gb [][]float64
			for _, b := range ba {
				ga = append(ga, b.Values)
			}
			for _, b := range bb {
				gb = append(gb, b.Values)
			}
			c, err := analysis.CompareBootMeans(ga, gb, Confidence)
			if err != nil {
				bl.Reason = err.Error()
			} else {
				bl.Cmp = &c
				bl.plan(r.Options.BootCost, r.Options.BootCostMeasured)
			}
			if pi := r.pairIndex(p.A, p.B); pi >= 0 {
				bl.Rows = r.bootRows(r.Pairs[pi])
			}
		}
		r.Boots = append(r.Boots, bl)
	}
	r.adjustBootRows()
}

// plan fills the costs and the recommendation: the same time as this
// comparison's boots and runs took (at the measured costs).
func (b *BootLevel) plan(bootCost time.Duration, measured bool) {
	var costs []float64
	runs := 0
	for _, s := range [][]Boot{b.BootsA, b.BootsB} {
		for _, x := range s {
			if !math.IsNaN(x.RunCost) {
				costs = append(costs, x.RunCost)
			}
			runs += len(x.Values)
		}
	}
	b.CostRun = 1
	if len(costs) > 0 {
		sort.Float64s(costs)
		b.CostRun = math.Max(costs[len(costs)/2], 1e-3)
	}
	b.CostBoot, b.CostBootMeasured, b.CostBootSource = AssumedBootCost.Seconds(), false, "assumed"
	if bootCost > 0 {
		b.CostBoot, b.CostBootSource = bootCost.Seconds(), "given"
		if measured {
			b.CostBootMeasured, b.CostBootSource = true, "measured"
		}
	}
	boots := len(b.BootsA) + len(b.BootsB)
	budget := float64(boots)*b.CostBoot + float64(runs)*b.CostRun
	curBoots := int(math.Round(float64(boots) / 2))
	curRuns := int(math.Round(float64(runs) / float64(boots)))
	b.Plan = analysis.PlanBoots(b.CostBoot, b.CostRun, b.Cmp.Components, budget, Confidence, curBoots, curRuns)
}
