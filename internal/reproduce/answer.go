package reproduce

import (
	"fmt"
	"io"
	"path/filepath"

	"contend/internal/comparison"
	"contend/internal/lkml"
	"contend/internal/lkmlblock"
	"contend/internal/results"
	"contend/internal/robotmail"
)

// Answer writes to w the answer to rep from f, the A/A run of plan on
// this machine m (sides a and b of an ab file): the robot's layout with
// the reported row quoted above contend's, the verdict, and the runs a
// side the reported change takes at the noise f measured. mail is the
// report's file, named in the pointer to the plan's campaign.
func Answer(w io.Writer, f *results.File, rep *robotmail.Report, plan *Plan, m Machine, mail string) error {
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	r, err := comparison.Build(sides, comparison.Options{Alpha: 0.05})
	if err != nil {
		return err
	}
	b, err := lkmlblock.Build(sides, r, false)
	if err != nil {
		return err
	}
	stat, _ := lkml.RobotName("wis", plan.Metric)
	b.Base.Label, b.New.Label = "A/A: kernel "+m.Kernel, "A/A: kernel "+m.Kernel
	var cmpRow *comparison.MetricRow
	for i, row := range r.Pairs[0].Rows {
		if row.Metric.Name == plan.Metric {
			cmpRow = &r.Pairs[0].Rows[i]
		}
	}
	for i := range b.Rows {
		if b.Rows[i].Stat == stat {
			b.Rows[i].Keep = true
			if plan.HasRow && plan.Reported.Stat == stat {
				b.Rows[i].Quote = quotedRow(plan.Reported)
			}
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("> the quoted row: the robot's, on %s (%s)", plan.Block.Machine, rep.Machine))
	if err := lkml.Write(w, b); err != nil {
		return err
	}
	if cmpRow == nil || cmpRow.Cmp == nil {
		fmt.Fprintf(w, "\nverdict: none: no comparison of %s (identical values?)\n", plan.Metric)
		return nil
	}
	cm := cmpRow.Cmp
	v := Judge(plan.Reported.Change/100, cm.Estimate, cm.AdjustedP, 0.05, cm.MDEUp, cm.MDEDown)
	fmt.Fprintf(w, "\nverdict: %s: %s\n", v.Word, v.Line)
	fmt.Fprintf(w, "  A/A: both sides ran this kernel (%s); %s is a kernel change, which contend does not build here:\n  the plan's campaign (contend reproduce %s) runs the two kernels\n", m.Kernel, short10(rep.Commit), mail)
	writeRunsAtNoise(w, f, rep, plan, m)
	return nil
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
	p2, err := Make(rep, m, Options{Tests: plan.TestFile[:len(plan.TestFile)-len(filepath.Base(plan.TestFile))], Noise: noise})
	if err == nil && p2.Runs > 0 {
		fmt.Fprintf(w, "  at this noise (CV %.1f%% a run) %d runs a side detect the reported %+.1f%%\n", 100*p2.CV, p2.Runs, plan.Reported.Change)
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

// short10 is s cut to its first 10 bytes (a commit's short id).
func short10(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}
