package main

import (
	"math"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"contend/analysis"
	"contend/cmd/contend/internal/cliflag"
	"contend/internal/ab"
	"contend/internal/export"
	"contend/internal/limits"
	"contend/internal/lkmlblock"
	"contend/internal/mmtestsblock"
	"contend/internal/run"
	"contend/internal/value"
	"contend/internal/workload"
)

func abCommand() *cli.Command {
	cmd := &cli.Command{
		Name:        "ab",
		Usage:       "run two configurations interleaved in one boot and compare them",
		ArgsUsage:   "WORKLOAD [parameters] [--a FLAGS] [--b FLAGS] | exec [flags] --a 'COMMAND A' --b 'COMMAND B' | exec [flags] -- PROGRAM [ARGS]",
		Description: helpText("ab"),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("ab: which workload? one of: %s (or exec for external programs)", joinNames())
			}
			return usagef("ab: no workload %q; one of: %s (or exec for external programs)", c.Args().First(), joinNames())
		},
	}
	for _, w := range workload.All() {
		w := w
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:        w.Name,
			Usage:       "A/B of " + w.Name + ": " + w.Summary,
			ArgsUsage:   "[flags]",
			Description: "Flags given here apply to both sides; --a and --b add or override flags of one side.\nSee 'contend help ab' for examples and 'contend help " + w.Name + "' for the workload.",
			Flags:       append(append(append(paramFlags(w), abFlags([2]string{"workload flags of side A only, such as '--threads 4'", "workload flags of side B only"})...), repFlags(abFormatFlag())...), detailFlags()...),
			Action:      func(c *cli.Context) error { return runAB(c, w) },
		})
	}
	cmd.Subcommands = append(cmd.Subcommands, abExecCommand())
	return cmd
}

// abFormatFlag is the --format of ab and ab exec, which print no
// original output.
func abFormatFlag() *valueFlag {
	return formatFlag("output: text, json, lkml (the kernel test robot's block: docs/lkml.md) or mmtests (compare-mmtests.pl's table: docs/compare.md)", "text", "json", "lkml", "mmtests")
}

// abFlags are the flags of every A/B subcommand; sideUsage describes what
// --a and --b take (workload flags, or an external program's command).
func abFlags(sideUsage [2]string) []cli.Flag {
	cat := "A/B"
	return []cli.Flag{
		&cli.StringFlag{Name: "a", Usage: sideUsage[0], Category: cat},
		&cli.StringFlag{Name: "b", Usage: sideUsage[1], Category: cat},
		&cli.StringFlag{Name: "a-prepare", Usage: "shell command run before each repetition of side A", Category: cat},
		&cli.StringFlag{Name: "b-prepare", Usage: "shell command run before each repetition of side B", Category: cat},
		&cli.StringFlag{Name: "cleanup", Usage: "shell command run once at the end, however the run ends", Category: cat},
		&cli.StringFlag{Name: "trace-events", Usage: "tracefs events (GROUP or GROUP:EVENT) off for A, on for B; restored at the end", Category: cat},
		&cli.StringFlag{Name: "a-evidence", Usage: "kernel evidence of side A only, in place of --evidence: default, none, or a list such as perf,sched (--a-evidence none measures what the collectors cost)", Category: cat},
		&cli.StringFlag{Name: "b-evidence", Usage: "kernel evidence of side B only, in place of --evidence", Category: cat},
		cliflag.WithCategory(enumFlag("order", &value.Enum{W: string(ab.OrderRandom), Words: ab.OrderNames()}, "random (each pair in an order drawn from --seed: the test within pairs then holds whatever the machine did), ab or abba"), cat),
		cliflag.WithCategory(newFlag("seed", &value.Int{N: 1, Min: 0, Max: math.MaxInt}, "seed of --order random"), cat),
		&cli.BoolFlag{Name: "aa", Usage: "run the same configuration on both sides: a null control", Category: cat},
		cliflag.WithCategory(newFlag("until", &value.Percent{}, "adaptive run: after each pair from --min-runs on, stop when the group-sequential test decides the primary metric changed, or when the half-width of the 95% interval of its change is at most X% (such as 5%), or at --max-runs; see 'contend help ab'"), cat),
		cliflag.WithCategory(newFlag("min-runs", &value.Int{N: 5, Min: 2, Max: analysis.SequentialMaxRuns}, "with --until: pairs before the first look"), cat),
		cliflag.WithCategory(newFlag("max-runs", &value.Int{N: 30, Min: 2, Max: analysis.SequentialMaxRuns}, "with --until: most pairs, failed runs included, up to "+strconv.Itoa(analysis.SequentialMaxRuns)), cat),
		cliflag.WithCategory(newFlag("alpha", value.NewLevel(0.05), "significance level of the comparison"), cat),
		cliflag.WithCategory(newFlag("prepare-timeout", &value.Duration{D: time.Minute, Min: time.Millisecond}, "timeout of each prepare or cleanup command"), cat),
	}
}

// parseABPlan reads the A/B flags shared by every A/B subcommand into
// an ab.Plan, which checks them.
func parseABPlan(c *cli.Context) (ab.Plan, error) {
	set := map[string]bool{}
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; c.IsSet(name) {
			set[name] = true
		}
	}
	return ab.NewPlan(ab.Options{
		AA: c.Bool("aa"), Prepare: [2]string{c.String("a-prepare"), c.String("b-prepare")},
		Cleanup: c.String("cleanup"), Trace: c.String("trace-events"),
		Order: ab.Order(c.String("order")), Seed: uint64(c.Value("seed").(int)), // one of ab.Orders (its value.Enum)
		Until: c.Value("until").(float64), MinRuns: c.Value("min-runs").(int), MaxRuns: c.Value("max-runs").(int),
		Alpha: c.Value("alpha").(float64), PrepareTimeout: c.Value("prepare-timeout").(time.Duration),
		Evidence: c.String("evidence"), SideEvidence: [2]string{c.String("a-evidence"), c.String("b-evidence")},
		Set: set,
	})
}

func runAB(c *cli.Context, w *workload.Workload) error {
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	p, err := parseABPlan(c)
	if err != nil {
		return err
	}
	shared, err := givenParams(c, w)
	if err != nil {
		return err
	}
	m := limits.Checked()
	m.Force = opt.force
	sides, warns, err := p.Sides(w, shared, [2]string{c.String("a"), c.String("b")}, m)
	if err != nil {
		return err
	}
	f := run.NewFile("ab", w, sides[:], []string{"a", "b"}, opt.label)
	f.Warnings = warns
	job := run.Job{
		File: f, Name: w.Name + "-ab",
		Threads: w.Concurrency(sides[0]), Oversubscribe: w.OversubscribeWarn,
		Runner: run.Workload(w, sides[:], opt.timeout),
	}
	if ta, tb := w.Concurrency(sides[0]), w.Concurrency(sides[1]); ta != tb {
		// The oversubscription warning names the side it concerns.
		job.SideThreads = []int64{ta, tb}
	}
	return runABJob(c, opt, p, job)
}

// runABJob runs an A/B job whose result file has configurations a and b,
// and prints the comparison. job says how a repetition runs (a built-in
// workload, or programs); runABJob adds the plan, the evidence of each
// side, the prepare commands, the tracefs switch and the report.
func runABJob(c *cli.Context, opt repOptions, p ab.Plan, job run.Job) error {
	f := job.File
	r, err := p.Setup(f, opt.evidence, opt.n, opt.mode)
	if err != nil {
		return err
	}
	job.Evidence, job.ConfigEvidence = r.Evidence, r.ConfigEvidence
	primary, unit := f.Primary, fileUnit(f, f.Primary)
	next, decision := ab.Schedule(p.Order, p.Seed, r.Rule, primary, opt.warmup, r.Pairs)
	job.Plan, job.Hooks = next, run.ABHooks(p, func(err error) error { return &usageError{err.Error()} })
	job.Report = func(o run.Outcome) error {
		if opt.format == "json" {
			b, err := export.Marshal(o.Out.File) // the document show --format json prints
			if err != nil {
				return err
			}
			c.App.Writer.Write(b)
		} else if opt.format == "lkml" {
			if err := lkmlblock.WriteAB(c.App.Writer, o.Out.File, p.Alpha); err != nil {
				return err
			}
		} else if opt.format == "mmtests" {
			if err := mmtestsblock.WriteAB(c.App.Writer, o.Out.File, p.Alpha, mmtestsOptions(c)); err != nil {
				return err
			}
		} else {
			w, done := colourOut(c.App.Writer, os.Getenv)
			ab.WriteReport(w, o.Out.File, ab.Report{Order: p.Order, Seed: p.Seed, Alpha: p.Alpha, Rule: r.Rule, Decision: decision(), Detail: opt.detail, WarningsShown: !opt.quiet})
			done()
		}
		return endRun(c.App.ErrWriter, o, opt.quiet)
	}
	return doJob(c, opt, job, run.PairProgress(f, opt.warmup+r.Pairs, primary, unit))
}
