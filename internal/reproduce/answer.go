package reproduce

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"contend/internal/campaign"
	"contend/internal/comparison"
	"contend/internal/lkml"
	"contend/internal/lkmlblock"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/robotmail"
)

// Alpha is the level of the answer's comparison and verdict.
const Alpha = 0.05

// Answer writes to w the answer to rep from f, the ab file of a --run of
// kind RunAA (this kernel against itself, on machine m) or RunSwitch (the
// block's switch): the robot's layout with the reported row quoted above
// contend's, the verdict, what the run means, and the runs a side the
// reported change takes at the noise f measured. mail is the report's
// file, named in the pointer to the plan's campaign.
func Answer(w io.Writer, f *results.File, rep *robotmail.Report, plan *Plan, m Machine, mail string, kind RunKind) error {
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	r, err := statFirst(plan, func(o comparison.Options) (*comparison.Comparison, error) { return comparison.Build(sides, o) })
	if err != nil {
		return err
	}
	b, err := lkmlblock.Build(sides, r, false)
	if err != nil {
		return err
	}
	if kind == RunAA {
		b.Base.Label, b.New.Label = "A/A: kernel "+m.Kernel, "A/A: kernel "+m.Kernel
	}
	quote(&b, plan, rep)
	if err := lkml.Write(w, b); err != nil {
		return err
	}
	var cm *comparison.MetricRow
	for i, row := range r.Pairs[0].Rows {
		if row.Metric.Name == plan.Metric {
			cm = &r.Pairs[0].Rows[i]
		}
	}
	if cm == nil || cm.Cmp == nil {
		fmt.Fprintf(w, "\nverdict: none: no comparison of %s (identical values?)\n", plan.Metric)
	} else {
		judge := Judge
		if kind == RunAA {
			judge = JudgeAA
		}
		v := judge(plan.Reported.Change/100, cm.Cmp.Estimate, cm.Cmp.AdjustedP, Alpha, cm.Cmp.MDEUp, cm.Cmp.MDEDown)
		fmt.Fprintf(w, "\nverdict: %s: %s\n", v.Word, v.Line)
	}
	if kind == RunSwitch {
		fmt.Fprintf(w, "  the switch (%s: %s against %s) ran here as an A/B, interleaved, on one kernel (%s); n in runs\n",
			plan.Block.CompareKey, plan.Block.Sides[0].ID, plan.Block.Sides[1].ID, m.Kernel)
		return nil
	}
	fmt.Fprintf(w, "  A/A: both sides ran this kernel (%s) and the same test: the run measures the noise here, not the\n", m.Kernel)
	fmt.Fprintf(w, "  commit; a change found between them is a false positive (at most %g of A/As). %s is a kernel change:\n", Alpha, short(rep.Commit))
	fmt.Fprintf(w, "  build its parent and it, then 'contend reproduce %s --run --a-kernel BASE --b-kernel NEW' boots each in VMs\n", mail)
	writeRunsAtNoise(w, f, rep, plan, m)
	return nil
}

// statFirst returns the comparison build makes with the plan's metric
// (the reported stat) as its headline: a Holm family of its own (one
// test: the question the report asks), the boot-level comparison where
// there are boots; the other metrics with data, but the primary (which,
// listed, would stay the headline), in the second family.
func statFirst(plan *Plan, build func(comparison.Options) (*comparison.Comparison, error)) (*comparison.Comparison, error) {
	r0, err := build(comparison.Options{Alpha: Alpha})
	if err != nil {
		return nil, err
	}
	names := []string{plan.Metric}
	for _, m := range r0.Metrics {
		if m.Name != plan.Metric && m.Name != r0.Headline {
			names = append(names, m.Name)
		}
	}
	found := false
	for _, m := range r0.Metrics {
		found = found || m.Name == plan.Metric
	}
	if !found {
		return r0, nil
	}
	return build(comparison.Options{Alpha: Alpha, Metrics: names})
}

// AnswerBoots writes to w the answer to rep from the campaign in dir,
// the plan's campaign of two kernels: its boot-level comparison
// (campaign.Build) with the reported stat as the headline, in the
// robot's layout with the reported row quoted above contend's, whose n
// and test are the boots' (Student's t on the per-boot means), and the
// verdict from that comparison.
func AnswerBoots(w io.Writer, dir string, rep *robotmail.Report, plan *Plan) error {
	r, err := statFirst(plan, func(o comparison.Options) (*comparison.Comparison, error) {
		cr, err := campaign.BuildReport(dir, o)
		if err != nil {
			return nil, err
		}
		return cr.Comparison, nil
	})
	if err != nil {
		return err
	}
	sides := make([]comparison.Side, len(r.Sides))
	for i, s := range r.Sides {
		sides[i] = comparison.Side{Name: s.Name, Parts: r.SideParts(i)}
	}
	b, err := lkmlblock.Build(sides, r, false)
	if err != nil {
		return err
	}
	bs := plan.Block.Sides
	b.Base.Label, b.New.Label = "for "+bs[0].ID+": "+b.Base.Label, "for "+bs[len(bs)-1].ID+": "+b.New.Label
	br, ok := bootRow(r, plan.Metric)
	quote(&b, plan, rep)
	for _, c := range r.Causes {
		if strings.HasPrefix(c, "measured in") {
			b.Notes = append(b.Notes, c)
		}
	}
	if err := lkml.Write(w, b); err != nil {
		return err
	}
	if !ok {
		why := "the sides do not span two boots each"
		if len(r.Boots) > 0 && r.Boots[0].Reason != "" {
			why = r.Boots[0].Reason
		}
		fmt.Fprintf(w, "\nverdict: none: no boot-level comparison of %s (%s)\n", plan.Metric, why)
		return nil
	}
	est, _, _ := br.Change()
	v := Judge(plan.Reported.Change/100, est, br.AdjustedP, Alpha, br.MDEUp, br.MDEDown)
	fmt.Fprintf(w, "\nverdict: %s: %s\n", v.Word, v.Line)
	fmt.Fprintf(w, "  boots as the unit: %s and %s (%s and %s in all), Student's t on the per-boot means; the reported stat is a test of its own\n",
		plural.N(br.Cmp.BootsA, "boot", "boots"), plural.N(br.Cmp.BootsB, "boot", "boots"), plural.N(br.Cmp.RunsA, "run", "runs"), plural.N(br.Cmp.RunsB, "run", "runs"))
	if !math.IsNaN(br.Cmp.Components.Between) {
		fmt.Fprintf(w, "  variance between boots %.3g, within a boot %.3g (of the log values)\n", br.Cmp.Components.Between, br.Cmp.Components.Within)
	}
	return nil
}

// bootRow returns the boot-level comparison of metric in r, false where
// the sides do not span two boots each or it has none.
func bootRow(r *comparison.Comparison, metric string) (comparison.BootRow, bool) {
	if len(r.Boots) == 0 || r.Boots[0].OneBoot() {
		return comparison.BootRow{}, false
	}
	for _, br := range r.Boots[0].Rows {
		if br.Metric == metric && br.Cmp != nil {
			return br, true
		}
	}
	return comparison.BootRow{}, false
}

// quote marks the row of the plan's stat in b to be shown and quotes the
// robot's row above it; a footer note says whose it is.
func quote(b *lkml.Block, plan *Plan, rep *robotmail.Report) {
	stat, _ := lkml.RobotName("wis", plan.Metric)
	for i := range b.Rows {
		if b.Rows[i].Stat == stat {
			b.Rows[i].Keep = true
			if plan.HasRow && plan.Reported.Stat == stat {
				b.Rows[i].Quote = quotedRow(plan.Reported)
			}
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("> the quoted row: the robot's, on %s (%s)", plan.Block.Machine, rep.Machine))
}

// writeRunsAtNoise writes the runs a side the reported change takes at
// the noise of f's successful repetitions (both sides), where there are
// 3 or more.
func writeRunsAtNoise(w io.Writer, f *results.File, rep *robotmail.Report, plan *Plan, m Machine) {
	var noise []float64
	for _, rr := range f.Reps {
		if rr.Status == results.StatusOK && !rr.Warmup {
			if x, ok := rr.Metrics.Map()["per_task_ops"]; ok {
				noise = append(noise, x)
			}
		}
	}
	if len(noise) < 3 {
		return
	}
	p2, err := Make(rep, m, Options{Tests: filepath.Dir(plan.TestFile), Noise: noise})
	if err == nil && p2.Runs > 0 {
		fmt.Fprintf(w, "  at this noise (CV %.1f%% a run) %d runs a side detect the reported %s\n", 100*p2.CV, p2.Runs, Change(plan.Reported.Change, !plan.Reported.AbsoluteChange))
	}
}

// quotedRow is the robot's row as lkml prints it: its means, its ± N%
// (the robot shows N truncated: N+0.5 keeps it), its own %change.
func quotedRow(r robotmail.Row) *lkml.Row {
	sd := func(mean, pc float64) float64 {
		if pc == 0 {
			return 0
		}
		return (pc + 0.5) / 100 * mean
	}
	return &lkml.Row{Stat: r.Stat, Base: lkml.Stats{Mean: r.Base, StdDev: sd(r.Base, r.BaseSD)}, New: lkml.Stats{Mean: r.New, StdDev: sd(r.New, r.NewSD)},
		Percent: r.AbsoluteChange, FixedChange: true, Change: r.Change}
}
