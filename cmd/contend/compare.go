package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/value"
)

// compareHelp is the description of compare in its help.
const compareHelp = `Compares each file with the first (the baseline), metric by metric: the
median of each side with its 95% interval, the Hodges-Lehmann estimate of the
relative change B/A-1 ("HL change", on log values; for metrics of values >= 0
with zeros the shift B-A in the metric's unit) with its 95% interval, a
two-sided p-value (Mann-Whitney U, exact when there are no ties; --test welch
for Welch's t-test) and a verdict: faster/slower for durations, better/worse
for other metrics with a direction, increase/decrease for informational ones,
"~" (no significant change), "within noise" (significant but smaller than
--threshold) or "too few runs" (the test cannot reach --alpha with so few
runs, e.g. 3 against 3). The first lines are headlines to paste into a mail.

The text says by default the sides, the headline, the table of the metrics
that changed significantly and one line counting the others; --all puts
every metric in the table, --full gives the full report described here
(intervals, method, warnings, outliers, differences). On a terminal the
verdicts are coloured (faster, better green; slower, worse red); never in a
pipe or a file, nor when NO_COLOR is set. The same holds for ab and
campaign report.

Multiple testing: the p-values of the headline metric (the workload's
primary metric) are Holm-adjusted over the file pairs, those of the other
metrics together over all metrics and pairs (--one-family: all in one
family). Metrics whose values are all the same number on both sides are
shown as identical and not tested.

Sides with several files: --a and --b pool the repetitions of their files
(runs spread over reboots). Every two files of a side are tested against
each other (U test, Holm over all such tests); a side whose files differ
more than their noise allows gets a warning (a between-boot effect that
pooling hides).

Boots: every repetition records the boot it ran in. When a side's runs come
from one boot, one line says so: boot-to-boot variance is not measured and
the p-value covers this boot only. When both sides span two or more boots,
the boot is the unit of the report, in every format: the headline, the table
and the verdict of every metric (kernel evidence too) are Student's t on the
per-boot means (of log values; of values, change over |mean of A|, for
metrics with values <= 0), Holm-adjusted as above, with the MDE from its
standard error; then the variance within and between boots, the next
campaign's boots x runs that fit the same time (--boot-cost: what a boot
costs, measured by campaigns, settling included), a per-boot table (text and
JSON) and the pooled runs as a description (they treat runs as independent:
no p, no verdict). 'contend compare DIR' reports a campaign ('contend
campaign').

FILE:CONFIG selects a configuration of a file with several, by name or
index from 0: 'contend ab' files have configurations a and b.

Also listed: failed and timed-out repetitions per side (counted, never
compared), outliers (modified z-score above 3.5, reported and kept),
parameters that differ, and the environment differences key by key.
Comparing different workloads is refused.

Formats: text (80 columns), markdown, csv and json (numbers in base units,
changes as fractions), bench: the Go benchmark format, one line per
repetition, for 'benchstat -col side FILE' (durations in ns/op, which
benchstat shows as sec/op; other metrics as NAME-ns/op, NAME-B/op, NAME/op;
'Unit ... better=' lines carry the directions); lkml: the kernel test
robot's comparison block, column for column, with n, the test, p and the
change's interval below it (changed rows and the headline; --all every
row; docs/lkml.md).

Examples:
   contend compare before.json after.json
   contend compare --threshold 2% --metric time,real before.json after.json
   contend compare ab.json:a ab.json:b
   contend compare --a boot1.json boot2.json --b patched1.json patched2.json
   contend compare --format bench before.json after.json > ab.txt && benchstat -col side ab.txt
   contend compare --by host results/            # a fleet: one ab.json per results/HOST/
   contend compare --by env.cpu.model --a results/*/before.json --b results/*/after.json

Fleets (--by): the files are grouped by host or by an environment key and B
is compared with A within each group: a directory stands for the result
files under it; a file with two configurations (ab) gives both sides of its
group, otherwise --a and --b say which files are which side (or each group
has exactly two files, the first the baseline; campaign directories are
skipped). The report gives the change across the groups with the group as
the unit (random effects: each group's log ratio of geometric means,
DerSimonian-Laird between-group variance, the modified Hartung-Knapp
interval on t(groups-1)), whether the change differs between groups
(Welch's test, I²), each group's change with its interval (Holm over the
groups that can be tested; one with too few runs for its test to reach
alpha is listed and counted nowhere), how many changed significantly each
way, the environment differences of the groups that went against the rest,
and the hosts of the status file (--hosts) without results.`

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:        "compare",
		Usage:       "compare result files with statistics: is the difference real?",
		ArgsUsage:   "BASELINE.json OTHER.json [MORE.json...] | --a A1.json [A2.json...] --b B1.json [B2.json...] | CAMPAIGN-DIR",
		Description: compareHelp,
		Flags: append([]cli.Flag{
			&wordsFlag{cli.StringSliceFlag{Name: "a", Usage: "--a FILE... (or -a): the baseline side, result files to pool"}},
			&wordsFlag{cli.StringSliceFlag{Name: "b", Usage: "--b FILE... (or -b): the other side, result files to pool"}},
			newFlag("alpha", value.NewLevel(0.05), "significance level, above 0 and below 0.5"),
			newFlag("threshold", &value.Percent{Zero: true}, "noise band: significant changes smaller than this are 'within noise' (e.g. 2%)"),
			testFlag(),
			&cli.StringFlag{Name: "metric", Usage: "metrics to compare, comma-separated (default: every metric both sides have)"},
			&cli.BoolFlag{Name: "one-family", Usage: "Holm-adjust the headline metric together with the other metrics"},
			compareFormatFlag(),
			&cli.StringFlag{Name: "by", Usage: "a fleet: group the files by host (results/HOST/, see 'Run on many machines' in the README) or by env.KEY, and compare B with A within each group"},
			&cli.StringFlag{Name: "hosts", Usage: "with --by: the fleet's status file (HOST STATUS REASON per line; default: fleet-status.txt in a directory given), to name the hosts without results"},
			&cli.StringFlag{Name: "plot", Usage: "with --by: also draw the change of every group with its interval, one colour per group (.svg or .png)"},
			newFlag("boot-cost", &value.Duration{Max: 24 * time.Hour}, "time one boot costs, for the boot-level recommendation of boots x runs (default: measured by a campaign, else 2m assumed)"),
		}, detailFlags()...),
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) error {
	opt, format, err := compareOptions(c)
	if err != nil {
		return err
	}
	if c.IsSet("by") {
		return runFleetCompare(c, opt, format)
	}
	if c.IsSet("plot") || c.IsSet("hosts") {
		return usagef("--plot and --hosts go with --by (a fleet: --by host or --by env.KEY); a campaign's plot: 'contend campaign report DIR --plot FILE'")
	}
	specs, dir, err := compareSpecs(c)
	if err != nil || dir != "" {
		if dir != "" {
			return campaignReport(c, dir, opt, format)
		}
		return err
	}
	sides, sweeps, err := comparison.Sides(specs)
	if err != nil {
		return &usageError{err.Error()}
	}
	for _, w := range comparison.SameRuns(sides) {
		fmt.Fprintln(c.App.ErrWriter, "warning: "+w)
	}
	if len(sweeps) > 0 {
		if err := noDetail(c, "a comparison of sweeps"); err != nil {
			return err
		}
		files, names := sideFiles(sides)
		return compareSweeps(c, files, names, opt, format)
	}
	r, err := comparison.Build(sides, opt)
	if err != nil {
		return inputError(err)
	}
	return writeComparison(c, r, format)
}

// compareSpecs returns the file specs of each side: --a and --b, else one
// side per argument; or dir, when the one argument is a directory (a
// campaign).
func compareSpecs(c *cli.Context) (specs [][]string, dir string, err error) {
	as, bs, err := givenSides(c)
	if err != nil || len(as) > 0 {
		return [][]string{as, bs}, "", err
	}
	if c.NArg() == 1 {
		if st, err := os.Stat(c.Args().First()); err == nil && st.IsDir() {
			return nil, c.Args().First(), nil
		}
	}
	if c.NArg() < 2 {
		return nil, "", usagef("compare needs a baseline and at least one other result file, got %d (see 'contend compare --help')", c.NArg())
	}
	for _, a := range c.Args().Slice() {
		specs = append(specs, []string{a})
	}
	return specs, "", nil
}

// givenSides returns the files of --a and --b (none when neither is
// given), refusing one without the other and either with arguments.
func givenSides(c *cli.Context) (as, bs []string, err error) {
	as, bs = c.StringSlice("a"), c.StringSlice("b")
	switch {
	case len(as) == 0 && len(bs) == 0:
		return nil, nil, nil
	case len(as) == 0 || len(bs) == 0:
		return nil, nil, usagef("compare: --a and --b go together: give files for both sides")
	case c.NArg() > 0:
		return nil, nil, usagef("compare: give files either as arguments or with --a/--b, not both (extra: %s)", strings.Join(c.Args().Slice(), " "))
	}
	return as, bs, nil
}

// sideFiles lists the files of every part of sides, with their names.
func sideFiles(sides []comparison.Side) (files []*results.File, names []string) {
	for _, s := range sides {
		for _, p := range s.Parts {
			files = append(files, p.File)
			names = append(names, p.Name)
		}
	}
	return files, names
}

// inputError makes an error of the comparison's input a usage error.
func inputError(err error) error {
	if errors.Is(err, comparison.ErrIncompatible) {
		return &usageError{err.Error()}
	}
	return err
}

// compareOptions reads and checks the flags of compare.
func compareOptions(c *cli.Context) (comparison.Options, string, error) {
	var opt comparison.Options
	opt.Alpha, opt.Threshold = c.Value("alpha").(float64), c.Value("threshold").(float64)
	test, err := comparison.ParseTest(c.String("test"))
	if err != nil {
		return opt, "", &usageError{err.Error()}
	}
	opt.Test = test
	if m := c.String("metric"); c.IsSet("metric") {
		for _, x := range strings.Split(m, ",") {
			if x = strings.TrimSpace(x); x != "" {
				opt.Metrics = append(opt.Metrics, x)
			}
		}
		if len(opt.Metrics) == 0 {
			return opt, "", usagef("--metric: %q names no metric", m)
		}
	}
	opt.OneFamily = c.Bool("one-family")
	opt.BootCost = c.Value("boot-cost").(time.Duration)
	return opt, c.String("format"), nil
}

// testFlag is compare's --test: the words of comparison.Tests
// (mannwhitney, also mann-whitney, u, utest; welch, also t).
func testFlag() *valueFlag {
	return enumFlag("test", &value.Enum{W: "mannwhitney", Words: comparison.Tests,
		Aliases: map[string]string{"mann-whitney": "mannwhitney", "u": "mannwhitney", "utest": "mannwhitney", "t": "welch"}},
		"mannwhitney or welch")
}

// compareFormatFlag is the --format of compare and campaign report.
func compareFormatFlag() *valueFlag {
	return formatFlag("text, markdown, csv, json, bench or lkml (the kernel test robot's block: docs/lkml.md)", append(append([]string{}, report.CompareFormats...), "lkml")...)
}
