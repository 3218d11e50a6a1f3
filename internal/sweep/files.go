package sweep

import (
	"fmt"
	"io"

	"contend/analysis"
	"contend/internal/results"
)

// CompareFiles compares sweep files curve against curve: each file after
// the first against the first (CompareCurves), on metric (metrics: at
// most one; none: the throughput), as text (format). names are the
// files' names on the command line. Every error is one of the command
// line: a format, a file that is no sweep, one file, two metrics.
func CompareFiles(w io.Writer, files []*results.File, names []string, format string, metrics []string, opt analysis.CompareOptions) error {
	if format != "text" {
		return fmt.Errorf("--format %s: sweep files are compared as text; use 'contend show --format csv' for their tables", format)
	}
	for i, f := range files {
		if f.Kind != "sweep" {
			other := names[0]
			if i == 0 {
				other = names[1]
			}
			return fmt.Errorf("%s is not a sweep (it is %s file) but %s is: a sweep is compared only with another sweep, or compare one point as %s:NAME",
				names[i], results.AKind(f.Kind), other, other)
		}
	}
	if len(files) < 2 {
		return fmt.Errorf("compare needs at least two sweep files")
	}
	if len(metrics) > 1 {
		return fmt.Errorf("--metric: give one metric for a curve comparison")
	}
	metric := ""
	if len(metrics) == 1 {
		metric = metrics[0]
	}
	for i := 1; i < len(files); i++ {
		if i > 1 {
			fmt.Fprintln(w)
		}
		if err := CompareCurves(w, files[0], files[i], CurveOptions{Metric: metric, Compare: opt}); err != nil {
			return err
		}
	}
	return nil
}
