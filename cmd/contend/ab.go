package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/analysis"
	"contend/internal/ab"
	"contend/internal/evidence"
	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/value"
	"contend/internal/workload"
)

func abCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "ab",
		Usage:     "run two configurations interleaved in one boot and compare them",
		ArgsUsage: "WORKLOAD [parameters] [--a FLAGS] [--b FLAGS] | exec [flags] --a 'COMMAND A' --b 'COMMAND B' | exec [flags] -- PROGRAM [ARGS]",
		Description: `Runs side A and side B of one workload alternately (A B A B ... by default),
each repetition in a fresh process, so that drift of the machine (heat, other
load, page cache) falls on both sides alike, then compares B against A on
every metric and checks each side for a trend over run order.

The sides differ by workload flags (--a, --b), by shell commands run before
each repetition of a side (--a-prepare, --b-prepare), by tracefs events
that side B runs with and side A without (--trace-events), or by the kernel
evidence collected (--a-evidence, --b-evidence in place of --evidence:
--a-evidence none measures what the collectors cost; the comparison names
the evidence metrics only one side has). The events are put back as they
were at the end, also after Ctrl-C, a timeout or a failure.

'contend ab exec' does the same for unmodified external programs, each
repetition run as 'contend exec' runs it (metrics from --metric or --preset;
without them wall time and rusage). The sides are two commands, --a and --b
(split into words as a shell would, run without one unless --shell), or one
PROGRAM after -- that both sides run, under different prepare commands or
trace events. The result file records each side's program and arguments;
its workload is exec:PROGRAM, which 'contend compare' lines up with the
built-in workloads.

--until X% makes the run adaptive: after each A/B pair from --min-runs to
--max-runs pairs (failed repetitions count) it looks at the primary metric
and stops at the first look where
  1. the group-sequential Mann-Whitney test decides a difference: its p-value
     is at most that look's level (Lan-DeMets alpha spending, Pocock-type, of
     --alpha over the planned looks, for the exact null distribution of the
     rank test); the table then reports at that level, or
  2. the 95% interval of the Hodges-Lehmann change (the one in the table)
     has a half-width ((high - low)/2) of at most X%, wherever it lies:
     the change is known precisely enough, decided or not, or
  3. the last pair, --max-runs, is done.
The probability of deciding a difference when there is none stays at or
below --alpha over all the looks together.

Examples:
   contend ab mutex --threads 1000 --locks 300000 --trace-events lock -n 10
   contend ab faultme --mem 1GiB --a '--threads 4' --b '--threads 40' -n 8
   contend ab osim 64 256 1000000 0 0 --a-prepare 'sysctl -w kernel.x=0' \
       --b-prepare 'sysctl -w kernel.x=1' --cleanup 'sysctl -w kernel.x=0'
   contend ab mutex --variant lock --b '--variant trylock' --max-runs 30 --until 5%
   contend ab faultme --mem 256MiB --aa -n 10      a null control: A = B
   contend ab osim 2 4 400000 0 0 --a-evidence none --order abba -n 20
       what the default evidence collectors cost osim

   contend ab exec --preset faultme --a './faultme-old' --b './faultme-new' -n 10
   contend ab exec --metric 'time=time = (\d+) usecs:us:lower' --a './x 1' --b './x 2'
   contend ab exec --preset mutex --trace-events lock -n 10 -- ./mainc
       one program, lock events off for A and on for B
   contend ab exec --preset osim --a-prepare 'sysctl -w kernel.x=0' \
       --b-prepare 'sysctl -w kernel.x=1' -- ./osim 64 256 1000000 0 0
   contend ab exec --aa -n 10 -- ./mainc           a null control of a program
   contend ab faultme --help      every flag of ab, with faultme's parameters
   contend ab exec --help         every flag of ab exec`,
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
			Flags:       append(append(paramFlags(w), abFlags([2]string{"workload flags of side A only, such as '--threads 4'", "workload flags of side B only"})...), repFlags(abFormatFlag())...),
			Action:      func(c *cli.Context) error { return runAB(c, w) },
		})
	}
	cmd.Subcommands = append(cmd.Subcommands, abExecCommand())
	return cmd
}

// abFormatFlag is the --format of ab and ab exec, which print no
// original output.
func abFormatFlag() *valueFlag { return formatFlag("output: text or json", "text", "json") }

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
		withCategory(enumFlag("order", &value.Enum{W: string(ab.OrderAB), Words: ab.OrderNames()}, "ab, abba, or random (each pair in random order, see --seed)"), cat),
		withCategory(newFlag("seed", &value.Int{N: 1, Min: 0, Max: math.MaxInt}, "seed of --order random"), cat),
		&cli.BoolFlag{Name: "aa", Usage: "run the same configuration on both sides: a null control", Category: cat},
		withCategory(newFlag("until", &value.Percent{}, "adaptive run: after each pair from --min-runs on, stop when the group-sequential test decides the primary metric changed, or when the half-width of the 95% interval of its change is at most X% (such as 5%), or at --max-runs; see 'contend help ab'"), cat),
		withCategory(newFlag("min-runs", &value.Int{N: 5, Min: 2, Max: analysis.SequentialMaxRuns}, "with --until: pairs before the first look"), cat),
		withCategory(newFlag("max-runs", &value.Int{N: 30, Min: 2, Max: analysis.SequentialMaxRuns}, "with --until: most pairs, failed runs included, up to "+strconv.Itoa(analysis.SequentialMaxRuns)), cat),
		withCategory(newFlag("alpha", new(value.Level(0.05)), "significance level of the comparison"), cat),
		withCategory(newFlag("prepare-timeout", &value.Duration{D: time.Minute, Min: time.Millisecond}, "timeout of each prepare or cleanup command"), cat),
	}
}

// abPlan is the parsed command line of an A/B run, apart from what the
// sides run (workload values or programs).
type abPlan struct {
	prepare    [2]string
	cleanup    string
	trace      string
	order      ab.Order
	seed       uint64
	until      float64 // relative half-width, 0: fixed n
	minRuns    int
	maxRuns    int
	alpha      float64
	prepTimout time.Duration
	evidence   [2][]string // each side's collectors
	sideEv     bool        // --a-evidence or --b-evidence gave them
}

// parseABPlan parses the A/B flags shared by every A/B subcommand.
func parseABPlan(c *cli.Context) (abPlan, error) {
	var p abPlan
	var err error
	if c.Bool("aa") && (c.IsSet("b") || c.IsSet("trace-events") || c.IsSet("b-prepare") || c.IsSet("b-evidence")) {
		return p, usagef("--aa runs the same configuration on both sides: it cannot be combined with --b, --b-prepare, --b-evidence or --trace-events")
	}
	if p.evidence, p.sideEv, err = parseSideEvidence(c); err != nil {
		return p, err
	}
	p.prepare = [2]string{c.String("a-prepare"), c.String("b-prepare")}
	if c.Bool("aa") {
		p.prepare[1] = p.prepare[0]
	}
	p.cleanup = c.String("cleanup")
	p.trace = c.String("trace-events")
	if c.IsSet("trace-events") && strings.TrimSpace(p.trace) == "" {
		return p, usagef("--trace-events: empty; accepted: GROUP or GROUP:EVENT, such as lock")
	}
	p.order = ab.Order(c.String("order")) // one of ab.Orders (its value.Enum)
	if c.IsSet("seed") && p.order != ab.OrderRandom {
		return p, usagef("--seed goes with --order random (the order %s draws nothing); give --order random or drop --seed", p.order)
	}
	p.seed, p.alpha, p.prepTimout = uint64(c.Value("seed").(int)), c.Value("alpha").(float64), c.Value("prepare-timeout").(time.Duration)
	if c.IsSet("until") {
		p.until, p.minRuns, p.maxRuns = c.Value("until").(float64), c.Value("min-runs").(int), c.Value("max-runs").(int)
		if c.IsSet("max-runs") && p.maxRuns < p.minRuns {
			return p, usagef("--max-runs: %d is out of range; accepted: an integer from --min-runs (%d) to %d", p.maxRuns, p.minRuns, analysis.SequentialMaxRuns)
		}
		if c.IsSet("runs") {
			return p, usagef("-n/--runs and --until exclude each other: --until decides the count between --min-runs and --max-runs")
		}
	} else if c.IsSet("max-runs") || c.IsSet("min-runs") {
		return p, usagef("--min-runs and --max-runs need --until")
	}
	return p, nil
}

// checkDistinct refuses two sides that would run the same configuration
// (sameRun: what the sides run is the same) unless --aa asks for it.
func (p abPlan) checkDistinct(c *cli.Context, sameRun bool, how string) error {
	sameEvidence := slices.Equal(p.evidence[0], p.evidence[1])
	if sameRun && p.prepare[0] == p.prepare[1] && p.trace == "" && sameEvidence && !c.Bool("aa") {
		return usagef("sides A and B are the same configuration: give %s, --a-prepare/--b-prepare, --a-evidence/--b-evidence, or --trace-events (or --aa for a null control)", how)
	}
	return nil
}

// parseSideEvidence reads --a-evidence and --b-evidence: each side's
// collectors, --evidence for a side without its own (with --aa, side B
// takes side A's). ok tells whether either flag was given.
func parseSideEvidence(c *cli.Context) (sides [2][]string, ok bool, err error) {
	shared, err := evidence.Parse(c.String("evidence"))
	if err != nil {
		return sides, false, usagef("%v", err)
	}
	for i, name := range []string{"a-evidence", "b-evidence"} {
		sides[i] = shared
		from := name
		if i == 1 && c.Bool("aa") {
			from = "a-evidence"
		}
		if !c.IsSet(from) {
			continue
		}
		ok = true
		if sides[i], err = evidence.ParseFlag("--"+from, c.String(from)); err != nil {
			return sides, false, usagef("%v", err)
		}
	}
	return sides, ok, nil
}

// parseABSides resolves the workload values of both sides of `contend ab
// WORKLOAD`.
func parseABSides(c *cli.Context, w *workload.Workload, p abPlan, opt repOptions) ([2]workload.Values, []string, error) {
	var sides [2]workload.Values
	shared, err := givenParams(c, w)
	if err != nil {
		return sides, nil, err
	}
	var warns []string
	for i, side := range []string{"a", "b"} {
		given := map[string]string{}
		for k, v := range shared {
			given[k] = v
		}
		text := c.String(side)
		if c.Bool("aa") {
			text = c.String("a")
		}
		own, err := parseSideFlags(w, side, text)
		if err != nil {
			return sides, nil, err
		}
		for k, v := range own {
			given[k] = v
		}
		v, ws, err := resolve(w, given, opt.force)
		if err != nil {
			return sides, nil, usagef("side %s: %v", strings.ToUpper(side), err)
		}
		sides[i] = v
		warns = append(warns, ws...)
	}
	return sides, warns, p.checkDistinct(c, maps.Equal(sides[0], sides[1]), "--a/--b flags")
}

// parseSideFlags parses the text of --a or --b as workload flags. A flag
// given twice with two values is refused, as on the command line
// (repeatedFlag).
func parseSideFlags(w *workload.Workload, side, text string) (map[string]string, error) {
	words, err := external.SplitWords(text)
	if err != nil {
		return nil, usagef("--%s: %v", side, err)
	}
	given := map[string]string{}
	for i := 0; i < len(words); i++ {
		word := words[i]
		if !strings.HasPrefix(word, "-") {
			return nil, usagef("--%s: %q is not a flag; give workload flags such as '--threads 4'", side, word)
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(word, "-"), "=")
		p, ok := w.Param(name)
		if !ok && name == "evidence" {
			return nil, usagef("--%s: --evidence is not a workload parameter; give the side's collectors with --%s-evidence LIST (such as --%s-evidence none)", side, side, side)
		}
		if !ok {
			return nil, usagef("--%s: %s has no parameter --%s; see 'contend help %s'", side, w.Name, name, w.Name)
		}
		if !hasVal {
			if p.Kind == workload.Bool {
				val = "true"
			} else if i+1 < len(words) {
				i++
				val = words[i]
			} else {
				return nil, usagef("--%s: --%s needs a value", side, name)
			}
		}
		if old, ok := given[name]; ok && old != val {
			return nil, usagef("--%s: --%s given twice (%q, then %q); give it once", side, name, old, val)
		}
		given[name] = val
	}
	return given, nil
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
	sides, warns, err := parseABSides(c, w, p, opt)
	if err != nil {
		return err
	}
	f := run.NewFile("ab", w, sides[:], []string{"a", "b"}, opt.label)
	f.Warnings = warns
	job := run.Job{
		File: f, Name: w.Name + "-ab",
		Threads: max(concurrency(w, sides[0]), concurrency(w, sides[1])), Oversubscribe: w.OversubscribeWarn,
		Runner: run.Workload(w, sides[:], opt.timeout),
	}
	return runABJob(c, opt, p, job)
}

// runABJob runs an A/B job whose result file has configurations a and b,
// and prints the comparison. job says how a repetition runs (a built-in
// workload, or programs); runABJob adds the plan, the evidence of each
// side, the prepare commands, the tracefs switch and the report.
func runABJob(c *cli.Context, opt repOptions, p abPlan, job run.Job) error {
	f := job.File
	if p.until > 0 && opt.mode == results.ModeAppend {
		return usagef("--append: an adaptive A/B run (--until) cannot append, its stopping rule counts from its first pair; give another --out")
	}
	both := opt.evidence // the collectors of both sides: --evidence, or the union
	if p.sideEv {
		// One set of collectors, the union of the sides', opened
		// once; each repetition collects its side's view of it.
		both = evidence.Union(p.evidence[0], p.evidence[1])
		job.Evidence, job.ConfigEvidence = both, p.evidence[:]
	}
	if p.trace != "" && (slices.Contains(both, "lock") || slices.Contains(both, "locktrace")) {
		return usagef("--trace-events and --evidence lock (or locktrace) may both use tracefs (lock falls back to it without BPF): give one of them")
	}
	for i := range f.Configs {
		if p.prepare[i] != "" {
			run.SetEnv(&f.Configs[i], "prepare", p.prepare[i])
		}
		if p.sideEv {
			run.SetEnv(&f.Configs[i], "evidence", evidence.Describe(p.evidence[i]))
		}
	}
	seq, err := ab.Sequential(p.alpha, p.minRuns, p.maxRuns, p.until)
	if err != nil {
		return &usageError{err.Error()}
	}
	pairs := opt.n
	if seq != nil {
		pairs = p.maxRuns
	}
	primary, unit := f.Primary, "ns"
	if m, ok := f.Metric(primary); ok {
		unit = m.Unit
	}
	next, decision := ab.Schedule(p.order, p.seed, seq, primary, opt.warmup, pairs)
	job.Plan, job.Hooks = next, abHooks(p)
	job.Report = func(o run.Outcome) error {
		if opt.format == "json" {
			b, err := results.Marshal(o.Out.File)
			if err != nil {
				return err
			}
			c.App.Writer.Write(b)
		} else {
			ab.WriteReport(c.App.Writer, o.Out.File, ab.Report{Order: p.order, Seed: p.seed, Alpha: p.alpha, Rule: seq, Decision: decision()})
		}
		return endRun(c.App.ErrWriter, o, opt.quiet)
	}
	return doJob(c, opt, job, abProgress(f, opt.warmup+pairs, primary, unit))
}

// abProgress is what the terminal shows of an A/B run of pairs pairs:
// "pair 3 of 60, side B", the failed repetition's side.
func abProgress(f *results.File, pairs int, primary, unit string) run.TerminalOptions {
	side := func(rep results.Rep) string { return f.ConfigName(rep.Config) }
	return run.TerminalOptions{
		Total: 2 * pairs, Metric: primary, Unit: unit,
		Count: func(done int, rep results.Rep) string {
			return fmt.Sprintf("pair %d of %d, side %s", (done+1)/2, pairs, strings.ToUpper(side(rep)))
		},
		Label: func(rep results.Rep) string { return "side " + side(rep) },
		Side:  func(rep results.Rep) string { return "side " + strings.ToUpper(side(rep)) },
	}
}

// abHooks are the hooks of an A/B run: the tracefs switch, the prepare
// commands, the cleanup command (which runs before the events are put
// back).
func abHooks(p abPlan) []run.Hook {
	var hooks []run.Hook
	if p.trace != "" {
		hooks = append(hooks, run.Trace(p.trace, func(err error) error { return &usageError{err.Error()} }))
	}
	hooks = append(hooks, run.Prepare(p.prepare[:], p.prepTimout))
	if p.cleanup != "" {
		hooks = append(hooks, run.Cleanup(p.cleanup, p.prepTimout))
	}
	return hooks
}
