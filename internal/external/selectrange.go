package external

import (
	"fmt"

	"contend/internal/plural"
)

// selectText writes the range lo..hi as --select takes it (0: open).
func selectText(lo, hi int) string {
	switch {
	case lo == hi:
		return fmt.Sprint(lo)
	case hi == 0:
		return fmt.Sprintf("%d..", lo)
	case lo == 0:
		return fmt.Sprintf("..%d", hi)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

// selectRange resolves the --select range lo..hi (0: open) against the
// nall records found, the first metric being first: the records kept
// (from 1, inclusive), a warning when the range was cut to the records
// there are, or an error naming the whole range and why nothing is left:
// no record at all (no line matched the first metric: the wrong --preset
// or log) or a range past the last record.
func selectRange(lo, hi, nall int, first string) (int, int, string, error) {
	asked := selectText(lo, hi)
	if nall == 0 {
		return 0, 0, "", fmt.Errorf("--select %s: the log holds no record: no line matched the first metric, %s (is it the right --preset, or the right log?)", asked, first)
	}
	if lo == 0 {
		lo = 1
	}
	if lo > nall {
		return 0, 0, "", fmt.Errorf("--select %s: the log holds only %s (1..%d)", asked, plural.N(nall, "record", "records"), nall)
	}
	warn := ""
	if hi > nall {
		warn = fmt.Sprintf("--select %s: the log holds only %s: records %s imported", asked, plural.N(nall, "record", "records"), selectText(lo, nall))
	}
	if hi == 0 || hi > nall {
		hi = nall
	}
	return lo, hi, warn, nil
}
