package results

import (
	"strings"
	"testing"
)

// TestRepeatedRepetitionLine: a repetition line written twice is counted
// once, with a warning naming its index and lines; two different records
// of one index are flagged as such (CheckRepeated refuses them); a
// version-1 document is checked the same way. On the old code the
// repeated line was a ninth repetition of eight.
func TestRepeatedRepetitionLine(t *testing.T) {
	f := sampleFile()
	for i := 0; i < 8; i++ {
		f.Reps = append(f.Reps, rep(i))
	}
	b, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// lines[0] is the header; lines[1+i] repetition i.
	twice := strings.Join(lines[:5], "") + lines[4] + strings.Join(lines[5:], "")
	g, err := Parse([]byte(twice))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Reps) != 8 || len(g.Repeated) != 1 || g.Repeated[0].Index != 3 || g.Repeated[0].Differ {
		t.Fatalf("%d repetitions, repeated %+v; want 8, index 3 the same record", len(g.Reps), g.Repeated)
	}
	want := "repetition 3 is in the file twice (lines 5, 6), the same record: counted once"
	if strings.Join(g.Warnings, "|") != want {
		t.Errorf("warnings %q, want %q", g.Warnings, want)
	}
	for i, r := range g.Reps {
		if r.Index != i {
			t.Errorf("repetition %d has index %d", i, r.Index)
		}
	}
	if err := g.CheckRepeated(); err != nil {
		t.Errorf("CheckRepeated of the same record twice: %v", err)
	}

	// A different record under index 3, at the end, and index 5 three
	// times.
	other := strings.Replace(lines[4], `"time":1003`, `"time":9999`, 1)
	if other == lines[4] {
		t.Fatalf("cannot edit the record %q", lines[4])
	}
	mixed := strings.Join(lines[:7], "") + lines[6] + lines[6] + strings.Join(lines[7:], "") + other
	g, err = Parse([]byte(mixed))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Reps) != 8 || len(g.Repeated) != 2 {
		t.Fatalf("%d repetitions, repeated %+v; want 8 and two indexes", len(g.Reps), g.Repeated)
	}
	if v := g.Values(0, "time"); v[3] != 1003 {
		t.Errorf("repetition 3 = %v, want the first record (1003)", v[3])
	}
	ws := strings.Join(g.Warnings, "|")
	for _, w := range []string{
		"repetition 5 is in the file 3 times (lines 7, 8, 9), the same record: counted once",
		"repetition 3 is in the file twice (lines 5, 12) with different records: only the first is counted, and compare refuses the file",
	} {
		if !strings.Contains(ws, w) {
			t.Errorf("warnings %q lack %q", ws, w)
		}
	}
	if err := g.CheckRepeated(); err == nil || !strings.Contains(err.Error(), "repetition 3 ") {
		t.Errorf("CheckRepeated of two different records: %v, want an error naming repetition 3", err)
	}

	// Version 1: one document.
	f.Reps = append(f.Reps, rep(2))
	v1, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err = Parse(v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Reps) != 8 || len(g.Repeated) != 1 || !strings.Contains(strings.Join(g.Warnings, "|"), "repetition 2 is in the file twice, the same record") {
		t.Errorf("version 1: %d repetitions, warnings %q", len(g.Reps), g.Warnings)
	}
}
