package summary

import (
	"fmt"
	"io"

	"contend/internal/env"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/textfmt"
)

// Show writes what 'contend show' prints of the result file f read from
// path: its name, kind and start, whether it finished, then a sweep's
// analysis, or the kernel and each configuration's summary (and its
// outliers at opt.Detail report.Full), and the file's warnings; opt says
// how much the summaries show.
func Show(w io.Writer, path string, f *results.File, opt Options) error {
	fmt.Fprintln(w, textfmt.WrapRest(fmt.Sprintf("file: %s (%s, %s)", path, f.Kind, f.Start.Format("2006-01-02 15:04:05")), 74, "      "))
	if !f.Complete {
		fmt.Fprintln(w, "note: the run did not finish (interrupted or still running)")
	}
	if f.Kind == "sweep" {
		a, err := sweep.Analyze(f)
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		a.Detail = opt.Detail
		sweep.Report(w, a)
		return nil
	}
	fmt.Fprintf(w, "kernel: %s\n", env.Fingerprint(f.Env)["kernel.release"])
	for i := range f.Configs {
		fmt.Fprintln(w)
		SummaryWith(w, f, i, opt)
		if opt.Detail == report.Full {
			WriteOutliers(w, f, i)
		}
	}
	WriteFileWarnings(w, f)
	return nil
}
