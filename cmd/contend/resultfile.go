package main

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
)

// Creating and finishing the result file of a command that runs
// repetitions: run, ab, sweep, exec, import, verify.

// createOut creates the result file given by --out (out), or
// results/NAME-DATE-TIME.json when out is empty, and locks it. An existing
// --out file is refused unless mode says to append to it or replace it; a
// file another contend is writing is always refused. A refusal, or a path
// that cannot be written, is a usage error naming --out, before anything
// runs.
func createOut(out, name string, f *results.File, mode results.Mode) (*results.Writer, error) {
	return createOutFrom(out, name, f, mode, nil)
}

// createOutFrom is createOut of a file whose repetitions after f.Reps are
// yielded by reps (results.OpenFrom).
func createOutFrom(out, name string, f *results.File, mode results.Mode, reps iter.Seq[*results.Rep]) (*results.Writer, error) {
	if out == "" {
		// Two runs started in the same second get -2, -3, ...
		base := defaultOut(strings.ReplaceAll(name, ":", "-"))
		for i := 1; ; i++ {
			out = base + ".json"
			if i > 1 {
				out = fmt.Sprintf("%s-%d.json", base, i)
			}
			wr, err := results.OpenFrom(out, f, results.ModeNew, reps)
			if errors.Is(err, results.ErrExists) || errors.Is(err, results.ErrLocked) {
				continue
			}
			if err != nil {
				return nil, usagef("--out: %v", err)
			}
			return wr, nil
		}
	}
	wr, err := results.OpenFrom(out, f, mode, reps)
	if err != nil {
		return nil, usagef("--out: %v", err)
	}
	return wr, nil
}

func defaultOut(name string) string {
	return filepath.Join("results", fmt.Sprintf("%s-%s", name, time.Now().Format("20060102-150405")))
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
	if lost := wr.Unsaved(); len(lost) > 0 {
		// Said even with --quiet: the summary above counts them.
		fmt.Fprintf(stderr, "contend: %s NOT saved in %s (it holds %d of the %s the summary counts): %v\n",
			repList(lost), wr.Path(), len(wr.File.Reps)-len(lost), plural.N(len(wr.File.Reps), "repetition", "repetitions"), wr.Err())
	}
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

// repList names repetitions by their 1-based numbers: "repetition 27",
// "repetitions 27-30".
func repList(idx []int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("repetition %d", idx[0]+1)
	}
	return fmt.Sprintf("repetitions %d-%d", idx[0]+1, idx[len(idx)-1]+1)
}

// aKind is a result file's kind with its article: "a run", "an import",
// "an exec".
func aKind(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
