package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/sweep"
	"contend/internal/sweepplan"
	"contend/internal/value"
	"contend/internal/workload"
)

func sweepCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "sweep",
		Usage:     "a scalability curve: one configuration per point, repetitions in rounds, USL fit",
		ArgsUsage: "WORKLOAD --threads LIST | --param NAME=LIST ...",
		Description: `Runs WORKLOAD at every point of one or more swept parameters, -n repetitions
per point, each in a fresh process. Repetitions are taken in rounds: every
point once, then every point again, so slow drift spreads evenly over the
curve; within a round the points run in a random order (--order shuffled,
the default; the seed is recorded) or in the order given (--order fixed).
--warmup N runs N uncounted rounds first.

LIST is 1,2,4,8 or a range with a step, 10..100+10, or a geometric range,
1..64x2 (1,2,4,...,64); items mix: 1,2..8+2. Each value is checked like a
single value of the parameter. --threads LIST (any thread or task count
parameter) is short for --param threads=LIST; the other parameters are fixed
by their flags. Several swept parameters give every combination.

Prints per point the median and 95% CI of the primary metric, the throughput
(work per second, as the workload defines it) with the speedup against the
smallest point, and the medians of the other metrics; when the one swept
parameter counts threads or tasks, the Universal Scalability Law and Amdahl's
law fitted to the per-repetition throughputs. --format csv prints the
per-point table with every metric's interval. The result file (kind "sweep")
has one configuration per point: 'contend show', 'contend compare' (curve
against curve) and 'contend plot' read it.

Examples:
   contend sweep faultme --mem 1GiB --threads 1..64x2 -n 3
   contend sweep faultme --mem 256MiB --threads 1,2,4,8 -n 5 --out rt.json
   contend sweep faultme --threads 4 --param mem=64MiB..256MiBx2 --format csv
   contend sweep faultme --help   every flag of sweep, with faultme's parameters`,
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
	flags = append(flags, repFlags(formatFlag("output: text, json or csv (the per-point table)", "text", "json", "csv"))...)
	setUsage(flags, "runs", "measured rounds: repetitions per point")
	setUsage(flags, "warmup", "uncounted rounds run first (every point once per round)")
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

// sweepSpec is a parsed sweep command line.
type sweepSpec struct {
	points  []sweepplan.Point
	axes    []sweepplan.Axis
	warns   []string
	order   string
	seed    int64
	opt     repOptions
	through results.Metric
	derive  func(workload.Values, map[string]float64) (float64, bool)
}

func parseSweep(c *cli.Context, w *workload.Workload) (*sweepSpec, error) {
	if c.NArg() > 0 {
		return nil, usagef("sweep %s takes no positional arguments (got %q); give parameters as flags", w.Name, strings.Join(c.Args().Slice(), " "))
	}
	s := &sweepSpec{}
	var err error
	if s.opt, err = parseRepOptions(c); err != nil {
		return nil, err
	}
	if s.order, s.seed, err = parseSweepOrder(c); err != nil {
		return nil, err
	}
	lists, names, fixed, err := sweptLists(c, w)
	if err != nil {
		return nil, err
	}
	// Resolve the fixed values once, so their errors come first and
	// alone.
	base, err := w.Resolve(fixed)
	if err != nil {
		return nil, err
	}
	s.warns = append(s.warns, decimalSizeNotes(w, fixed)...)
	if len(names) == 0 {
		return nil, usagef("sweep %s: what to sweep? give a LIST to a thread count (--threads 1,2,4) or --param NAME=LIST", w.Name)
	}
	for _, name := range names {
		p, _ := w.Param(name)
		vals, err := sweepplan.ParseList(p, lists[name])
		if err != nil {
			return nil, err
		}
		s.axes = append(s.axes, sweepplan.Axis{Param: p, Values: vals})
	}
	s.points = sweepplan.Points(base, s.axes)
	if len(s.points) > sweepplan.MaxPoints {
		return nil, usagef("sweep: %d points (every combination of the lists) is more than %d", len(s.points), sweepplan.MaxPoints)
	}
	if err := s.resolvePoints(w, fixed, c.Bool("force")); err != nil {
		return nil, err
	}
	s.through, s.derive, _ = sweepplan.ThroughputFor(w)
	return s, nil
}

// parseSweepOrder reads --order and --seed: the seed from the clock
// unless given, none for the fixed order.
func parseSweepOrder(c *cli.Context) (string, int64, error) {
	order := c.String("order") // one of the words of its value.Enum
	seed := time.Now().UnixNano()
	if c.IsSet("seed") {
		seed = int64(c.Value("seed").(int))
	}
	if order == sweep.OrderFixed {
		if c.IsSet("seed") {
			return "", 0, usagef("--seed goes with --order shuffled (--order fixed draws nothing); drop --seed or --order fixed")
		}
		seed = 0
	}
	return order, seed, nil
}

// sweptLists reads the swept parameters (--param NAME=LIST, and lists
// given to thread-count flags) and the fixed ones: the list of each
// swept parameter, their names in order, and the fixed values' texts.
func sweptLists(c *cli.Context, w *workload.Workload) (map[string]string, []string, map[string]string, error) {
	lists := map[string]string{}
	var names []string
	for _, item := range c.Generic("param").(*paramListFlag).items {
		name, list, ok := strings.Cut(item, "=")
		name = strings.TrimPrefix(strings.TrimSpace(name), "--")
		if !ok || name == "" {
			return nil, nil, nil, usagef("--param: %q is not accepted; accepted: NAME=LIST such as threads=1,2,4 or mem=1MiB..8MiBx2", item)
		}
		p, found := w.Param(name)
		if !found {
			return nil, nil, nil, usagef("--param: %s has no parameter %q; see 'contend help %s'", w.Name, name, w.Name)
		}
		if _, dup := lists[name]; dup || c.IsSet(name) {
			return nil, nil, nil, usagef("--param: %s is given twice (as --param and as --%s, or twice)", name, name)
		}
		if p.Kind == workload.Bool {
			list = strings.ReplaceAll(list, " ", "")
		}
		lists[name] = list
		names = append(names, name)
	}
	fixed := map[string]string{}
	texts := flagTexts(c, w)
	for _, p := range w.Params {
		text, ok := texts[p.Name]
		if !ok {
			continue
		}
		isList := p.Kind != workload.Bool && (strings.Contains(text, ",") || strings.Contains(text, ".."))
		switch {
		case p.IsConcurrency() && isList:
			// A thread count takes a list directly; a single value
			// is fixed (sweep mutex --param locks=... --threads 100).
			lists[p.Name] = text
			names = append(names, p.Name)
		case isList:
			return nil, nil, nil, usagef("--%s: %q looks like a list; to sweep it give --param %s=%s", p.Name, text, p.Name, text)
		default:
			fixed[p.Name] = text
		}
	}
	return lists, names, fixed, nil
}

// resolvePoints resolves every point again (so that DefaultFuncs see the
// point's values), checks it against the machine and collects its
// warnings, each once, and its oversubscription of the online CPUs.
func (s *sweepSpec) resolvePoints(w *workload.Workload, fixed map[string]string, force bool) error {
	m := machine()
	m.Force = force
	seen := map[string]bool{}
	for i := range s.points {
		pt := &s.points[i]
		given := map[string]string{}
		for k, v := range fixed {
			given[k] = v
		}
		for _, a := range s.axes {
			given[a.Param.Name] = pt.Values[a.Param.Name] + canonText(a.Param)
		}
		var err error
		if pt.Values, err = w.Resolve(given); err != nil {
			return usagef("point %s: %v", pt.Name, err)
		}
		if w.Check != nil {
			ws, err := w.Check(pt.Values, m)
			if err != nil {
				return usagef("point %s: %v", pt.Name, err)
			}
			for _, x := range ws {
				if !seen[x] {
					seen[x] = true
					s.warns = append(s.warns, pt.Name+": "+x)
				}
			}
		}
		if !w.OversubscribeWarn || m.CPUs <= 0 {
			continue
		}
		for _, a := range s.axes {
			if a.Param.IsConcurrency() && pt.Values.Int(a.Param.Name) > int64(m.CPUs) {
				s.warns = append(s.warns, fmt.Sprintf("%s oversubscribes the %d online CPUs: the extra %s are time-sliced, not concurrent",
					pt.Name, m.CPUs, a.Param.Unit))
			}
		}
	}
	return nil
}

// fixedThreads is the thread or task count of every point when no such
// parameter is swept, else 0.
func (s *sweepSpec) fixedThreads(w *workload.Workload) int64 {
	for _, a := range s.axes {
		if a.Param.IsConcurrency() {
			return 0
		}
	}
	return concurrency(w, s.points[0].Values)
}

// canonText makes a canonical value parse back as itself.
func canonText(p workload.Param) string {
	if p.Kind == workload.Duration {
		return "ns"
	}
	return ""
}

func sweepWorkload(c *cli.Context, w *workload.Workload) error {
	s, err := parseSweep(c, w)
	if err != nil {
		return err
	}
	opt := s.opt
	var configs []workload.Values
	var names []string
	for _, p := range s.points {
		configs = append(configs, p.Values)
		names = append(names, p.Name)
	}
	f := run.NewFile("sweep", w, configs, names, opt.label)
	f.Warnings = s.warns
	info := &results.Sweep{Order: s.order, Seed: s.seed, Rounds: opt.n, WarmupRounds: opt.warmup, Throughput: s.through.Name}
	for _, a := range s.axes {
		info.Params = append(info.Params, a.Param.Name)
	}
	f.Sweep = info
	if s.derive != nil {
		f.Metrics = append(f.Metrics, s.through)
	}
	slots := sweepplan.Plan(len(configs), opt.n, opt.warmup, s.order, s.seed)
	job := run.Job{
		File: f, Name: w.Name + "-sweep",
		// A swept thread count is warned about per point (parseSweep);
		// a fixed one as run does.
		Threads: s.fixedThreads(w), Oversubscribe: w.OversubscribeWarn,
		Plan:   harness.StaticPlan(slots),
		Runner: run.Workload(w, configs, opt.timeout),
		Report: func(o run.Outcome) error { return sweepReport(c, opt, o) },
	}
	if s.derive != nil {
		job.Derive = func(rep *results.Rep) {
			if rep.Status != results.StatusOK {
				return
			}
			if x, ok := s.derive(configs[rep.Config], rep.Metrics.Map()); ok {
				rep.Metrics.Set(s.through.Name, x)
			}
		}
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
// file (--format json) or the per-point table (csv).
func sweepReport(c *cli.Context, opt repOptions, o run.Outcome) error {
	a, err := sweep.Analyze(o.Out.File)
	if err != nil {
		return err
	}
	stdout := c.App.Writer
	switch opt.format {
	case "json":
		b, err := results.Marshal(o.Out.File)
		if err != nil {
			return err
		}
		stdout.Write(b)
	case "csv":
		if err := sweep.WriteCSV(stdout, a); err != nil {
			return err
		}
	default:
		a.WarningsShown = !opt.quiet
		sweep.Report(stdout, a)
	}
	return endRun(c.App.ErrWriter, o, opt.quiet)
}

// compareSweeps compares sweep files curve against curve: each file after
// the first against the first. compare calls it for sweep files given
// without a configuration selector.
func compareSweeps(c *cli.Context, files []*results.File, names []string, opt comparison.Options, format string) error {
	if format != "text" {
		return usagef("--format %s: sweep files are compared as text; use 'contend show --format csv' for their tables", format)
	}
	for i, f := range files {
		if f.Kind != "sweep" {
			other := names[0]
			if i == 0 {
				other = names[1]
			}
			return usagef("%s is not a sweep (it is %s file) but %s is: a sweep is compared only with another sweep, or compare one point as %s:NAME",
				names[i], aKind(f.Kind), other, other)
		}
	}
	if len(files) < 2 {
		return usagef("compare needs at least two sweep files")
	}
	metric := ""
	if len(opt.Metrics) > 1 {
		return usagef("--metric: give one metric for a curve comparison")
	} else if len(opt.Metrics) == 1 {
		metric = opt.Metrics[0]
	}
	for i := 1; i < len(files); i++ {
		if i > 1 {
			fmt.Fprintln(c.App.Writer)
		}
		err := sweep.CompareCurves(c.App.Writer, files[0], files[i], sweep.CurveOptions{
			Metric:  metric,
			Compare: opt.Analysis(),
		})
		if err != nil {
			return &usageError{err.Error()}
		}
	}
	return nil
}
