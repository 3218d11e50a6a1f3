package workload

import (
	"fmt"
	"strings"

	"contend/internal/limits"
)

// ResolveOn turns the user's texts (given, by parameter name) into
// checked values of w: Resolve, then w.Check against the limits m and
// w.ForValues; the warnings are the decimal-size notes (DecimalSizeNotes)
// and the check's.
func (w *Workload) ResolveOn(given map[string]string, m limits.Machine) (Values, []string, error) {
	v, err := w.Resolve(given)
	if err != nil {
		return nil, nil, err
	}
	warns := w.DecimalSizeNotes(given)
	if w.Check != nil {
		ws, err := w.Check(v, m)
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, ws...)
	}
	if w.ForValues != nil {
		if _, _, err := w.ForValues(v); err != nil {
			return nil, nil, err
		}
	}
	return v, warns, nil
}

// DecimalSizeNotes says, once per parameter, that a size given with a
// decimal unit (KB, MB, GB, TB) is decimal, since K, M, G and T are binary
// here: --mem 1GB is 953.67MiB, --mem 1G is 1GiB.
func (w *Workload) DecimalSizeNotes(given map[string]string) []string {
	var notes []string
	for _, p := range w.Params {
		text := strings.TrimSpace(given[p.Name])
		if p.Kind != Size || text == "" {
			continue
		}
		for _, u := range []string{"KB", "MB", "GB", "TB"} {
			if !strings.HasSuffix(text, u) {
				continue
			}
			n, err := ParseSize(text)
			if err != nil {
				break
			}
			bin := strings.TrimSuffix(text, u) + u[:1] + "iB"
			nb, _ := ParseSize(bin)
			notes = append(notes, fmt.Sprintf("--%s %s is decimal: %d bytes (%s); for %d bytes write %s or %s (K, M, G, T are binary here)",
				p.Name, text, n, FormatSize(n), nb, bin, strings.TrimSuffix(text, "B")))
			break
		}
	}
	return notes
}

// Concurrency returns the thread or task count of v: the value of the
// first parameter counted in threads, tasks or processes, 0 if none.
func (w *Workload) Concurrency(v Values) int64 {
	for _, p := range w.Params {
		switch p.Unit {
		case "threads", "tasks", "processes":
			return v.Int(p.Name)
		}
	}
	return 0
}
