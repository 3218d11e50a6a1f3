package main

import (
	"github.com/urfave/cli/v2"

	"contend/internal/export"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/summary"
	"contend/internal/sweep"
	"contend/internal/workload"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:        "show",
		Usage:       "summarise a result file",
		ArgsUsage:   "FILE",
		Description: helpText("show"),
		Flags: append([]cli.Flag{
			formatFlag("text, json, original, or csv (a sweep's per-point table)", "text", "json", "original", "csv"),
		}, summaryDetailFlags()...),
		Action: showAction,
	}
}

func showAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("show takes one result file, got %d arguments", c.NArg())
	}
	format, path := c.String("format"), c.Args().First()
	f, err := results.Read(path)
	if err != nil {
		return &usageError{err.Error()}
	}
	if format == "csv" && f.Kind != "sweep" {
		return usagef("--format csv: %s is %s file; csv is the per-point table of a sweep file", path, aKind(f.Kind))
	}
	if err := checkDetail(c, format); err != nil {
		return err
	}
	w := c.App.Writer
	switch format {
	case "json":
		b, err := export.Marshal(f) // one document, with the summaries
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "original":
		return workload.WriteOriginal(w, f)
	case "csv":
		a, err := sweep.Analyze(f)
		if err != nil {
			return err
		}
		return sweep.WriteCSV(w, a)
	}
	return summary.Show(w, path, f, summary.Options{Detail: textDetail(c), All: textDetail(c) != report.Brief})
}
