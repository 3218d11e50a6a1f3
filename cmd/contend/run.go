package main

import (
	"encoding/json"
	"fmt"
	"io"
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
		Description: `Runs WORKLOAD -n times (after --warmup uncounted runs), each repetition in a
fresh child process that makes one call into the C workload. Every repetition
is written to the result file (--out) as soon as it ends, with its status, its
metrics and the child's rusage; the file also records the parameters, the
command line and the environment. At the end a summary of every metric is
printed: median with its 95% confidence interval, spread, and failures.

Ctrl-C stops the run, keeps every finished repetition and exits with 130.

Flags of every workload (after the workload's name; its parameters are in
'contend run WORKLOAD --help'):
   -n, --runs N       measured repetitions (default 6: the fewest whose median
                      has a 95% confidence interval; 10 or more narrow it)
   --warmup N         uncounted repetitions run first (default 0)
   -o, --out FILE     result file (default results/WORKLOAD-DATE-TIME.jsonl)
   --timeout D        per-repetition timeout such as 90s or 10m (default:
                      derived from the parameters, see 'contend help WORKLOAD')
   --label TEXT       free text stored with the results
   --format F         text, json, or original (as the original printed it)
   -q, --quiet / -V, --verbose / --force

Examples:
   contend run faultme --threads 40 --mem 1GiB -n 6
   contend run faultme --format original -n 6 --out rt6-patched.json --label 'rt6 + patch'
   contend run faultme --help             the parameters of faultme`,
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
	return cmd
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
		Flags:       append(paramFlags(w), repFlags(formatFlag(runFormatUsage, "text", "json", "original"))...),
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
		File: f, Name: w.Name, Threads: concurrency(w, v), Oversubscribe: w.OversubscribeWarn,
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

// concurrency returns the thread or task count of v: the value of the
// parameter counted in threads, tasks or processes, 0 if none.
func concurrency(w *workload.Workload, v workload.Values) int64 {
	for _, p := range w.Params {
		switch p.Unit {
		case "threads", "tasks", "processes":
			return v.Int(p.Name)
		}
	}
	return 0
}
