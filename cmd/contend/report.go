package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"contend"
	"contend/internal/comparison"
	"contend/internal/env"
	"contend/internal/lkmlreport"
	"contend/internal/safefile"
	"contend/internal/value"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:        "report",
		Usage:       "write the draft of a regression report for the kernel's lists (--for-lkml); never sent",
		ArgsUsage:   "--for-lkml CAMPAIGN-DIR | BISECT-DIR | GOOD.json BAD.json",
		Description: helpText("report"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "for-lkml", Usage: "the draft of a [REGRESSION] mail with #regzbot lines (the only report so far)"},
			&wordsFlag{cli.StringSliceFlag{Name: "aa", Usage: "--aa DIR | --aa A1.json A2.json: an A/A control (the base kernel against itself); its difference refuses the report"}},
			&cli.StringFlag{Name: "introduced", Usage: "regzbot's introduced: a commit id (8 to 40 hex digits) or a range GOOD..BAD of tags or ids (default: from the results)"},
			&cli.StringFlag{Name: "metric", Usage: "the metric that regressed (default: the primary metric; a bisect's own)"},
			newFlag("alpha", value.NewLevel(0.05), "significance level, above 0 and below 0.5"),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the draft to this new file (default: standard output)"},
		},
		Action: runReport,
	}
}

func runReport(c *cli.Context) error {
	if !c.Bool("for-lkml") {
		return usagef("report: give --for-lkml (the draft of a regression report for the kernel's lists); a comparison's report is 'contend compare'")
	}
	intro := c.String("introduced")
	if c.IsSet("introduced") {
		if err := lkmlreport.CheckIntroduced(intro); err != nil {
			return &usageError{err.Error()}
		}
	}
	opt := comparison.Options{Alpha: c.Value("alpha").(float64)}
	if m := strings.TrimSpace(c.String("metric")); c.IsSet("metric") {
		if m == "" || strings.Contains(m, ",") {
			return usagef("--metric: %q is not accepted; accepted: the name of one metric", c.String("metric"))
		}
		opt.Metrics = []string{m}
	}
	out := c.String("out")
	if c.IsSet("out") && out == "" {
		return usagef("--out: an empty file name; accepted: the path of a new file")
	}
	s, err := lkmlreport.Open(c.Args().Slice(), opt)
	if err != nil {
		return reportError(err)
	}
	dopt := lkmlreport.Options{Introduced: intro, Date: env.Now(), Writer: contend.FullVersion()}
	if aa := c.StringSlice("aa"); len(aa) > 0 {
		a, err := lkmlreport.Open(aa, opt)
		if err != nil {
			return reportError(fmt.Errorf("--aa: %w", err))
		}
		dopt.AA, dopt.AAName = a.Comparison, strings.Join(aa, " ")
	}
	d, err := lkmlreport.Build(s, dopt)
	if err != nil {
		return reportError(err)
	}
	if out == "" {
		return d.Write(c.App.Writer)
	}
	return writeDraft(out, d)
}

// reportError makes a refused input a usage error (exit 2); a
// comparison that supports no report is a failure (exit 1).
func reportError(err error) error {
	var rf *lkmlreport.Refusal
	if errors.As(err, &rf) {
		return &usageError{err.Error()}
	}
	return err
}

// writeDraft writes d to the new file path (an existing one is refused).
func writeDraft(path string, d *lkmlreport.Draft) error {
	f, err := safefile.CreateExcl(path, os.O_WRONLY, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return usagef("--out: %s exists; choose a new file", path)
		}
		return fmt.Errorf("--out: %v", err)
	}
	w := bufio.NewWriter(f)
	err = d.Write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
