package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/analysis"
	"contend/internal/external"
	"contend/internal/harness"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/value"
	"contend/internal/workload"
)

func init() { addCommand(verifyCommand) }

func verifyCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "verify",
		Usage:     "check a reproduction against its original program, alternating the two",
		ArgsUsage: "WORKLOAD [parameters] -- PROGRAM [ARGS]",
		Description: `Runs the built-in WORKLOAD and the original PROGRAM alternately, -n
repetitions each (round i runs contend then the original when i is even,
the original then contend when i is odd), reads the original's output with
the workload's preset, and records both in one result file with two
configurations, "contend" and "original".

Then, for the primary metric (and the process metrics both have): the
medians, their ratio contend/original with a 95% confidence interval
(Hodges-Lehmann on log values), and the Mann-Whitney p-value. The verdict
is an equivalence test against --margin (default 5%): two one-sided tests
(TOST) at alpha = 0.05, done in its interval form: the two are declared
equivalent when the 90% interval of the ratio lies inside
[1 - margin, 1 + margin]. A small p-value alone does not make them
different: a 1% difference can be significant and still inside the margin.

Give the original the same sizes as the parameters: contend does not pass
them to PROGRAM.

Example:
   contend verify faultme --threads 40 --mem 1GiB -n 10 -- ./faultme40`,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("verify: which workload? one of: %s", joinNames())
			}
			return usagef("verify: no workload %q; one of: %s", c.Args().First(), joinNames())
		},
	}
	for _, w := range workload.All() {
		cmd.Subcommands = append(cmd.Subcommands, verifyWorkloadCommand(w))
	}
	return cmd
}

func verifyWorkloadCommand(w *workload.Workload) *cli.Command {
	flags := append(paramFlags(w), metricFlags()...)
	flags = append(flags, &cli.StringFlag{Name: "margin", Value: "5%", Usage: "equivalence margin of the ratio, such as 5% or 0.1"})
	for _, f := range repFlags() {
		if f.Names()[0] != "format" {
			flags = append(flags, f)
		}
	}
	return &cli.Command{
		Name:      w.Name,
		Usage:     "verify " + w.Name + " against its original",
		ArgsUsage: "[flags] -- PROGRAM [ARGS]",
		Flags:     flags,
		Action:    func(c *cli.Context) error { return runVerify(c, w) },
	}
}

// parseMargin reads --margin, a percentage or fraction (value.Fraction)
// above 0 and below 1.
func parseMargin(s string) (float64, error) {
	x, err := value.Fraction(s)
	if err != nil || !(x > 0 && x < 1) {
		return 0, usagef("--margin: %q is not accepted; accepted: a fraction in (0, 1) or a percentage such as 5%%", s)
	}
	return x, nil
}

func runVerify(c *cli.Context, w *workload.Workload) error {
	given := map[string]string{}
	for _, p := range w.Params {
		if c.IsSet(p.Name) {
			if p.Kind == workload.Bool {
				given[p.Name] = fmt.Sprint(c.Bool(p.Name))
			} else {
				given[p.Name] = c.String(p.Name)
			}
		}
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		return usagef("verify %s: which original program? usage: contend verify %s [parameters] -- PROGRAM [ARGS]", w.Name, w.Name)
	}
	if err := checkProgram(args[0]); err != nil {
		return err
	}
	margin, err := parseMargin(c.String("margin"))
	if err != nil {
		return err
	}
	specs, _, _, err := metricSpecs(c)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		if w.Preset == "" {
			return usagef("verify %s: the workload names no preset for its original's output; give --preset or --metric", w.Name)
		}
		p, err := external.LookupPreset(w.Preset)
		if err != nil {
			return err
		}
		specs = p.Metrics
	}
	metrics := map[string]results.Metric{}
	for _, m := range append(append([]workload.Metric{}, w.Metrics...), workload.ProcessMetrics...) {
		metrics[m.Name] = m.Result()
	}
	for _, s := range specs {
		if isProcessMetricName(s.Name) {
			return usagef("--metric %s: %s is measured by contend for every repetition (wait4); name the extracted metric differently", s.Name, s.Name)
		}
		if m, ok := metrics[s.Name]; ok && m.Unit != s.BaseUnit() {
			return usagef("metric %s: the original's is in %s, %s's in %s", s.Name, s.BaseUnit(), w.Name, m.Unit)
		}
	}
	if _, ok := findSpec(specs, w.Primary); !ok && !isProcessMetricName(w.Primary) {
		return usagef("verify %s: the original's metrics (%s) do not include %s's primary metric %s", w.Name, specNames(specs), w.Name, w.Primary)
	}
	opt, err := parseRepOptions(c, "")
	if err != nil {
		return err
	}
	v, warns, err := resolve(w, given, opt.force)
	if err != nil {
		return err
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if !opt.quiet {
		for _, x := range warns {
			fmt.Fprintf(stderr, "warning: %s\n", x)
		}
	}
	timeout := opt.timeout
	if timeout == 0 && w.Timeout != nil {
		timeout = w.Timeout(v)
	}
	f := newFile("verify", w, []workload.Values{v}, []string{"contend"}, opt.label)
	f.Warnings = warns
	for _, s := range specs {
		if _, ok := f.Metric(s.Name); !ok {
			f.Metrics = append(f.Metrics, s.Metric())
		}
	}
	f.Configs = append(f.Configs, programConfig("original", args, false))
	ctx, closeEvidence := withEvidence(c, opt, f)
	defer closeEvidence()
	wr, err := createOut(opt.out, "verify-"+w.Name, f)
	if err != nil {
		return err
	}
	// ctx (from c.Context) is cancelled by SIGINT and SIGTERM (see Main).
	progress := newProgress(stderr, opt.quiet, 2*(opt.n+opt.warmup), w.Primary, unitOf(w, w.Primary))
	prog := external.Program{Argv: args, Metrics: specs, Timeout: timeout}
	var runErr error
	harness.BecomeSubreaper()
	for i, slot := range repeatSlots(opt.n, opt.warmup) {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, cfg := range order {
			if ctx.Err() != nil {
				runErr = harness.ErrInterrupted
				break
			}
			var rep results.Rep
			if cfg == 0 {
				rep = harness.RunRep(ctx, w, v, timeout).Rep
			} else {
				rep = external.RunRep(ctx, prog)
			}
			rep.Index, rep.Config, rep.Warmup, rep.Round = len(wr.File.Reps), cfg, slot.warmup, slot.round
			if err := wr.Add(rep); err != nil {
				runErr = err
				break
			}
			progress.step(rep)
			progress.failed(rep, opt.quiet, fmt.Sprintf("repetition %d (%s) %s: %s", rep.Index+1, f.Configs[cfg].Name, rep.Status, rep.Error))
			if rep.Status == results.StatusInterrupted {
				runErr = harness.ErrInterrupted
				break
			}
		}
		if runErr != nil {
			break
		}
	}
	progress.done()
	if ferr := wr.Finish(time.Now(), runErr == nil); ferr != nil && runErr == nil {
		runErr = ferr
	}
	verifyReport(stdout, wr.File, margin)
	return endRun(stderr, wr, opt.quiet, runErr)
}

func specNames(specs []external.Spec) string {
	var ns []string
	for _, s := range specs {
		ns = append(ns, s.Name)
	}
	return strings.Join(ns, ", ")
}

// verifyReport prints the comparison of config 0 (contend) against config
// 1 (original) of f, and the equivalence verdict on the primary metric.
func verifyReport(w io.Writer, f *results.File, margin float64) {
	fmt.Fprintf(w, "verify %s\n", f.Workload)
	for i, name := range []string{"contend", "original"} {
		counts := f.Counts(i)
		fmt.Fprintf(w, "  %-9s %s\n", name+":", paramsText(f.Configs[i]))
		fmt.Fprintf(w, "  %-9s %d ok, %d failed, %d timeout\n", "", counts[results.StatusOK], counts[results.StatusFailed], counts[results.StatusTimeout])
	}
	fmt.Fprintln(w)
	t := &report.Table{}
	t.Row("metric", "contend", "original", "ratio", "95% CI", "p")
	// The primary metric, then every metric both sides measured: the
	// original's own output (through the preset) and the process metrics.
	names := []string{f.Primary}
	for _, m := range f.Metrics {
		if m.Name != f.Primary {
			names = append(names, m.Name)
		}
	}
	var approx []string // metrics whose interval is not a ratio's (values of 0)
	for _, n := range names {
		a, b := f.Values(1, n), f.Values(0, n)
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		m, _ := f.Metric(n)
		ma, mb := analysis.Median(a), analysis.Median(b)
		sc := report.ScaleFor(m.Unit, ma)
		ratio, ci, p := "-", "-", "-"
		if rc, err := analysis.RelativeChange(a, b, report.Confidence); err == nil && !math.IsNaN(rc.Estimate) {
			ratio = fmt.Sprintf("%.3f", 1+rc.Estimate)
			if rc.HasCI {
				ci = fmt.Sprintf("[%.3f, %.3f]", 1+rc.Lo, 1+rc.Hi)
				if rc.Method == analysis.RelShiftOverMedian {
					ci += "*"
					approx = append(approx, n)
				}
			}
		}
		if mw, err := analysis.MannWhitney(a, b, analysis.TwoSided); err == nil {
			p = fmt.Sprintf("%.3g", mw.P)
		}
		t.Row(n, sc.Format(mb), sc.Format(ma), ratio, ci, p)
	}
	t.Write(w)
	if len(approx) > 0 {
		writeWrappedText(w, "*: "+strings.Join(approx, ", ")+" had values of 0 or below, so the interval is of the shift divided by the original's median, not of a ratio: it can reach below 0 and is only a rough guide (a bound below 0 means: unknown)")
	}
	fmt.Fprintln(w)
	v := equivalence(f.Values(1, f.Primary), f.Values(0, f.Primary), margin)
	fmt.Fprintf(w, "verdict on %s, margin ±%s:\n  %s\n", f.Primary, trimPct(margin), wrap(v, 76, "  "))
	fmt.Fprintln(w, "ratio: contend / original, Hodges-Lehmann estimate on logs and its 95% CI;")
	fmt.Fprintln(w, "verdict: two one-sided tests at alpha 0.05 = the 90% CI inside 1 ± margin.")
	fmt.Fprintln(w, "maxrss of a program started by contend includes contend's own RSS at the")
	fmt.Fprintln(w, "fork (Linux keeps the high-water mark across exec).")
}

func paramsText(c results.Config) string {
	var ps []string
	for _, p := range c.Params {
		d := p.Shown()
		ps = append(ps, p.Name+"="+d)
	}
	return strings.Join(ps, " ")
}

func trimPct(x float64) string { return strconv.FormatFloat(x*100, 'g', 4, 64) + "%" }

// equivalence decides whether b (contend) is equivalent to a (original)
// within ±margin, by TOST at alpha 0.05 in its interval form.
func equivalence(a, b []float64, margin float64) string {
	if len(a) == 0 || len(b) == 0 {
		return "no verdict: a side has no successful repetition"
	}
	rc, err := analysis.RelativeChange(a, b, 0.90)
	if err != nil {
		return "no verdict: " + err.Error()
	}
	if !rc.HasCI {
		return fmt.Sprintf("too few runs for a 90%% interval (have %d and %d); raise -n", len(a), len(b))
	}
	lo, hi := 1+rc.Lo, 1+rc.Hi
	in := fmt.Sprintf("90%% CI of the ratio [%.3f, %.3f]", lo, hi)
	switch {
	case rc.Lo >= -margin && rc.Hi <= margin:
		return fmt.Sprintf("EQUIVALENT: the %s is inside [%.3f, %.3f]", in, 1-margin, 1+margin)
	case rc.Lo > margin || rc.Hi < -margin:
		return fmt.Sprintf("DIFFERENT: the %s is wholly outside [%.3f, %.3f]", in, 1-margin, 1+margin)
	}
	return fmt.Sprintf("NOT SHOWN EQUIVALENT: the %s crosses the margin [%.3f, %.3f]; more runs or a wider margin may settle it", in, 1-margin, 1+margin)
}

// writeWrappedText writes text wrapped at 78 columns, continuation lines
// indented by two spaces.
func writeWrappedText(w io.Writer, text string) {
	fmt.Fprintln(w, wrap(text, 78, "  "))
}
