package run

import (
	"errors"
	"fmt"
	"io"

	"contend/internal/export"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/summary"
	"contend/internal/textfmt"
)

// ErrNoSuccess is End's error when no repetition succeeded.
var ErrNoSuccess = errors.New("no repetition succeeded")

// End ends a command that ran repetitions (outcome o): it names the
// repetitions the file could not keep (even when quiet), warns of
// unstable configurations (UnstableWarnings) and says where the results
// and the profile's folded stacks are; it returns the run's error, or
// ErrNoSuccess when no repetition succeeded.
func End(stderr io.Writer, o Outcome, quiet bool) error {
	wr := o.Out
	if lost := wr.Unsaved(); len(lost) > 0 {
		// Said even with --quiet: the summary above counts them.
		fmt.Fprintf(stderr, "contend: %s NOT saved in %s (it holds %d of the %s the summary counts): %v\n",
			RepList(lost), wr.Path(), len(wr.File.Reps)-len(lost), plural.N(len(wr.File.Reps), "repetition", "repetitions"), wr.Err())
	}
	if !quiet {
		for _, w := range UnstableWarnings(wr.File) {
			fmt.Fprintln(stderr, textfmt.Message("warning: "+w, textfmt.Columns(stderr, 0)))
		}
		fmt.Fprintf(stderr, "results: %s\n", wr.Path())
		for _, p := range o.Folded {
			fmt.Fprintf(stderr, "folded stacks (flamegraph.pl draws them): %s\n", p)
		}
	}
	if o.Err != nil {
		return o.Err
	}
	if wr.File.Counts(-1)[results.StatusOK] == 0 {
		return ErrNoSuccess
	}
	return nil
}

// Summary is the report of run and exec in format (text, json or
// original): the summary of every configuration on stdout (on stderr with
// original, nowhere when quiet too) at detail d (report.Brief: the
// headline, the workload's own metrics and a line counting the rest;
// report.Full adds the outliers), or the file as JSON; then End.
func Summary(stdout, stderr io.Writer, format string, d report.Detail, quiet bool) func(Outcome) error {
	return func(o Outcome) error {
		summaryTo := stdout
		switch format {
		case "original":
			summaryTo = stderr
			if quiet {
				summaryTo = io.Discard
			}
		case "json":
			b, err := export.Marshal(o.Out.File) // the document show --format json prints
			if err != nil {
				return err
			}
			stdout.Write(b)
			summaryTo = io.Discard
		}
		for i := range o.Out.File.Configs {
			if i > 0 {
				fmt.Fprintln(summaryTo)
			}
			summary.SummaryWith(summaryTo, o.Out.File, i, summary.Options{Detail: d, All: d != report.Brief})
			if d == report.Full {
				summary.WriteOutliers(summaryTo, o.Out.File, i)
			}
		}
		return End(stderr, o, quiet)
	}
}

// RepList names repetitions by their 0-based indexes idx, as 1-based
// numbers: "repetition 27", "repetitions 27-30".
func RepList(idx []int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("repetition %d", idx[0]+1)
	}
	return fmt.Sprintf("repetitions %d-%d", idx[0]+1, idx[len(idx)-1]+1)
}
