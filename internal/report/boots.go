package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"contend/analysis"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/units"
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
// in CompareOptions.BootInfo: its place in the plan and its settling.
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

// sideBoots groups the successful measured repetitions of side s by boot;
// ok is false when one of them has no boot id.
func sideBoots(parts []Part, metric string) (boots []Boot, ok bool) {
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
				boots = append(boots, Boot{ID: id, Kernel: partEnv(p)["kernel.release"], Part: p.Name})
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
func (r *CompareReport) buildBootLevel() {
	for _, p := range r.Pairs {
		ba, okA := sideBoots(r.sideParts[p.A], r.Headline)
		bb, okB := sideBoots(r.sideParts[p.B], r.Headline)
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

// seconds renders a cost in seconds as a duration: "1m32s", "45ms".
func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// pctAbout renders a fraction as a rough percentage: "1.3%", "210%".
func pctAbout(x float64) string {
	if x >= 0.1 {
		return fmt.Sprintf("%.0f%%", 100*x)
	}
	return fmt.Sprintf("%.2g%%", 100*x)
}

// sdPct renders the standard deviation of log values for variance v as a
// relative spread: "1.2%".
func sdPct(v float64) string {
	return pctAbout(math.Sqrt(v))
}

func pluralBoots(n int) string {
	if n == 1 {
		return "one boot"
	}
	return fmt.Sprintf("%d boots", n)
}

// writeBoots renders the boot-level lines of the text report: one line
// when a side spans one boot, else the boot-level section.
func (r *CompareReport) writeBoots(w io.Writer) {
	for _, b := range r.Boots {
		la, lb := r.Sides[b.A].Label, r.Sides[b.B].Label
		if b.OneBoot() {
			writeWrapped(w, fmt.Sprintf("Boots: %s ran in %s, %s in %s: boot-to-boot variance is not measured and the p-value covers this boot only.",
				la, pluralBoots(len(b.BootsA)), lb, pluralBoots(len(b.BootsB))), "  ")
			continue
		}
		fmt.Fprintln(w)
		if b.Cmp == nil {
			writeWrapped(w, fmt.Sprintf("Boot level (%s in %s, %s in %s): not analysed: %s", la, pluralBoots(len(b.BootsA)), lb, pluralBoots(len(b.BootsB)), b.Reason), "  ")
			continue
		}
		for _, l := range b.Lines(la, lb) {
			writeWrapped(w, l, "    ")
		}
	}
}

// Lines renders a multi-boot BootLevel as text lines: the verdict with the
// boot as the unit, the variance components and the recommendation. la and
// lb name the sides.
func (b *BootLevel) Lines(la, lb string) []string {
	c := b.Cmp
	verdict := "no significant change"
	if c.P <= b.Alpha {
		verdict = "significant: " + lb + " higher"
		if c.Ratio < 1 {
			verdict = "significant: " + lb + " lower"
		}
	}
	p := "p=" + FormatP(c.P)
	if strings.HasPrefix(FormatP(c.P), "<") {
		p = "p" + FormatP(c.P)
	}
	v := c.Components
	ratio := v.Ratio()
	rs := fmt.Sprintf("%.2g", ratio)
	if math.IsNaN(ratio) {
		rs = "-"
	}
	cost := fmt.Sprintf("a boot %s (%s)", seconds(b.CostBoot), b.CostBootSource)
	if b.CostBootSource == "assumed" {
		cost = fmt.Sprintf("a boot %s (assumed; --boot-cost)", seconds(b.CostBoot))
	}
	pl := b.Plan
	design := fmt.Sprintf("next campaign in the same time (%s): %d boots x %s per side", seconds(pl.Budget), pl.BootsPerSide, plural.N(pl.RunsPerBoot, "run", "runs"))
	switch {
	case pl.Current:
		design = fmt.Sprintf("next campaign: this design, %d boots x %s per side, is as narrow as any in its time", pl.BootsPerSide, plural.N(pl.RunsPerBoot, "run", "runs"))
	case pl.AtLeast:
		design = fmt.Sprintf("next campaign: %d boots x %s per side, %s more than this campaign's %s (at least %d boots per side)", pl.BootsPerSide, plural.N(pl.RunsPerBoot, "run", "runs"),
			seconds(pl.Seconds-pl.Budget), seconds(pl.Budget), analysis.MinBootsPerSide)
	}
	return []string{
		fmt.Sprintf("Boot level (the boot as the unit: %d+%d boots, %d+%d runs; Student's t on per-boot means of log %s):",
			c.BootsA, c.BootsB, c.RunsA, c.RunsB, b.Metric),
		fmt.Sprintf("  %s/%s %.4g, %s %s, %s: %s", lb, la, c.Ratio, units.Percent(c.Ratio-1), pctRange(c.Lo-1, c.Hi-1), p, verdict),
		fmt.Sprintf("  variance components: within a boot SD %s, between boots SD %s, between/within variance ratio %s",
			sdPct(v.Within), sdPct(v.Between), rs),
		fmt.Sprintf("  %s (%s, a run %s; the narrowest expected interval, t with 2b-2 df on between/b + within/(b*r) per side; Kalibera & Jones r* = %d), about %s, expected interval %s",
			design, cost, seconds(b.CostRun), pl.RStar, seconds(pl.Seconds), pctRange(math.Exp(-pl.HalfWidth)-1, math.Exp(pl.HalfWidth)-1)),
	}
}

// jsonBoots is the boot level of one pair in the JSON format: numbers as
// fractions and seconds; variances of log values.
type jsonBoots struct {
	Pair             string `json:"pair"` // "A-B"
	Metric           string `json:"metric"`
	BootsA           int    `json:"boots_a"`
	BootsB           int    `json:"boots_b"`
	OneBoot          bool   `json:"one_boot"`
	Ratio            num    `json:"ratio,omitempty"`
	RatioLo          num    `json:"ratio_lo,omitempty"`
	RatioHi          num    `json:"ratio_hi,omitempty"`
	P                num    `json:"p,omitempty"`
	DF               num    `json:"df,omitempty"`
	VarWithin        num    `json:"var_within,omitempty"`
	VarBetween       num    `json:"var_between,omitempty"`
	NextBootsPerSide int    `json:"next_boots_per_side,omitempty"`
	NextRunsPerBoot  int    `json:"next_runs_per_boot,omitempty"`
	NextSeconds      num    `json:"next_s,omitempty"`   // the plan's expected time
	Budget           num    `json:"budget_s,omitempty"` // this campaign's time, which the plan fits unless next_at_least
	NextAtLeast      bool   `json:"next_at_least,omitempty"`
	CostBoot         num    `json:"cost_boot_s,omitempty"`
	CostBootMeasured bool   `json:"cost_boot_measured,omitempty"`
	CostBootSource   string `json:"cost_boot_source,omitempty"`
	CostRun          num    `json:"cost_run_s,omitempty"`
	Reason           string `json:"reason,omitempty"`
}

func (r *CompareReport) bootsJSON() []jsonBoots {
	var out []jsonBoots
	for _, b := range r.Boots {
		j := jsonBoots{Pair: r.Sides[b.A].Label + "-" + r.Sides[b.B].Label, Metric: b.Metric,
			BootsA: len(b.BootsA), BootsB: len(b.BootsB), OneBoot: b.OneBoot(), Reason: b.Reason}
		if c := b.Cmp; c != nil {
			j.Ratio, j.RatioLo, j.RatioHi, j.P, j.DF = num(c.Ratio), num(c.Lo), num(c.Hi), num(c.P), num(c.DF)
			j.VarWithin, j.VarBetween = num(c.Components.Within), num(c.Components.Between)
			j.NextBootsPerSide, j.NextRunsPerBoot = b.Plan.BootsPerSide, b.Plan.RunsPerBoot
			j.NextSeconds, j.Budget, j.NextAtLeast = num(b.Plan.Seconds), num(b.Plan.Budget), b.Plan.AtLeast
			j.CostBoot, j.CostBootMeasured, j.CostBootSource, j.CostRun = num(b.CostBoot), b.CostBootMeasured, b.CostBootSource, num(b.CostRun)
		}
		out = append(out, j)
	}
	return out
}
