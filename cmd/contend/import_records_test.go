package main

import (
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
