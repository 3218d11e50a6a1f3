package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/external"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/run"
)

// metricFlags are --metric and --preset: for exec, ab exec and verify
// (programs) the presets of programs, for import every preset.
func metricFlags(program bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "NAME=REGEX[:UNIT[:lower|higher]]: a metric read from the first capture group of REGEX; repeatable"},
		presetFlag(program),
	}
}

// presetFlag is --preset, one of the registry's presets
// (external.PresetEnum).
func presetFlag(program bool) *valueFlag {
	e := external.PresetEnum(program)
	return enumFlag("preset", e, "metrics of an original program's output: "+e.Accepted())
}

func execCommand() *cli.Command {
	return &cli.Command{
		Name:        "exec",
		Usage:       "repeat an unmodified external program, reading metrics from its output",
		ArgsUsage:   "[flags] -- PROGRAM [ARGS]",
		Description: strings.ReplaceAll(helpText("exec"), "{{presets}}", strings.Join(external.ProgramPresetNames(), ", ")),
		Flags:       append(append(append(metricFlags(true), shellFlag("run the arguments with /bin/sh -c (joined with spaces)")), repFlags(formatFlag(runFormatUsage, "text", "json", "original"))...), summaryDetailFlags()...),
		Action:      runExec,
	}
}

// metricSpecs returns the metrics asked for with --preset and --metric,
// the primary metric and the preset (external.MetricSpecs).
func metricSpecs(c *cli.Context) ([]external.Spec, string, *external.Preset, error) {
	return external.MetricSpecs(c.String("preset"), c.StringSlice("metric"))
}

func shellFlag(usage string) cli.Flag { return &cli.BoolFlag{Name: "shell", Usage: usage} }

func runExec(c *cli.Context) error {
	specs, primary, err := external.ProgramMetrics(c.String("preset"), c.StringSlice("metric"))
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		return usagef("exec: which program? usage: contend exec [flags] -- PROGRAM [ARGS]")
	}
	argv := args
	if c.Bool("shell") {
		argv = external.ShellArgv(args)
	} else if err := external.CheckProgram("exec", args[0]); err != nil {
		return err
	}
	name := external.Name(args[0], c.Bool("shell"))
	f := run.ExternalFile("exec", name, specs, primary, opt.label)
	f.Configs = []results.Config{run.ProgramConfig("", args, c.Bool("shell"))}
	job := run.Job{
		File: f, Name: name,
		Plan:   harness.StaticPlan(harness.Repeat(opt.n, opt.warmup)),
		Runner: run.Programs(external.Program{Argv: argv, Metrics: specs, Timeout: external.Timeout(opt.timeout)}),
		Report: summaryReport(c, opt),
	}
	if opt.format == "original" {
		job.After = func(rep results.Rep) { printOutput(c.App.Writer, rep) }
	}
	return doJob(c, opt, job, run.TerminalOptions{Total: opt.n + opt.warmup, Metric: primary, Unit: fileUnit(f, primary)})
}

// printOutput prints what the program of a measured repetition printed
// (exec --format original), ended by a newline.
func printOutput(w io.Writer, rep results.Rep) {
	if !rep.Warmup {
		io.WriteString(w, rep.Output)
		if rep.Output != "" && !strings.HasSuffix(rep.Output, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// fileUnit is the unit of f's metric (ns when f does not list it).
func fileUnit(f *results.File, metric string) string {
	if m, ok := f.Metric(metric); ok {
		return m.Unit
	}
	return "ns"
}
