package main

import (
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
		Name:        "verify",
		Usage:       "check a reproduction against its original program, alternating the two",
		ArgsUsage:   "WORKLOAD [parameters] -- PROGRAM [ARGS]",
		Description: helpText("verify"),
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
	args := c.Args().Slice()
	if len(args) == 0 {
		return usagef("verify %s: which original program? usage: contend verify %s [parameters] -- PROGRAM [ARGS]", w.Name, w.Name)
	}
	if err := external.CheckProgram("exec", args[0]); err != nil {
		return err
	}
	margin := c.Value("margin").(float64)
	specs, _, _, err := metricSpecs(c)
	if err == nil {
		specs, err = external.VerifySpecs(w, specs)
	}
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	v, warns, err := verifyValues(w, flagTexts(c, w), opt)
	if err != nil {
		return err
	}
	f := run.VerifyFile(w, v, warns, specs, args, opt.label)
	original := external.Program{Argv: args, Metrics: specs, Timeout: run.Timeout(w, v, opt.timeout)}
	plan, _ := ab.Schedule(ab.OrderABBA, 0, nil, w.Primary, opt.warmup, opt.n) // AB BA AB ...
	job := run.Job{
		File: f, Name: "verify-" + w.Name, Threads: w.Concurrency(v), Oversubscribe: w.OversubscribeWarn,
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

// VerifyMinRuns is the fewest repetitions of each side verify takes: the
// verdict is the 90% Hodges-Lehmann interval of the ratio, and with n
// runs a side the most extreme of the C(2n, n) rank orders has
// probability 1/C(2n, n) in each tail: 1/6 at 2 runs, above the 5% a
// 90% interval leaves a tail, so no interval exists; 1/20 at 3 runs.
const VerifyMinRuns = 3

// verifyValues refuses too few runs (VerifyMinRuns, unless --append) and
// resolves the workload's values.
func verifyValues(w *workload.Workload, given map[string]string, opt repOptions) (workload.Values, []string, error) {
	if opt.n < VerifyMinRuns && opt.mode != results.ModeAppend {
		return nil, nil, usagef("--runs: %d is too few for verify: the 90%% interval of the ratio that decides needs at least %d repetitions of each side; accepted: an integer from %d to %d (fewer only with --append)", opt.n, VerifyMinRuns, VerifyMinRuns, MaxRuns)
	}
	return resolve(w, given, opt.force)
}
