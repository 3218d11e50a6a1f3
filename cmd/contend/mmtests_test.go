package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareMmtestsGolden checks compare --format mmtests on the seed
// files: mmtests' header (run names split at their first '-'), the
// statistics' rows, the stars of contend's test (--star mmtests: of
// mmtests' band rule) and contend's footer.
func TestCompareMmtestsGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare-mmtests-rostedt", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json"}},
		{"compare-mmtests-semop-bands", []string{"--star", "mmtests", seeds + "galbraith-semop-rt.json", seeds + "galbraith-semop-rtm.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := golden(t, c.name, 0, append([]string{"compare", "--format", "mmtests"}, c.args...)...)
			lines := strings.Split(r.stdout, "\n")
			if len(lines) < 8 || !strings.HasPrefix(lines[2], "Min ") || !strings.Contains(lines[2], "(   0.00%)") {
				t.Errorf("not mmtests' table:\n%s", r.stdout)
			}
		})
	}
}

// TestMmtestsFlags checks that --star goes with --format mmtests only and
// takes contend or mmtests, each refusal one line and exit 2.
func TestMmtestsFlags(t *testing.T) {
	a, b := seeds+"rostedt-without.json", seeds+"rostedt-with.json"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--star", "mmtests", a, b}, "--star: goes with --format mmtests"},
		{[]string{"compare", "--format", "lkml", "--star", "contend", a, b}, "--star: goes with --format mmtests"},
		{[]string{"compare", "--format", "mmtests", "--star", "welch", a, b}, "--star"},
		{[]string{"compare", "--format", "mmtests", "--full", a, b}, "--full: goes with --format text"},
		{[]string{"import", "mmtests"}, "takes one export file"},
		{[]string{"import", "mmtests", "--benchmark", "x", seeds + "rostedt-with.json"}, "--benchmark and --mmtests go with a work/log directory"},
		{[]string{"import", "mmtests", seeds + "rostedt-with.json"}, "no run in it"},
	} {
		r := runCLI(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestImportMmtestsCompare imports mmtests' JSON export of three runs and
// compares them in mmtests' layout: one file per run, named after it; the
// header is mmtests' (the -rc3 kept with the version), the values are
// printed with the export's DecimalPlaces, and contend's test stars the
// two cells its data were drawn to change.
func TestImportMmtestsCompare(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "import", "mmtests", "--out-dir", dir, "--unit", "s", "../../examples/mmtests-hackbench.json")
	if r.code != 0 {
		t.Fatalf("import mmtests: exit %d: %s", r.code, r.stderr)
	}
	var files []string
	for _, n := range []string{"vanilla", "patched", "revert"} {
		f := filepath.Join(dir, "mmtests-hackbench-6.2.0-rc3-"+n+".jsonl")
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("no file of run %s: %v\n%s", n, err, r.stdout)
		}
		files = append(files, f)
	}
	again := runCLI(t, "import", "mmtests", "--out-dir", dir, "../../examples/mmtests-hackbench.json")
	if again.code != 2 || !strings.Contains(again.stderr, "--replace") {
		t.Errorf("import over existing files: exit %d, %q", again.code, again.stderr)
	}
	c := runCLI(t, append([]string{"compare", "--format", "mmtests"}, files...)...)
	if c.code != 0 {
		t.Fatalf("compare: exit %d: %s", c.code, c.stderr)
	}
	lines := strings.Split(c.stdout, "\n")
	if f := strings.Fields(lines[0]); len(f) != 3 || f[0] != "6.2.0-rc3" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[1]); strings.Join(f, " ") != "vanilla patched revert" {
		t.Errorf("header %q", lines[1])
	}
	// The values of time-16 with 4 decimals, as the export says.
	if !strings.Contains(c.stdout, "Amean     time-16            6.1202 (   0.00%)            5.6779 *   7.23%*            6.1126 (   0.12%)") {
		t.Errorf("no starred time-16 row as mmtests prints it:\n%s", c.stdout)
	}
	if n := strings.Count(c.stdout, "*  Amean"); n != 2 {
		t.Errorf("%d starred cells in the footer, want 2:\n%s", n, c.stdout)
	}
	if !strings.Contains(c.stdout, "units: time-1 s") {
		t.Errorf("the footer does not name the unit:\n%s", c.stdout)
	}
}

// TestABMmtests runs ab exec with --format mmtests: the table of the two
// sides, named a and b, and the footer of mmtests' band rule.
func TestABMmtests(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "ab", "exec", "--order", "ab", "--a", "/bin/echo a", "--b", "/bin/echo b", "-n", "3", "-q",
		"--format", "mmtests", "--star", "mmtests", "--out", filepath.Join(dir, "ab.json"))
	if r.code != 0 {
		t.Fatalf("ab exec --format mmtests: exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 9 || strings.Join(strings.Fields(lines[1]), " ") != "a b" || !strings.HasPrefix(lines[2], "Min       real ") ||
		!strings.Contains(r.stdout, "contend: n a 3 runs, b 3 runs of real") || !strings.Contains(r.stdout, "star: mmtests' band rule") {
		t.Errorf("not mmtests' table of a and b:\n%s", r.stdout)
	}
}

// TestImportMmtestsRealExport imports mmtests' own --json-export of a
// log tree and prints it with --star mmtests: the table is mmtests' own
// (compare-mmtests.pl on the same tree, testdata/log.mmtests.txt),
// character for character.
func TestImportMmtestsRealExport(t *testing.T) {
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd to read mmtests' export")
	}
	td := "../../internal/mmtestsimport/testdata/"
	dir := t.TempDir()
	if r := runCLI(t, "import", "mmtests", "-q", "--out-dir", dir, td+"hackbench-process-pipes.json.zst"); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	f := func(n string) string { return filepath.Join(dir, "mmtests-hackbench-process-pipes-6.2.0-"+n+".jsonl") }
	r := runCLI(t, "compare", "--format", "mmtests", "--star", "mmtests", f("vanilla"), f("patched"))
	want, err := os.ReadFile(td + "log.mmtests.txt")
	if err != nil {
		t.Fatal(err)
	}
	if table, _, _ := strings.Cut(r.stdout, "\n\n"); r.code != 0 || table+"\n" != string(want) {
		t.Errorf("exit %d; table\n%s\nwant mmtests'\n%s", r.code, table, want)
	}
}
