package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/env"
	"contend/internal/export"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/workload"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "summarise a result file",
		ArgsUsage: "FILE",
		Description: `Prints the summary of a result file as 'contend run' printed it at the end:
per metric the median with its 95% confidence interval, spread, failures,
and the outliers: repetitions whose modified z-score (distance from the
median in units of the median absolute deviation, Iglewicz and Hoaglin)
is above 3.5, checked from 4 repetitions on. Outliers are reported, never
dropped; 'contend compare' reports them the same way.

Examples:
   contend show before.json                (made by 'contend run ... --out before.json')
   contend show --format json results/faultme-20261130-101500.jsonl`,
		Flags: []cli.Flag{
			formatFlag("text, json, original, or csv (a sweep's per-point table)", "text", "json", "original", "csv"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("show takes one result file, got %d arguments", c.NArg())
			}
			format := c.String("format")
			f, err := results.Read(c.Args().First())
			if err != nil {
				return &usageError{err.Error()}
			}
			if format == "csv" && f.Kind != "sweep" {
				return usagef("--format csv: %s is %s file; csv is the per-point table of a sweep file", c.Args().First(), aKind(f.Kind))
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
				return showOriginal(c, f)
			case "csv":
				a, err := sweep.Analyze(f)
				if err != nil {
					return err
				}
				return sweep.WriteCSV(w, a)
			}
			fmt.Fprintln(w, wrap(fmt.Sprintf("file: %s (%s, %s)", c.Args().First(), f.Kind, f.Start.Format("2006-01-02 15:04:05")), 74, "      "))
			if !f.Complete {
				fmt.Fprintln(w, "note: the run did not finish (interrupted or still running)")
			}
			if f.Kind == "sweep" {
				a, err := sweep.Analyze(f)
				if err != nil {
					return err
				}
				fmt.Fprintln(w)
				sweep.Report(w, a)
				return nil
			}
			fmt.Fprintf(w, "kernel: %s\n", env.Fingerprint(f.Env)["kernel.release"])
			for i := range f.Configs {
				fmt.Fprintln(w)
				report.Summary(w, f, i)
				report.WriteOutliers(w, f, i)
			}
			report.WriteFileWarnings(w, f)
			return nil
		},
	}
}

// showOriginal prints every successful repetition of f as the original
// program printed it: rebuilt from the metrics for a built-in workload, the
// captured output for an external program (exec, ab exec, verify).
func showOriginal(c *cli.Context, f *results.File) error {
	if strings.HasPrefix(f.Workload, "exec:") {
		for _, r := range f.Reps {
			if r.Status == results.StatusOK && !r.Warmup {
				fmt.Fprint(c.App.Writer, r.Output)
			}
		}
		return nil
	}
	wl, ok := workload.Lookup(f.Workload)
	if !ok || wl.Original == nil {
		return usagef("--format original: workload %q has no original output format", f.Workload)
	}
	for _, r := range f.Reps {
		if r.Status != results.StatusOK || r.Warmup {
			continue
		}
		v := workload.Values{}
		for _, p := range f.Configs[r.Config].Params {
			v[p.Name] = p.Value
		}
		v, err := wl.Canonical(v)
		if err != nil {
			return fmt.Errorf("--format original: parameters of configuration %d: %v; was the file edited?", r.Config+1, err)
		}
		m := r.Metrics.Map()
		for _, line := range wl.Original(v, workload.Sample{Metrics: m, Series: r.Series}, m) {
			fmt.Fprintln(c.App.Writer, line)
		}
	}
	return nil
}
