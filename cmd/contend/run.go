package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/workload"
)

func runCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "run",
		Usage:     "repeat one configuration of a workload, each repetition in a fresh process",
		ArgsUsage: "WORKLOAD [parameters]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("run: which workload? one of: %s (see 'contend list')", joinNames())
			}
			return usagef("run: no workload %q; one of: %s (see 'contend list')", c.Args().First(), joinNames())
		},
	}
	for _, w := range workload.All() {
		cmd.Subcommands = append(cmd.Subcommands, runWorkloadCommand(w))
	}
	w := workload.All()[0]
	cmd.Description = strings.Replace(helpText("run"), "%FLAGS%", flagsText(commonFlags(runWorkloadCommand(w).Flags, w)), 1)
	return cmd
}

// commonFlags returns flags without the parameters of w and the help
// flag: what a command's workload subcommands all take.
func commonFlags(flags []cli.Flag, w *workload.Workload) []cli.Flag {
	params := map[string]bool{"help": true}
	for _, f := range paramFlags(w) {
		params[f.Names()[0]] = true
	}
	var common []cli.Flag
	for _, f := range flags {
		if !params[f.Names()[0]] {
			common = append(common, f)
		}
	}
	return common
}

// flagsText renders flags as the OPTIONS of a command's help do (urfave/cli's
// columns, sorted by name), each line indented by three spaces, for a
// description that lists flags its command's subcommands take.
func flagsText(flags []cli.Flag) string {
	flags = slices.Clone(flags)
	slices.SortFunc(flags, func(a, b cli.Flag) int { return strings.Compare(a.Names()[0], b.Names()[0]) })
	var b strings.Builder
	cli.HelpPrinterCustom(&b, "{{range .VisibleFlags}}   {{.}}\n{{end}}", &cli.Command{Flags: flags}, nil)
	return strings.TrimSuffix(b.String(), "\n")
}

func runWorkloadCommand(w *workload.Workload) *cli.Command {
	argsUsage := "[flags]"
	if len(w.Positional) > 0 {
		argsUsage = "[flags] [<" + strings.Join(w.Positional, "> <") + ">]"
	}
	return &cli.Command{
		Name:        w.Name,
		Usage:       w.Summary,
		ArgsUsage:   argsUsage,
		Description: w.Doc + "\n\nProvenance: " + w.Provenance,
		Flags:       append(append(paramFlags(w), repFlags(formatFlag(runFormatUsage, "text", "json", "original"))...), summaryDetailFlags()...),
		Action: func(c *cli.Context) error {
			return runWorkload(c, w)
		},
	}
}

func runWorkload(c *cli.Context, w *workload.Workload) error {
	given, err := givenParams(c, w)
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	v, warns, err := resolve(w, given, opt.force)
	if err != nil {
		return err
	}
	f := run.NewFile("run", w, []workload.Values{v}, []string{""}, opt.label)
	f.Warnings = warns
	job := run.Job{
		File: f, Name: w.Name, Threads: w.Concurrency(v), Oversubscribe: w.OversubscribeWarn,
		Plan:   harness.StaticPlan(harness.Repeat(opt.n, opt.warmup)),
		Runner: run.Workload(w, []workload.Values{v}, opt.timeout),
		Report: summaryReport(c, opt),
	}
	if opt.format == "original" && w.Original != nil {
		job.After = func(rep results.Rep) {
			if rep.Status == results.StatusOK && !rep.Warmup {
				m := rep.Metrics.Map()
				for _, line := range w.Original(v, workload.Sample{Metrics: m, Series: rep.Series}, m) {
					fmt.Fprintln(c.App.Writer, line)
				}
			}
		}
	}
	return doJob(c, opt, job, run.TerminalOptions{Total: opt.n + opt.warmup, Metric: w.Primary, Unit: unitOf(w, w.Primary)})
}

func unitOf(w *workload.Workload, metric string) string {
	m, _ := w.Metric(metric)
	return m.Unit
}

func joinNames() string { return strings.Join(workload.Names(), ", ") }

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
