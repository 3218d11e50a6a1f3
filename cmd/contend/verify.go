package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/ab"
	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/summary"
	"contend/internal/value"
	"contend/internal/workload"
)

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

Then, for the primary metric (and the process metrics and evidence both
have): the medians, their ratio contend/original with a 95% confidence
interval (Hodges-Lehmann on log values), and the Mann-Whitney p-value;
evidence metrics that are 0 in every repetition are counted, not listed.
The verdict is an equivalence test against --margin (default 5%): two
one-sided tests (TOST) at alpha = 0.05, done in its interval form: the two
are declared equivalent when the 90% interval of the ratio lies inside
[1 - margin, 1 + margin]. A small p-value alone does not make them
different: a 1% difference can be significant and still inside the margin.

-n is at least 3 (fewer only with --append): with 2 runs a side no 90%
interval of the ratio exists.

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
	flags := append(paramFlags(w), metricFlags(true)...)
	flags = append(flags, newFlag("margin", &value.Percent{F: 0.05}, "equivalence margin of the ratio, such as 5% or 0.1"))
	flags = append(flags, repFlags(nil)...)
	return &cli.Command{
		Name:      w.Name,
		Usage:     "verify " + w.Name + " against its original",
		ArgsUsage: "[flags] -- PROGRAM [ARGS]",
		Flags:     flags,
		Action:    func(c *cli.Context) error { return runVerify(c, w) },
	}
}

func runVerify(c *cli.Context, w *workload.Workload) error {
	given := flagTexts(c, w)
	args := c.Args().Slice()
	if len(args) == 0 {
		return usagef("verify %s: which original program? usage: contend verify %s [parameters] -- PROGRAM [ARGS]", w.Name, w.Name)
	}
	if err := checkProgram(args[0]); err != nil {
		return err
	}
	margin := c.Value("margin").(float64)
	specs, err := verifySpecs(c, w)
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	if opt.n < VerifyMinRuns && opt.mode != results.ModeAppend {
		return usagef("--runs: %d is too few for verify: the 90%% interval of the ratio that decides needs at least %d repetitions of each side; accepted: an integer from %d to %d (fewer only with --append)", opt.n, VerifyMinRuns, VerifyMinRuns, MaxRuns)
	}
	v, warns, err := resolve(w, given, opt.force)
	if err != nil {
		return err
	}
	f := run.NewFile("verify", w, []workload.Values{v}, []string{"contend"}, opt.label)
	f.Warnings = warns
	for _, s := range specs {
		if _, ok := f.Metric(s.Name); !ok {
			f.Metrics = append(f.Metrics, s.Metric())
		}
	}
	f.Configs = append(f.Configs, run.ProgramConfig("original", args, false))
	original := external.Program{Argv: args, Metrics: specs, Timeout: run.Timeout(w, v, opt.timeout)}
	// contend and the original alternate, each pair in the other order
	// than the pair before (AB BA AB ...).
	plan, _ := ab.Schedule(ab.OrderABBA, 0, nil, w.Primary, opt.warmup, opt.n)
	job := run.Job{
		File: f, Name: "verify-" + w.Name, Threads: concurrency(w, v), Oversubscribe: w.OversubscribeWarn,
		Plan:   plan,
		Runner: run.ByConfig(run.Workload(w, []workload.Values{v}, opt.timeout), run.Programs(external.Program{}, original)),
		Report: func(o run.Outcome) error {
			summary.WriteVerify(c.App.Writer, o.Out.File, margin)
			return endRun(c.App.ErrWriter, o, opt.quiet)
		},
	}
	return doJob(c, opt, job, run.TerminalOptions{Total: 2 * (opt.n + opt.warmup), Metric: w.Primary, Unit: unitOf(w, w.Primary),
		Label: func(rep results.Rep) string { return f.Configs[rep.Config].Name }})
}

// verifySpecs returns the metrics read from the original's output:
// --preset and --metric, or the workload's preset; each in the unit of
// the workload's metric of that name, and the primary metric among them.
func verifySpecs(c *cli.Context, w *workload.Workload) ([]external.Spec, error) {
	specs, _, _, err := metricSpecs(c)
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		if w.Preset == "" {
			return nil, usagef("verify %s: the workload names no preset for its original's output; give --preset or --metric", w.Name)
		}
		p, err := external.LookupPreset(w.Preset)
		if err != nil {
			return nil, err
		}
		specs = p.Metrics
	}
	metrics := map[string]results.Metric{}
	for _, m := range append(append([]workload.Metric{}, w.Metrics...), workload.ProcessMetrics...) {
		metrics[m.Name] = m.Result()
	}
	for _, s := range specs {
		if isProcessMetricName(s.Name) {
			return nil, usagef("--metric %s: %s is measured by contend for every repetition (wait4); name the extracted metric differently", s.Name, s.Name)
		}
		if m, ok := metrics[s.Name]; ok && m.Unit != s.BaseUnit() {
			return nil, usagef("metric %s: the original's is in %s, %s's in %s", s.Name, s.BaseUnit(), w.Name, m.Unit)
		}
	}
	if _, ok := findSpec(specs, w.Primary); !ok && !isProcessMetricName(w.Primary) {
		return nil, usagef("verify %s: the original's metrics (%s) do not include %s's primary metric %s", w.Name, specNames(specs), w.Name, w.Primary)
	}
	return specs, nil
}

// VerifyMinRuns is the fewest repetitions of each side verify takes: the
// verdict is the 90% Hodges-Lehmann interval of the ratio, and with n
// runs a side the most extreme of the C(2n, n) rank orders has
// probability 1/C(2n, n) in each tail: 1/6 at 2 runs, above the 5% a
// 90% interval leaves a tail, so no interval exists; 1/20 at 3 runs.
const VerifyMinRuns = 3

func specNames(specs []external.Spec) string {
	var ns []string
	for _, s := range specs {
		ns = append(ns, s.Name)
	}
	return strings.Join(ns, ", ")
}
