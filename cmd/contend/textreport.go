package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/lkmlblock"
	"contend/internal/mmtestsblock"
	"contend/internal/report"
	"contend/internal/value"
)

// detailFlags are the flags of how much a text comparison says, for
// compare, ab and campaign report: by default the sides, the headline,
// the metrics that changed and a count of the others.
func detailFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "all", Usage: "text, lkml and mmtests: every metric in the table, not only those that changed significantly (mmtests: not only the workload's own)"},
		&cli.BoolFlag{Name: "full", Usage: "text: the full report: every metric with its intervals, the method, the warnings of the tests, outliers, the differences of parameters and environment"},
		enumFlag("star", &value.Enum{W: mmtestsblock.StarContend, Words: mmtestsblock.Stars},
			"with --format mmtests: which cells get mmtests' star: contend (contend's test, Holm-adjusted; boots as the unit in a campaign) or mmtests (mmtests' band rule: the bands mean ± 1.96·SD of single runs do not overlap)"),
	}
}

// summaryDetailFlags are the flags of how much a summary of one file
// says, for run, exec, sweep and show: by default the headline, the
// rows that matter and a line counting the others (summary.Options,
// sweep.Report).
func summaryDetailFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "all", Usage: "text: every metric (rusage, kernel evidence, every symbol of a profile), not only the primary metric and the workload's own"},
		&cli.BoolFlag{Name: "full", Usage: "text: the full summary: every metric with its interval and spread (mean, stddev, CV, Q1, Q3), the evidence, the outliers; a sweep's fits in full"},
	}
}

// textDetail is the detail --all and --full ask for.
func textDetail(c *cli.Context) report.Detail {
	switch {
	case c.Bool("full"):
		return report.Full
	case c.Bool("all"):
		return report.BriefAll
	}
	return report.Brief
}

// checkDetail refuses --all and --full with a format other than text
// (--all goes with lkml and mmtests too), and --star with a format other
// than mmtests.
func checkDetail(c *cli.Context, format string) error {
	for _, f := range []string{"all", "full"} {
		if c.Bool(f) && format != "text" && !(f == "all" && (format == "lkml" || format == "mmtests")) {
			return usagef("--%s: goes with --format text (the other formats always hold every metric), got --format %s", f, format)
		}
	}
	if c.IsSet("star") && format != "mmtests" {
		return usagef("--star: goes with --format mmtests (the stars of mmtests' table), got --format %s", format)
	}
	return nil
}

// mmtestsOptions are the options of --format mmtests: --all and --star.
func mmtestsOptions(c *cli.Context) mmtestsblock.Options {
	return mmtestsblock.Options{All: c.Bool("all"), Star: c.String("star")}
}

// noDetail refuses --all and --full where the report has one form: what
// names it (a fleet, sweeps).
func noDetail(c *cli.Context, what string) error {
	for _, f := range []string{"all", "full"} {
		if c.Bool(f) {
			return usagef("--%s: %s has one form (not brief); drop --%s", f, what, f)
		}
	}
	return nil
}

// writeComparison writes r in format, the text at the detail of the
// flags, in colour on a terminal (colourOut).
func writeComparison(c *cli.Context, r *comparison.Comparison, format string) error {
	if err := checkDetail(c, format); err != nil {
		return err
	}
	switch format {
	case "lkml":
		return lkmlblock.Write(c.App.Writer, r, c.Bool("all"))
	case "mmtests":
		return mmtestsblock.Write(c.App.Writer, r, mmtestsOptions(c))
	}
	if format != "text" {
		return report.Write(c.App.Writer, r, format)
	}
	w, done := colourOut(c.App.Writer, os.Getenv)
	if err := report.WriteText(w, r, textDetail(c)); err != nil {
		return err
	}
	return done()
}

// colourOut returns the writer a text comparison is written to and the
// function that finishes it: its verdicts coloured (report.Colour) on a
// terminal, as esc.Coloured says.
func colourOut(w io.Writer, getenv func(string) string) (io.Writer, func() error) {
	return esc.Coloured(w, getenv, report.Colour)
}
