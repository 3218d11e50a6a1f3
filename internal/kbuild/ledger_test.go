package kbuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedger: builds appended to a builds ledger read back in order
// with their side and patch; a torn last line is skipped and counted,
// a line that is not a build refuses the ledger naming the line.
func TestLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), BuildsFile)
	ks := []Kernel{
		{Revision: strings.Repeat("a", 40), BuildSeconds: 600, Rebuilt: 2000},
		{Revision: strings.Repeat("a", 40), BuildSeconds: 40, Rebuilt: 3, Patch: "fix.patch", PatchSHA256: strings.Repeat("f", 64)},
	}
	for i := range ks {
		if err := Append(path, &ks[i], string(rune('A'+i))); err != nil {
			t.Fatal(err)
		}
	}
	rs, torn, err := ReadLedger(path)
	if err != nil || torn != 0 || len(rs) != 2 || rs[0].Side != "A" || rs[1].Side != "B" || rs[1].Patch != "fix.patch" || rs[0].Rebuilt != 2000 || rs[1].Time.IsZero() {
		t.Fatalf("read back: %+v, torn %d, %v", rs, torn, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","revision":"ab`)
	f.Close()
	if rs, torn, err := ReadLedger(path); err != nil || torn != 1 || len(rs) != 2 {
		t.Errorf("a torn line: %d builds, torn %d, %v", len(rs), torn, err)
	}
	os.WriteFile(path, []byte(`{"time":"2026-01-01T00:00:00Z","build_seconds":3}`+"\n"), 0o644)
	if _, _, err := ReadLedger(path); err == nil || !strings.Contains(err.Error(), "line 1: a build with no revision") {
		t.Errorf("a line that is not a build: %v", err)
	}
	if rs, _, err := ReadLedger(filepath.Join(t.TempDir(), "none")); err != nil || rs != nil {
		t.Errorf("no ledger: %v, %v", rs, err)
	}
}

// TestSummarize: the builds made (the first apart, the median and
// largest of times and objects, totals) and the images kept; the line
// status shows.
func TestSummarize(t *testing.T) {
	if s := Summarize(nil); s != nil {
		t.Errorf("no builds: %+v", s)
	}
	rec := func(secs float64, objs int, kept bool) Record {
		return Record{Kernel: Kernel{Revision: "r", BuildSeconds: secs, Rebuilt: objs, Cached: kept}}
	}
	s := Summarize([]Record{rec(2520, 12000, false), rec(50, 40, false), rec(0, 0, true), rec(65.5, 7, false), rec(48, 90, false)})
	// The first 2520 s, 12000 objects; after it 50, 65.5, 48 s
	// (median 50, max 65.5) and 40, 7, 90 objects (median 40, max 90).
	want := Summary{Builds: 4, Kept: 1, FirstSeconds: 2520, FirstRebuilt: 12000, MedianSeconds: 50, MaxSeconds: 65.5,
		MedianRebuilt: 40, MaxRebuilt: 90, TotalSeconds: 2683.5, TotalRebuilt: 12137}
	if *s != want {
		t.Errorf("Summarize: %+v, want %+v", *s, want)
	}
	line := "kernel builds: 4 (and 1 image kept from earlier builds): the first 42.0 min, 12000 objects rebuilt; the 3 after it: time median 50.0 s, max 65.5 s, objects rebuilt median 40, max 90; total 44.7 min"
	if s.String() != line {
		t.Errorf("the line:\n%s\nwant\n%s", s, line)
	}
	if s := Summarize([]Record{rec(30, 1, false)}); s.String() != "kernel builds: 1: the first 30.0 s, 1 object rebuilt; total 30.0 s" {
		t.Errorf("one build: %s", s)
	}
	if s := Summarize([]Record{rec(0, 0, true)}); s.String() != "kernel builds: 0 (and 1 image kept from earlier builds)" {
		t.Errorf("kept only: %s", s)
	}
}
