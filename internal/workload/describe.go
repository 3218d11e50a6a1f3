package workload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"contend/internal/textfmt"
)

// Describe writes what 'contend list' says of w (its summary, provenance
// and parameters with their defaults) or, long, what 'contend help
// WORKLOAD' says (also its doc, metrics and default timeout).
func (w *Workload) Describe(out io.Writer, long bool) {
	fmt.Fprintf(out, "%s: %s\n", w.Name, w.Summary)
	fmt.Fprintf(out, "  from: %s\n", textfmt.WrapRest(w.Provenance, 72, "        "))
	if long {
		fmt.Fprintf(out, "\n%s\n\n", w.Doc)
		fmt.Fprintln(out, "parameters (default in brackets):")
	}
	indent := strings.Repeat(" ", 27)
	for _, p := range w.Params {
		name := "--" + p.Name + " [" + p.DefaultString() + "]"
		if len(name) > 24 {
			// Too long for its column: on a line of its own.
			name += "\n" + indent[:26]
		}
		fmt.Fprintf(out, "  %-24s %s\n", name, textfmt.WrapRest(p.Usage, 52, indent))
	}
	if long {
		w.describeMetrics(out)
	}
}

// describeMetrics writes w's metrics and its timeout at the defaults.
func (w *Workload) describeMetrics(out io.Writer) {
	fmt.Fprintln(out, "\nmetrics:")
	for _, x := range w.Metrics {
		head := x.Unit
		if x.Better != "" {
			head += ", " + string(x.Better) + " is better"
		}
		fmt.Fprintf(out, "  %s [%s]\n      %s\n", x.Name, head, textfmt.WrapRest(x.Desc, 72, "      "))
	}
	fmt.Fprintln(out, "  (and every repetition's process metrics: real, user, sys, cpu, maxrss, ...;")
	fmt.Fprintln(out, "  maxrss is not the original's: see 'contend help maxrss')")
	if w.Timeout != nil {
		if v, err := w.Resolve(nil); err == nil {
			fmt.Fprintf(out, "\ntimeout: each repetition is killed after %s at the defaults (derived from\nthe parameters; --timeout overrides it)\n", w.Timeout(v).Round(time.Second))
		}
	}
}
