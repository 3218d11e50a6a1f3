package external

import (
	"strings"
	"testing"
)

// TestSelectSays: a --select range is never cut or emptied silently. A log
// where the preset matches nothing says so (it said "--select 2..: only 0
// records", the range cut and the cause unsaid); a range past the last
// record names the whole range and the records there are; a range that
// ends past them imports what there is with a warning (it imported 9 of
// 1..50 without a word).
func TestSelectSays(t *testing.T) {
	p, _ := LookupPreset("time")
	log := "real 1.5\nreal 2.5\nreal 3.5\n"
	if _, _, _, err := Records(p.Metrics, "map=1\ntime = 5 usecs\n", 2, 3); err == nil ||
		!strings.Contains(err.Error(), "--select 2..3: the log holds no record: no line matched the first metric, real (is it the right --preset") {
		t.Errorf("no record: %v", err)
	}
	if _, _, _, err := Records(p.Metrics, log, 5, 0); err == nil || err.Error() != "--select 5..: the log holds only 3 records (1..3)" {
		t.Errorf("past the end: %v", err)
	}
	recs, _, warns, err := Records(p.Metrics, log, 2, 50)
	if err != nil || len(recs) != 2 {
		t.Fatalf("2..50: %d records, %v", len(recs), err)
	}
	found := false
	for _, w := range warns {
		found = found || w == "--select 2..50: the log holds only 3 records: records 2..3 imported"
	}
	if !found {
		t.Errorf("2..50: warnings %q", warns)
	}
	if _, _, warns, _ := Records(p.Metrics, log, 1, 3); len(warns) > 2 {
		t.Errorf("1..3 of 3: warnings %q", warns)
	}
	for _, c := range []struct {
		lo, hi int
		want   string
	}{{2, 2, "2"}, {2, 0, "2.."}, {0, 4, "..4"}, {1, 9, "1..9"}} {
		if got := selectText(c.lo, c.hi); got != c.want {
			t.Errorf("selectText(%d, %d) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
