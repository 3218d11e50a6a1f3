package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/mmtestsimport"
	"contend/internal/results"
	"contend/internal/run"
)

func importMmtestsCommand() *cli.Command {
	return &cli.Command{
		Name:        "mmtests",
		Usage:       "turn mmtests' results (a compare-mmtests.pl --json-export file, a work/log tree) into result files, one per run",
		ArgsUsage:   "[flags] EXPORT.json[.xz|.zst|.gz] | WORK-LOG-DIR",
		Description: helpText("import-mmtests"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out-dir", Usage: "directory of the result files, one per run: mmtests-BENCH-NAME.jsonl (default results)"},
			&cli.BoolFlag{Name: "replace", Usage: "overwrite result files that exist"},
			&cli.StringFlag{Name: "benchmark", Aliases: []string{"b"}, Usage: "a log tree: the benchmark to read (a directory under iter-N/; needed when a run has several)"},
			&cli.StringFlag{Name: "mmtests", Usage: "a log tree: an mmtests checkout whose shellpack parse-results read the logs (without it: the benchmarks contend reads itself: hackbench)"},
			&cli.StringFlag{Name: "unit", Value: "value", Usage: "the unit of the values, as mmtests' files do not say it (such as s, us, ops/s)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the files' names"},
		},
		Action: runImportMmtests,
	}
}

var fileWord = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

func runImportMmtests(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("import mmtests takes one export file or work/log directory, got %d arguments", c.NArg())
	}
	path := c.Args().First()
	st, err := os.Stat(path)
	if err != nil {
		return usagef("import mmtests: %v", err)
	}
	unit := strings.TrimSpace(c.String("unit"))
	if unit == "" || len(unit) > 32 || strings.ContainsAny(unit, "\x00\n\t") {
		return usagef("--unit: %q: accepted: a short unit name such as s, us or ops/s", c.String("unit"))
	}
	var runs []mmtestsimport.Run
	if st.IsDir() {
		runs, err = mmtestsimport.ReadLogTree(path, mmtestsimport.LogOptions{Benchmark: c.String("benchmark"), Mmtests: c.String("mmtests")})
	} else {
		if c.IsSet("benchmark") || c.IsSet("mmtests") {
			return usagef("--benchmark and --mmtests go with a work/log directory, not an export file (%s)", path)
		}
		runs, err = mmtestsimport.ReadJSON(path)
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	dir := c.String("out-dir")
	if dir == "" {
		dir = "results"
	}
	if c.IsSet("out-dir") && strings.TrimSpace(dir) == "" {
		return usagef("--out-dir: empty path; accepted: a directory such as results")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out-dir %s: %v", dir, err)
	}
	mode := results.ModeNew
	if c.Bool("replace") {
		mode = results.ModeReplace
	}
	var outs []string
	for _, r := range runs {
		f := run.ExternalFile("import", "mmtests-"+r.Benchmark, nil, "", "")
		r.Fill(f, unit)
		f.Env = map[string]string{}
		f.End, f.Complete = time.Now(), true
		out := filepath.Join(dir, fmt.Sprintf("mmtests-%s-%s.jsonl", fileWord.ReplaceAllString(r.Benchmark, "_"), fileWord.ReplaceAllString(r.Name, "_")))
		wr, err := run.Open(out, "", f, mode, nil)
		if err != nil {
			return usagef("%v (--replace to overwrite)", err)
		}
		if err := wr.Close(); err != nil {
			return err
		}
		outs = append(outs, out)
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.Writer, "%s: run %s, %s, %d operations, %d values\n", out, quoteName(r.Name), r.Benchmark, len(r.Ops), len(f.Reps))
		} else {
			fmt.Fprintln(c.App.Writer, out)
		}
	}
	if !c.Bool("quiet") && len(outs) > 1 {
		fmt.Fprintf(c.App.Writer, "compare them: contend compare %s --format mmtests\n", strings.Join(outs, " "))
	}
	return nil
}

// quoteName is a run's name as printed: escaped.
func quoteName(s string) string { return fmt.Sprintf("%q", s) }
