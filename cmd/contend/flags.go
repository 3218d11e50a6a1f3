package main

import (
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliflag"
	"contend/internal/limits"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/value"
	"contend/internal/workload"
)

// paramFlags returns one flag per parameter of w.
func paramFlags(w *workload.Workload) []cli.Flag {
	var fs []cli.Flag
	for _, p := range w.Params {
		usage := p.Usage
		if d := p.DefaultString(); d != "" {
			usage += " (default " + d + ")"
		}
		if p.Kind == workload.Bool {
			// The text as given, --pin=maybe included: Workload.Resolve
			// parses every parameter.
			fs = append(fs, &valueFlag{GenericFlag: cli.GenericFlag{Name: p.Name, Value: cliflag.Named(p.Name, new(value.BoolText)), Usage: usage, Category: "workload parameters"}})
			continue
		}
		fs = append(fs, &cli.StringFlag{Name: p.Name, Usage: usage, Category: "workload parameters"})
	}
	return fs
}

// flagTexts collects the parameter texts the user gave as flags: the one
// loop from w's flags to texts (run, ab, verify, sweep use it).
func flagTexts(c *cli.Context, w *workload.Workload) map[string]string {
	given := map[string]string{}
	for _, p := range w.Params {
		if c.IsSet(p.Name) {
			given[p.Name] = c.String(p.Name)
		}
	}
	return given
}

// givenParams collects the parameter texts the user gave as flags or as
// positional arguments (Workload.WithPositional).
func givenParams(c *cli.Context, w *workload.Workload) (map[string]string, error) {
	return w.WithPositional(flagTexts(c, w), c.Args().Slice())
}

// resolve turns the user's texts into checked values of w, with the
// warnings the machine check produced.
func resolve(w *workload.Workload, given map[string]string, force bool) (workload.Values, []string, error) {
	m := limits.Checked()
	m.Force = force
	return w.ResolveOn(given, m)
}

// DefaultRuns is the default -n: the smallest number of repetitions whose
// median has a distribution-free 95% confidence interval (with 6 runs,
// [min, max] covers the median with probability 1 - 2/2^6 = 96.9%; with 5
// only 93.8%), and with which 6 + 6 runs in compare can reach p < 0.05.
const DefaultRuns = 6

// MaxRuns is the most repetitions -n takes.
const MaxRuns = 100000

// runsUsage explains -n and its default in --help.
const runsUsage = "measured repetitions, each in a fresh process; the default 6 is the fewest whose median has a 95% interval (10 or more narrow it)"

// runFormatUsage is the --format usage of run and exec.
const runFormatUsage = "output: text, json, or original (each repetition as the original program printed it)"

// formatFlag declares --format, default text, taking one of words.
func formatFlag(usage string, words ...string) *valueFlag {
	return enumFlag("format", &value.Enum{W: "text", Words: words}, usage)
}

// repFlags are the flags of every command that runs repetitions, with
// its --format (none when format is nil: verify).
func repFlags(format cli.Flag) []cli.Flag {
	fs := []cli.Flag{
		newFlag("runs", &value.Int{N: DefaultRuns, Min: 1, Max: MaxRuns}, runsUsage, "n"),
		newFlag("warmup", &value.Int{Min: 0, Max: 100000}, "repetitions run first and not counted"),
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "result file (default results/WORKLOAD-DATE-TIME.jsonl); an existing file is refused unless --append or --replace"},
		&cli.BoolFlag{Name: "append", Usage: "add the repetitions to the existing --out file of the same configuration (refused when it holds another run)"},
		&cli.BoolFlag{Name: "replace", Usage: "overwrite an existing --out file"},
		&cli.StringFlag{Name: "label", Usage: "free text stored with the results, such as 'rt6 with patch'"},
		newFlag("timeout", &value.Duration{Min: time.Millisecond}, "per-repetition timeout (default: derived from a workload's parameters, see 'contend help WORKLOAD'; 1h for external programs)"),
		format,
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress, warnings or lock waits on stderr"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"V"}, Usage: "one line per repetition on stderr"},
		&cli.BoolFlag{Name: "force", Usage: "run although memory may not fit (a warning instead of a refusal)"},
		evidenceFlag(),
		lockFlags()[0], lockFlags()[1],
	}
	return slices.DeleteFunc(fs, func(f cli.Flag) bool { return f == nil })
}

// repOptions are the parsed repFlags.
type repOptions struct {
	n, warmup int
	out       string
	mode      results.Mode // what to do with an existing --out file
	label     string
	timeout   time.Duration // 0: the workload's default
	format    string
	detail    report.Detail // --all, --full of a text report or summary
	quiet     bool
	verbose   bool
	force     bool
	evidence  []string // collectors (see 'contend help evidence')
	noWait    bool     // refuse when the machine-wide lock is held
	noLock    bool     // run without the machine-wide lock
}

// parseRepOptions reads repFlags; --format was checked as it was read
// (its value.Enum).
func parseRepOptions(c *cli.Context) (repOptions, error) {
	var o repOptions
	var err error
	o.n, o.warmup, o.timeout = c.Value("runs").(int), c.Value("warmup").(int), c.Value("timeout").(time.Duration)
	o.out, o.label, o.quiet = c.String("out"), c.String("label"), c.Bool("quiet")
	o.verbose, o.force = c.Bool("verbose"), c.Bool("force")
	o.noWait, o.noLock = c.Bool("no-wait"), c.Bool("no-lock")
	if o.noWait && o.noLock {
		return o, usagef("--no-wait and --no-lock exclude each other")
	}
	if o.quiet && o.verbose {
		return o, usagef("--quiet and --verbose exclude each other")
	}
	if c.IsSet("out") && strings.TrimSpace(o.out) == "" {
		return o, usagef("--out: empty path; accepted: a file path such as results/faultme.jsonl")
	}
	if o.mode, err = outMode(c); err != nil {
		return o, err
	}
	if o.evidence, err = parseEvidence(c); err != nil {
		return o, err
	}
	o.format = c.String("format")
	if err := checkDetail(c, o.format); err != nil {
		return o, err
	}
	o.detail = textDetail(c)
	return o, nil
}

// outMode returns what --append and --replace say to do with an existing
// --out file (run.OutMode).
func outMode(c *cli.Context) (results.Mode, error) {
	return run.OutMode(c.String("out"), c.Bool("append"), c.Bool("replace"))
}

// The typed flags (internal/cliflag), under the names the commands use.
type valueFlag = cliflag.Flag

func newFlag(name string, v cli.Generic, usage string, aliases ...string) *valueFlag {
	return cliflag.New(name, v, usage, aliases...)
}

func enumFlag(name string, e *value.Enum, usage string, aliases ...string) *valueFlag {
	return cliflag.Enum(name, e, usage, aliases...)
}
