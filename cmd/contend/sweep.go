package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliflag"
	"contend/internal/comparison"
	"contend/internal/harness"
	"contend/internal/limits"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/sweep"
	"contend/internal/sweepplan"
	"contend/internal/value"
	"contend/internal/workload"
)

func sweepCommand() *cli.Command {
	cmd := &cli.Command{
		Name:        "sweep",
		Usage:       "a scalability curve: one configuration per point, repetitions in rounds, USL fit",
		ArgsUsage:   "WORKLOAD --threads LIST | --param NAME=LIST ...",
		Description: helpText("sweep"),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("sweep: which workload? one of: %s (see 'contend list')", joinNames())
			}
			return usagef("sweep: no workload %q; one of: %s (see 'contend list')", c.Args().First(), joinNames())
		},
	}
	for _, w := range workload.All() {
		cmd.Subcommands = append(cmd.Subcommands, sweepWorkloadCommand(w))
	}
	return cmd
}

// paramListFlag collects repeated --param NAME=LIST flags without splitting
// at commas (a cli.StringSliceFlag would).
type paramListFlag struct{ items []string }

func (p *paramListFlag) Set(s string) error { p.items = append(p.items, s); return nil }
func (p *paramListFlag) String() string     { return strings.Join(p.items, " ") }

// Repeatable marks --param a cliargs.RepeatableValue: each is one more
// parameter, not the same one given twice.
func (*paramListFlag) Repeatable() {}

func sweepWorkloadCommand(w *workload.Workload) *cli.Command {
	flags := paramFlags(w)
	for _, f := range flags {
		if sf, ok := f.(*cli.StringFlag); ok {
			if p, _ := w.Param(sf.Name); p.IsConcurrency() {
				sf.Usage += "; a LIST sweeps it (1,2,4 or 1..64x2)"
			}
		}
	}
	seed := newFlag("seed", &value.Int{Min: math.MinInt, Max: math.MaxInt}, "seed of the shuffled order")
	seed.DefaultText = "from the clock; recorded"
	flags = append(flags,
		&cli.GenericFlag{Name: "param", Value: &paramListFlag{}, Usage: "NAME=LIST: sweep parameter NAME over LIST (repeatable)"},
		enumFlag("order", &value.Enum{W: sweep.OrderShuffled, Words: []string{sweep.OrderShuffled, sweep.OrderFixed}}, "order of the points within a round: shuffled or fixed"),
		seed,
	)
	flags = append(append(flags, repFlags(formatFlag("output: text, json or csv (the per-point table)", "text", "json", "csv"))...), summaryDetailFlags()...)
	cliflag.SetUsage(flags, "runs", "measured rounds: repetitions per point")
	cliflag.SetUsage(flags, "warmup", "uncounted rounds run first (every point once per round)")
	return &cli.Command{
		Name:        w.Name,
		Usage:       w.Summary,
		ArgsUsage:   "--threads LIST | --param NAME=LIST [flags]",
		Description: w.Doc + "\n\nProvenance: " + w.Provenance,
		Flags:       flags,
		Action: func(c *cli.Context) error {
			return sweepWorkload(c, w)
		},
	}
}

// parseSweep reads the sweep's command line into a sweepplan.Spec, which
// checks it, and the repetition flags.
func parseSweep(c *cli.Context, w *workload.Workload) (*sweepplan.Spec, repOptions, error) {
	if c.NArg() > 0 {
		return nil, repOptions{}, usagef("sweep %s takes no positional arguments (got %q); give parameters as flags", w.Name, strings.Join(c.Args().Slice(), " "))
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return nil, opt, err
	}
	m := limits.Checked()
	m.Force = opt.force
	s, err := sweepplan.New(w, sweepplan.Options{
		Params: c.Generic("param").(*paramListFlag).items, Texts: flagTexts(c, w),
		Order: c.String("order"), Seed: int64(c.Value("seed").(int)), SeedSet: c.IsSet("seed"), Machine: m,
	})
	return s, opt, err
}

func sweepWorkload(c *cli.Context, w *workload.Workload) error {
	s, opt, err := parseSweep(c, w)
	if err != nil {
		return err
	}
	configs, names := s.Configs()
	f := run.NewFile("sweep", w, configs, names, opt.label)
	f.Warnings, f.Sweep = s.Warns, s.Info(opt.n, opt.warmup)
	if s.Derive != nil {
		f.Metrics = append(f.Metrics, s.Through)
	}
	slots := sweepplan.Plan(len(configs), opt.n, opt.warmup, s.Order, s.Seed)
	job := run.Job{
		File: f, Name: w.Name + "-sweep",
		// A swept thread count is warned about per point (parseSweep);
		// a fixed one as run does.
		Threads: s.FixedThreads(w), Oversubscribe: w.OversubscribeWarn,
		Plan:   harness.StaticPlan(slots),
		Runner: run.Workload(w, configs, opt.timeout),
		Report: func(o run.Outcome) error { return sweepReport(c, opt, o) },
	}
	if s.Derive != nil {
		job.Derive = func(rep *results.Rep) { s.AddThroughput(configs, rep) }
	}
	return doJob(c, opt, job, run.TerminalOptions{
		Total: len(slots), Metric: w.Primary, Unit: unitOf(w, w.Primary),
		Count: func(done int, rep results.Rep) string {
			return fmt.Sprintf("repetition %d of %d, %s", done, len(slots), names[rep.Config])
		},
		Label: func(rep results.Rep) string { return names[rep.Config] },
	})
}

// sweepReport prints the sweep's analysis: per point, the fits, or the
// file (--format json) or the per-point table (csv) (sweep.WriteFormat).
func sweepReport(c *cli.Context, opt repOptions, o run.Outcome) error {
	if err := sweep.WriteFormat(c.App.Writer, o.Out.File, opt.format, opt.detail, opt.quiet); err != nil {
		return err
	}
	return endRun(c.App.ErrWriter, o, opt.quiet)
}

// compareSweeps compares sweep files curve against curve
// (sweep.CompareFiles). compare calls it for sweep files given without a
// configuration selector.
func compareSweeps(c *cli.Context, files []*results.File, names []string, opt comparison.Options, format string) error {
	if err := sweep.CompareFiles(c.App.Writer, files, names, format, opt.Metrics, opt.Analysis()); err != nil {
		return &usageError{err.Error()}
	}
	return nil
}
