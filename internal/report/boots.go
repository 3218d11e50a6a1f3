package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/plural"
	"contend/internal/textfmt"
	"contend/internal/units"
)

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

// writeBoots renders the boot-level section of the text report for the
// pairs whose sides span two or more boots each (a side of one boot is
// said under the headline, writeReplication).
func writeBoots(r *comparison.Comparison, w io.Writer) {
	for _, b := range r.Boots {
		la, lb := r.Sides[b.A].Label, r.Sides[b.B].Label
		if b.OneBoot() {
			continue // said under the headline (writeReplication)
		}
		fmt.Fprintln(w)
		if b.Cmp == nil {
			textfmt.WriteWrapped(w, fmt.Sprintf("Boot level (%s in %s, %s in %s): not analysed: %s", la, plural.N(len(b.BootsA), "boot", "boots"), lb, plural.N(len(b.BootsB), "boot", "boots"), b.Reason), "  ")
			continue
		}
		for _, l := range bootLines(&b, la, lb) {
			textfmt.WriteWrapped(w, l, "    ")
		}
	}
}

// bootLines renders a multi-boot BootLevel b as text lines: the verdict with the
// boot as the unit, the variance components and the recommendation. la and
// lb name the sides.
func bootLines(b *comparison.BootLevel, la, lb string) []string {
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
		fmt.Sprintf("  %s/%s %.4g, %s %s, %s: %s", lb, la, c.Ratio, units.Percent(c.Ratio-1), PercentRange(c.Lo-1, c.Hi-1), p, verdict),
		fmt.Sprintf("  variance components: within a boot SD %s, between boots SD %s, between/within variance ratio %s",
			sdPct(v.Within), sdPct(v.Between), rs),
		fmt.Sprintf("  %s (%s, a run %s; the narrowest expected interval, t with 2b-2 df on between/b + within/(b*r) per side; Kalibera & Jones r* = %d), about %s, expected interval %s",
			design, cost, seconds(b.CostRun), pl.RStar, seconds(pl.Seconds), PercentRange(math.Exp(-pl.HalfWidth)-1, math.Exp(pl.HalfWidth)-1)),
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
	Ratio            Num    `json:"ratio,omitempty"`
	RatioLo          Num    `json:"ratio_lo,omitempty"`
	RatioHi          Num    `json:"ratio_hi,omitempty"`
	P                Num    `json:"p,omitempty"`
	DF               Num    `json:"df,omitempty"`
	VarWithin        Num    `json:"var_within,omitempty"`
	VarBetween       Num    `json:"var_between,omitempty"`
	NextBootsPerSide int    `json:"next_boots_per_side,omitempty"`
	NextRunsPerBoot  int    `json:"next_runs_per_boot,omitempty"`
	NextSeconds      Num    `json:"next_s,omitempty"`   // the plan's expected time
	Budget           Num    `json:"budget_s,omitempty"` // this campaign's time, which the plan fits unless next_at_least
	NextAtLeast      bool   `json:"next_at_least,omitempty"`
	CostBoot         Num    `json:"cost_boot_s,omitempty"`
	CostBootMeasured bool   `json:"cost_boot_measured,omitempty"`
	CostBootSource   string `json:"cost_boot_source,omitempty"`
	CostRun          Num    `json:"cost_run_s,omitempty"`
	Reason           string `json:"reason,omitempty"`
}

func bootsJSON(r *comparison.Comparison) []jsonBoots {
	var out []jsonBoots
	for _, b := range r.Boots {
		j := jsonBoots{Pair: r.Sides[b.A].Label + "-" + r.Sides[b.B].Label, Metric: b.Metric,
			BootsA: len(b.BootsA), BootsB: len(b.BootsB), OneBoot: b.OneBoot(), Reason: b.Reason}
		if c := b.Cmp; c != nil {
			j.Ratio, j.RatioLo, j.RatioHi, j.P, j.DF = Num(c.Ratio), Num(c.Lo), Num(c.Hi), Num(c.P), Num(c.DF)
			j.VarWithin, j.VarBetween = Num(c.Components.Within), Num(c.Components.Between)
			j.NextBootsPerSide, j.NextRunsPerBoot = b.Plan.BootsPerSide, b.Plan.RunsPerBoot
			j.NextSeconds, j.Budget, j.NextAtLeast = Num(b.Plan.Seconds), Num(b.Plan.Budget), b.Plan.AtLeast
			j.CostBoot, j.CostBootMeasured, j.CostBootSource, j.CostRun = Num(b.CostBoot), b.CostBootMeasured, b.CostBootSource, Num(b.CostRun)
		}
		out = append(out, j)
	}
	return out
}
