package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowAndCompareRepeatedLine: a result file with a repetition line
// written twice. show counts it once and warns naming its index; compare
// uses the one record. With two different records under one index, show
// still shows the file (with the warning) and compare refuses it, naming
// the index. On the old code show reported 9 repetitions for 8.
func TestShowAndCompareRepeatedLine(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "r.json")
	if r := runCLI(t, "exec", "-n", "8", "--metric", `x=x=(\d+)`, "--out", out, "--quiet", "--shell", "--", "echo x=$$"); r.code != 0 {
		t.Fatalf("exec: %d %s", r.code, r.stderr)
	}
	base := filepath.Join(dir, "base.json") // another run: compare names each file's warnings once per run
	if r := runCLI(t, "exec", "-n", "8", "--metric", `x=x=(\d+)`, "--out", base, "--quiet", "--shell", "--", "echo x=$$"); r.code != 0 {
		t.Fatalf("exec: %d %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if !strings.HasPrefix(lines[4], `{"rep":{"index":3,`) {
		t.Fatalf("line 5 is not repetition 3: %q", lines[4])
	}
	twice := filepath.Join(dir, "twice.json")
	os.WriteFile(twice, []byte(strings.Join(lines[:5], "")+lines[4]+strings.Join(lines[5:], "")), 0o644)
	r := runCLI(t, "show", twice)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 8 (8 ok)") || !strings.Contains(flat(r.stdout), "repetition 3 is in the file twice (lines 5, 6), the same record: counted once") {
		t.Errorf("show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "compare", base, twice)
	if r.code != 0 || !strings.Contains(flat(r.stdout), twice+": repetition 3 is in the file twice") {
		t.Errorf("compare with the same record twice: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	if r := runCLI(t, "compare", "--format", "json", base, twice); r.code != 0 || !strings.Contains(r.stdout, `"n_b": 8,`) || strings.Contains(r.stdout, `"n_b": 9,`) {
		t.Errorf("compare --format json: exit %d, want B with 8 values\n%.2000s%s", r.code, r.stdout, r.stderr)
	}

	// Another value under index 3.
	other := strings.Replace(lines[4], `"status":"ok"`, `"status":"failed"`, 1)
	differ := filepath.Join(dir, "differ.json")
	os.WriteFile(differ, []byte(strings.Join(lines, "")+other), 0o644)
	r = runCLI(t, "show", differ)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 8 (8 ok)") || !strings.Contains(flat(r.stdout), "repetition 3 is in the file twice (lines 5, 11) with different records") {
		t.Errorf("show of two different records: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "compare", base, differ)
	if r.code != 2 || !strings.Contains(r.stderr, "repetition 3 is in the file twice") || !strings.Contains(r.stderr, differ) {
		t.Errorf("compare of two different records: exit %d, want 2 naming the file and repetition 3\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// flat joins the lines of wrapped text with single spaces.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
