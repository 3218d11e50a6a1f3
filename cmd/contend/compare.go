package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/value"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:        "compare",
		Usage:       "compare result files with statistics: is the difference real?",
		ArgsUsage:   "BASELINE.json OTHER.json [MORE.json...] | --a A1.json [A2.json...] --b B1.json [B2.json...] | CAMPAIGN-DIR",
		Description: helpText("compare"),
		Flags: append([]cli.Flag{
			&wordsFlag{cli.StringSliceFlag{Name: "a", Usage: "--a FILE... (or -a): the baseline side, result files to pool"}},
			&wordsFlag{cli.StringSliceFlag{Name: "b", Usage: "--b FILE... (or -b): the other side, result files to pool"}},
			newFlag("alpha", value.NewLevel(0.05), "significance level, above 0 and below 0.5"),
			newFlag("threshold", &value.Percent{Zero: true}, "noise band: significant changes smaller than this are 'within noise' (e.g. 2%)"),
			testFlag(),
			&cli.StringFlag{Name: "metric", Usage: "metrics to compare, comma-separated (default: every metric both sides have)"},
			&cli.BoolFlag{Name: "one-family", Usage: "Holm-adjust the headline metric together with the other metrics"},
			compareFormatFlag(),
			&cli.StringFlag{Name: "by", Usage: "a fleet: group the files by host (results/HOST/, see docs/fleet.md) or by env.KEY, and compare B with A within each group"},
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
			return writeCampaignReport(c, dir, opt, format, "")
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

// compareSpecs returns the file specs of each side, or the campaign
// directory (comparison.Specs).
func compareSpecs(c *cli.Context) ([][]string, string, error) {
	specs, dir, err := comparison.Specs(c.StringSlice("a"), c.StringSlice("b"), c.Args().Slice())
	if err != nil {
		return nil, "", &usageError{err.Error()}
	}
	return specs, dir, nil
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
	return formatFlag("text, markdown, csv, json, bench, lkml (the kernel test robot's block: docs/lkml.md) or mmtests (compare-mmtests.pl's table: docs/compare.md)", append(append([]string{}, report.CompareFormats...), "lkml", "mmtests")...)
}
