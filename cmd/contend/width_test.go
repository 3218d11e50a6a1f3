package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fitsWidth reports every line of out (what name printed) wider than
// width that is more than one word: the rule is that text wraps between
// words and tables split into groups of columns, so only a word longer
// than the line may pass it.
func fitsWidth(t *testing.T, name, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > width && len(strings.Fields(l)) > 1 {
			t.Errorf("%s at %d columns: a line of %d: %q", name, width, n, l)
		}
	}
}

// tableRows checks the per-point tables of a sweep report: every line of
// a table (from its header, "threads ...", to the next blank line or
// text) starts with the header's first word or a point's name, so that
// no value is orphaned on a line of its own.
func tableRows(out string, points []string) int {
	rows := 0
	in := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 1 && f[0] == "threads":
			in = true
			rows++
		case in && len(f) > 1 && slices.Contains(points, f[0]):
			rows++
		default:
			in = false
		}
	}
	return rows
}

// TestOutputsFitTheWidth: at 80 and at 100 columns ($COLUMNS) a sweep's
// report (as the sweep prints it, and show --all and --full with their
// evidence tables, which ran to 101 columns and wrapped into orphaned
// values), a run's warnings on stderr, check's report and reproduce's
// plan keep every line within the width but for a single long word; a
// sweep's tables split into groups of columns that each start with the
// points.
func TestOutputsFitTheWidth(t *testing.T) {
	mail, err := filepath.Abs("../../internal/robotmail/testdata/real/will-it-scale-context_switch1-5e963f2bd4.mail")
	if err != nil {
		t.Fatal(err)
	}
	dir := chdirTemp(t)
	file := filepath.Join(dir, "sweep.jsonl")
	points := []string{"1", "2", "3"}
	t.Setenv("COLUMNS", "80")
	sw := runCLI(t, "sweep", "faultme", "--mem", "1MiB", "--threads", strings.Join(points, ","), "-n", "3", "--all", "--out", file)
	if sw.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", sw.code, sw.stderr)
	}
	fitsWidth(t, "sweep --all", sw.stdout, 80)
	fitsWidth(t, "sweep's stderr", sw.stderr, 80)
	for _, width := range []int{80, 100} {
		t.Setenv("COLUMNS", fmt.Sprint(width))
		var wide int
		for _, detail := range []string{"--all", "--full"} {
			r := runCLI(t, "show", detail, file)
			if r.code != 0 {
				t.Fatalf("show %s: exit %d %s", detail, r.code, r.stderr)
			}
			fitsWidth(t, "show "+detail, r.stdout, width)
			// Each table's rows: a header and one row per point, in
			// every group of columns.
			rows := tableRows(r.stdout, points)
			if rows%(len(points)+1) != 0 || rows < 4*(len(points)+1) {
				t.Errorf("show %s at %d: %d table lines, not groups of a header and %d points:\n%s", detail, width, rows, len(points), r.stdout)
			}
			if !strings.Contains(r.stdout, "kernel evidence per point") {
				t.Errorf("show %s: no evidence tables:\n%s", detail, r.stdout)
			}
			wide = max(wide, rows)
		}
		t.Logf("%d columns: %d table lines", width, wide)

		// A run's warnings: 64 threads oversubscribe the CPUs here.
		run := runCLI(t, "run", "faultme", "--threads", "64", "--mem", "1MiB", "-n", "3", "--out", filepath.Join(dir, fmt.Sprintf("run%d.jsonl", width)))
		if run.code != 0 {
			t.Fatalf("run: exit %d %s", run.code, run.stderr)
		}
		fitsWidth(t, "run's stderr", run.stderr, width)
		if runtime.NumCPU() < 64 && !regexp.MustCompile(`(?m)^warning: 64 threads on .*\n  \S`).MatchString(run.stderr) && width == 80 {
			t.Errorf("the oversubscription warning is not wrapped at 80:\n%s", run.stderr)
		}

		r := runCLI(t, "check")
		if r.code != 0 {
			t.Fatalf("check: exit %d %s", r.code, r.stderr)
		}
		fitsWidth(t, "check", r.stdout, width)

		r = runCLI(t, "reproduce", mail, "--tests", dir)
		if r.code != 0 {
			t.Fatalf("reproduce: exit %d %s", r.code, r.stderr)
		}
		fitsWidth(t, "reproduce's plan", r.stdout, width)
		// The plan's commands, broken between words with " \", are the
		// commands unwrapped.
		t.Setenv("COLUMNS", "1000")
		whole := runCLI(t, "reproduce", mail, "--tests", dir)
		want := regexp.MustCompile(`(?m)^ +contend .*$`).FindAllString(whole.stdout, -1)
		got := regexp.MustCompile(`(?m)^ +contend (.* \\\n)*.*$`).FindAllString(r.stdout, -1)
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("the plan's commands: %d wrapped, %d whole:\n%s", len(got), len(want), r.stdout)
		}
		for i := range want {
			if j := strings.Join(strings.Fields(strings.ReplaceAll(got[i], " \\\n", " ")), " "); j != strings.TrimSpace(want[i]) {
				t.Errorf("at %d columns, a command of the plan reads\n%s\nnot\n%s", width, j, strings.TrimSpace(want[i]))
			}
		}
	}
}
