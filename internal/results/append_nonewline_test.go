package results

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAppendAfterMissingNewline: a run killed after the last byte of a
// record but before its newline leaves a file that reads whole; --append
// to it ends that line before its own records, so that the file still
// reads, with every repetition (it wrote the segment record right after
// the last one: "line 3: invalid character '{' after top-level value").
func TestAppendAfterMissingNewline(t *testing.T) {
	for _, n := range []int{0, 2} { // the header line, a repetition's
		path := filepath.Join(t.TempDir(), "r.json")
		w, err := Create(path, sampleFile())
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.Add(rep(i)); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Read(path); err != nil || len(f.Reps) != n {
			t.Fatalf("%d repetitions, the newline cut: %v", n, err)
		}
		w, err = Open(path, sampleFile(), ModeAppend)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(rep(n)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path)
		if err != nil || len(f.Reps) != n+1 || len(f.Appends) != 1 || f.Appends[0].FirstRep != n {
			t.Fatalf("%d repetitions, the newline cut, then one appended: %v", n, err)
		}
	}
}
