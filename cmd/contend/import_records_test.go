package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestImportRecordsStored: each imported record keeps its line (counted
// from the top of the log, --from included) and text as its output, and
// no start time (when it ran is not known): the file's repetitions carry
// none.
func TestImportRecordsStored(t *testing.T) {
	dir := chdirTemp(t)
	log := filepath.Join(dir, "l.txt")
	text := "header\nrun 1: took 10 ns\nnoise\nrun 2: took 12 ns\nrun 3: took 11 ns\n"
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	r := runCLI(t, "import", "-q", "--metric", `time=took (\d+) ns:ns:lower`, "--from", "2", "--out", out, log)
	if r.code != 0 {
		t.Fatalf("import: %d %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[line 2]\nrun 1: took 10 ns\nnoise", "[line 4]\nrun 2: took 12 ns", "[line 5]\nrun 3: took 11 ns"}
	if len(f.Reps) != len(want) {
		t.Fatalf("%d repetitions, want %d", len(f.Reps), len(want))
	}
	for i, rep := range f.Reps {
		if rep.Output != want[i] || !rep.Start.IsZero() || rep.Index != i || rep.Round != i {
			t.Errorf("repetition %d: output %q, start %v, index %d, round %d; want output %q, no start", i, rep.Output, rep.Start, rep.Index, rep.Round, want[i])
		}
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), `"start"`); n != 1 {
		t.Errorf(`"start" written %d times, want once (the header)`, n)
	}
}

// TestImportSelectIsProvenance: which lines and records of a log an
// import read say how its samples were taken, not what was measured: two
// imports of one log with different --select are compared without
// "parameters differ" (which said the change was partly the selection's),
// the selections listed as environment differences, and show says where
// the samples come from.
func TestImportSelectIsProvenance(t *testing.T) {
	chdirTemp(t)
	log := "l.txt"
	var b strings.Builder
	b.WriteString("header\n")
	for i, v := range []int{100, 101, 99, 102, 100, 98, 120, 121, 119, 122, 120, 118} {
		fmt.Fprintf(&b, "run %d: took %d ns\n", i+1, v)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	metric := `time=took (\d+) ns:ns:lower`
	a, bf := "a.json", "b.json"
	if r := runCLI(t, "import", "-q", "--metric", metric, "--select", "1..6", "--out", a, log); r.code != 0 {
		t.Fatalf("import a: %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, "import", "-q", "--metric", metric, "--from", "8", "--select", "1..", "--out", bf, log); r.code != 0 {
		t.Fatalf("import b: %d %s", r.code, r.stderr)
	}
	f, err := results.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	if ps := f.Configs[0].Params; len(ps) != 0 {
		t.Errorf("an import's configuration has parameters %v; want none (log, lines and records are its environment)", ps)
	}
	if e := f.Configs[0].Env; e["log.select"] != "1..6" || e["log.path"] != log || e["log.lines"] != "" {
		t.Errorf("configuration environment %v, want log.path, log.select 1..6, no log.lines", e)
	}
	r := runCLI(t, "compare", "--full", a, bf)
	if r.code != 0 {
		t.Fatalf("compare: %d %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "parameters differ") {
		t.Errorf("compare of two selections of one log says the parameters differ:\n%s", r.stdout)
	}
	for _, want := range []string{"Environment differences:", "log.lines   A (not recorded)  B 8..", "log.select  A 1..6  B 1.."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, "show", bf)
	if want := "log: " + log + ", lines 8.., records 1..\n"; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("show: %d, lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}
