package workload

import (
	"fmt"
	"io"
	"strings"

	"contend/internal/results"
)

// WriteOriginal writes every successful measured repetition of f as the
// original program printed it ('contend show --format original'):
// rebuilt from the metrics for a built-in workload, the captured output
// for an external program (exec, ab exec, verify). A workload without an
// original format is a *UsageError.
func WriteOriginal(w io.Writer, f *results.File) error {
	if strings.HasPrefix(f.Workload, "exec:") {
		for _, r := range f.Reps {
			if r.Status == results.StatusOK && !r.Warmup {
				fmt.Fprint(w, r.Output)
			}
		}
		return nil
	}
	wl, ok := Lookup(f.Workload)
	if !ok || wl.Original == nil {
		return Usagef("--format original: workload %q has no original output format", f.Workload)
	}
	for _, r := range f.Reps {
		if r.Status != results.StatusOK || r.Warmup {
			continue
		}
		v := Values{}
		for _, p := range f.Configs[r.Config].Params {
			v[p.Name] = p.Value
		}
		v, err := wl.Canonical(v)
		if err != nil {
			return fmt.Errorf("--format original: parameters of configuration %d: %v; was the file edited?", r.Config+1, err)
		}
		m := r.Metrics.Map()
		for _, line := range wl.Original(v, Sample{Metrics: m, Series: r.Series}, m) {
			fmt.Fprintln(w, line)
		}
	}
	return nil
}
