package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTornFileWarned: a result file whose last record was torn (a killed
// writer) reads with a warning, and show and compare print it, once per
// file.
func TestTornFileWarned(t *testing.T) {
	dir := chdirTemp(t)
	var paths []string
	for _, n := range []string{"a.json", "b.json"} {
		p := filepath.Join(dir, n)
		if r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "5", "-q", "--out", p); r.code != 0 {
			t.Fatalf("run: exit %d: %s", r.code, r.stderr)
		}
		paths = append(paths, p)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = lines[:len(lines)-1]             // the empty string after the last newline
	lines = lines[:len(lines)-1]             // the end record
	last := lines[len(lines)-1]              // the 5th repetition
	lines[len(lines)-1] = last[:len(last)/2] // torn in its middle
	if err := os.WriteFile(paths[0], []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	const torn = "a.json: the last record of the file"
	r := runCLI(t, "show", paths[0])
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 4") {
		t.Fatalf("show: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(tornOneLine(r.stdout), "warning: the last record of the file"); n != 1 {
		t.Errorf("show says the torn record %d times, want once:\n%s", n, r.stdout)
	}
	r = runCLI(t, "compare", paths[0], paths[1])
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(tornOneLine(r.stdout), torn); n != 1 {
		t.Errorf("compare says the torn record %d times, want once:\n%s", n, r.stdout)
	}
	r = runCLI(t, "compare", paths[0]+":0", paths[0]+":0")
	if n := strings.Count(tornOneLine(r.stdout), torn); n != 1 {
		t.Errorf("compare of one file with itself says the torn record %d times, want once:\n%s%s", n, r.stdout, r.stderr)
	}
}

// tornOneLine joins the wrapped lines of s with single spaces.
func tornOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
