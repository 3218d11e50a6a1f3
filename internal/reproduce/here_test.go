package reproduce

import (
	"os"
	"strings"
	"testing"

	"contend/internal/robotmail"
)

// TestParseCPUList checks the count of a kernel CPU list, at least 1.
func TestParseCPUList(t *testing.T) {
	for in, want := range map[string]int{"0": 1, "0-3": 4, "0-3,8": 5, "0,2,4-5": 4, "": 1, "x": 1, "0-x,2": 1} {
		if got := parseCPUList(in); got != want {
			t.Errorf("parseCPUList(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestQuotedRow checks the robot's row as lkml quotes it: ± N% read back
// as N+0.5 (the robot truncates), 0 as none, its own %change kept.
func TestQuotedRow(t *testing.T) {
	q := quotedRow(robotmail.Row{Stat: "x", Base: 100, BaseSD: 2, New: 50, Change: -50})
	if q.Base.StdDev != 2.5 || q.New.StdDev != 0 || !q.FixedChange || q.Change != -50 {
		t.Errorf("quoted row %+v", q)
	}
}

// TestCheckRun checks the refusals of --run: no --tests, no such test
// there; and a test that is there taken.
func TestCheckRun(t *testing.T) {
	dir := t.TempDir()
	rep := mail(t, "linus-futex4.mail")
	p, err := Make(rep, Machine{CPUs: 8}, Options{Tests: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckRun(rep, ""); err == nil || !strings.Contains(err.Error(), "give --tests DIR") {
		t.Errorf("no --tests: %v", err)
	}
	if err := p.CheckRun(rep, dir); err == nil || !strings.Contains(err.Error(), "no futex4.c there") {
		t.Errorf("no test: %v", err)
	}
	if err := os.WriteFile(p.TestFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.CheckRun(rep, dir); err != nil {
		t.Errorf("test there: %v", err)
	}
}
