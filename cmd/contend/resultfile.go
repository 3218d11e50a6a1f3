package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/report"
	"contend/internal/results"
)

// Creating and finishing the result file of a command that runs
// repetitions: run, ab, sweep, exec, import, verify.

// createOut creates the result file given by --out (out), or
// results/NAME-DATE-TIME.json when out is empty. A path that cannot be
// written is a usage error naming --out.
func createOut(out, name string, f *results.File) (*results.Writer, error) {
	if out == "" {
		out = defaultOut(strings.ReplaceAll(name, ":", "-"))
	}
	wr, err := results.Create(out, f)
	if err != nil {
		return nil, usagef("--out: %v", err)
	}
	return wr, nil
}

func defaultOut(name string) string {
	return filepath.Join("results", fmt.Sprintf("%s-%s.json", name, time.Now().Format("20060102-150405")))
}

// finishReps closes the result file and prints the summary as run does.
func finishReps(c *cli.Context, wr *results.Writer, opt repOptions, runErr error) error {
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if ferr := wr.Finish(time.Now(), runErr == nil); ferr != nil && runErr == nil {
		runErr = ferr
	}
	summaryTo := stdout
	switch opt.format {
	case "original":
		summaryTo = stderr
		if opt.quiet {
			summaryTo = io.Discard
		}
	case "json":
		b, err := results.Marshal(wr.File)
		if err != nil {
			return err
		}
		stdout.Write(b)
		summaryTo = io.Discard
	}
	for i := range wr.File.Configs {
		if i > 0 {
			fmt.Fprintln(summaryTo)
		}
		report.Summary(summaryTo, wr.File, i)
	}
	return endRun(stderr, wr, opt.quiet, runErr)
}

// endRun ends a command that ran repetitions: it says where the results
// are and returns runErr, or a failure when no repetition succeeded.
func endRun(stderr io.Writer, wr *results.Writer, quiet bool, runErr error) error {
	if !quiet {
		for _, w := range unstableWarnings(wr.File) {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		fmt.Fprintf(stderr, "results: %s\n", wr.Path())
	}
	if runErr != nil {
		return runErr
	}
	if wr.File.Counts(-1)[results.StatusOK] == 0 {
		return cli.Exit("no repetition succeeded", exitFailure)
	}
	return nil
}
