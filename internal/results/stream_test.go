package results

import (
	"contend/internal/testsize"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// streamOf yields copies of reps through one Rep and one map, both
// overwritten for each, as an import does: a repetition encoded later
// than it is yielded would come out as a later one.
func streamOf(reps []Rep) func(yield func(*Rep) bool) {
	return func(yield func(*Rep) bool) {
		var r Rep
		var m Values
		for _, x := range reps {
			r = x
			if x.Metrics != nil {
				m = append(m[:0], x.Metrics...)
				r.Metrics = m
			}
			if !yield(&r) {
				return
			}
		}
	}
}

// TestOpenFromSameAsOpen: a file whose repetitions are streamed to
// OpenFrom (after some held in File.Reps, appends in between, in one
// piece or many) holds exactly the bytes Open writes of the File holding
// them all, and File.Reps gets none of them.
func TestOpenFromSameAsOpen(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	dir := t.TempDir()
	for trial := range testsize.Pick(20, 60) {
		f := sampleFile()
		f.Metrics = append(f.Metrics, Metric{Name: "k.ctx"}, Metric{Name: "x<y"}, Metric{Name: "é"})
		f.Configs = append(f.Configs, Config{Name: "b"}, Config{Name: "c"})
		n := rng.IntN(50)
		if trial%10 == 0 {
			n = 20000 + rng.IntN(10000) // several pieces of encodeChunk
		}
		for i := range n {
			f.Reps = append(f.Reps, randomRep(rng, i))
		}
		if n > 0 && rng.IntN(2) == 0 {
			f.Appends = []Segment{{Command: []string{"contend", "run"}, FirstRep: rng.IntN(n + 1)}}
		}
		f.Complete = rng.IntN(3) > 0
		f.End = f.Start.Add(1e9)
		want := filepath.Join(dir, "want.json")
		w, err := Open(want, f, ModeReplace)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		held := rng.IntN(n + 1)
		g := *f
		all := f.Reps
		g.Reps = slices.Clone(all[:held])
		got := filepath.Join(dir, "got.json")
		os.Remove(got)
		w, err = OpenFrom(got, &g, ModeNew, streamOf(all[held:]))
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		a, _ := os.ReadFile(want)
		b, _ := os.ReadFile(got)
		if string(a) != string(b) {
			t.Fatalf("trial %d (%d repetitions, %d held): the streamed file (%d bytes) differs from Open's (%d bytes)", trial, n, held, len(b), len(a))
		}
		if len(w.File.Reps) != held {
			t.Fatalf("File.Reps holds %d repetitions after the stream, want the %d held", len(w.File.Reps), held)
		}
	}
}

// TestOpenFromFailureLeavesNothing: a streamed repetition that cannot be
// written (a NaN value, or the disk full) fails OpenFrom with Open's
// error, stops the stream, and leaves no file behind; ModeAppend takes no
// stream.
func TestOpenFromFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f := bulkFile(0)
	f.Appends = nil
	reps := bulkFile(30000).Reps
	reps[20000].Metrics = ValuesOf(map[string]float64{"time": math.NaN()})
	g := *f
	g.Reps = reps
	_, want := Open(filepath.Join(dir, "want.json"), &g, ModeNew)
	yielded := 0
	stream := func(yield func(*Rep) bool) {
		for i := range reps {
			yielded++
			if !yield(&reps[i]) {
				return
			}
		}
	}
	path := filepath.Join(dir, "r.json")
	_, err := OpenFrom(path, f, ModeNew, stream)
	if err == nil || want == nil || err.Error() != strings.ReplaceAll(want.Error(), "want.json", "r.json") {
		t.Fatalf("OpenFrom: %v; Open: %v", err, want)
	}
	if yielded != 20001 {
		t.Errorf("the stream went on after the failure: %d yielded", yielded)
	}
	reps[20000].Metrics = nil
	defer func() { writeAt = (*os.File).WriteAt }()
	writes := 0
	writeAt = func(fh *os.File, b []byte, off int64) (int, error) {
		if writes++; writes == 2 {
			return 0, syscall.ENOSPC
		}
		return fh.WriteAt(b, off)
	}
	if _, err := OpenFrom(path, f, ModeNew, stream); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("OpenFrom on a full disk: %v", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("files left: %v", names)
	}
	if _, err := OpenFrom(path, f, ModeAppend, stream); err == nil || !strings.Contains(err.Error(), "new file") {
		t.Errorf("OpenFrom ModeAppend with a stream: %v", err)
	}
}

// tallyBefore is what summary.Summary read of a File before the Tally:
// Counts, Values per metric, the notes loop and printFailures' loop.
func tallyBefore(f *File, c int) *Tally {
	t := &Tally{Config: c, Counts: f.Counts(c), Values: map[string][]float64{}, Notes: map[string]int{}}
	for _, m := range f.Metrics {
		if xs := f.Values(c, m.Name); len(xs) > 0 {
			t.Values[m.Name] = xs
		}
	}
	for _, r := range f.Reps {
		if r.Warmup || (c >= 0 && r.Config != c) {
			continue
		}
		for _, n := range r.Notes {
			t.Notes[n]++
		}
	}
	seen := map[string]int{}
	var order []string
	for _, r := range f.Reps {
		if r.Status == StatusOK || r.Status == StatusInterrupted || r.Warmup || (c >= 0 && r.Config != c) {
			continue
		}
		if seen[r.Error] == 0 {
			order = append(order, r.Error)
		}
		seen[r.Error]++
	}
	for _, e := range order {
		t.Failures = append(t.Failures, Failure{e, seen[e]})
	}
	return t
}

// TestTallySameAsBefore: File.Tally of each configuration (and of all)
// of random files counts, collects and orders what the loops of a summary
// did, repetition by repetition.
func TestTallySameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for trial := range 300 {
		f := sampleFile()
		f.Metrics = append(f.Metrics, Metric{Name: "k.ctx"}, Metric{Name: "x<y"}, Metric{Name: "é"})
		f.Configs = append(f.Configs, Config{Name: "b"}, Config{Name: "c"})
		for i := range rng.IntN(60) {
			r := randomRep(rng, i)
			if rng.IntN(3) == 0 {
				r.Error = []string{"", "e1", "e2"}[rng.IntN(3)] // errors that repeat
			}
			f.Reps = append(f.Reps, r)
		}
		for c := -1; c < len(f.Configs); c++ {
			got, want := f.Tally(c), tallyBefore(f, c)
			got.failed = nil
			if !reflect.DeepEqual(got.Counts, want.Counts) || !reflect.DeepEqual(got.Values, want.Values) ||
				!reflect.DeepEqual(got.Notes, want.Notes) || !reflect.DeepEqual(got.Failures, want.Failures) {
				t.Fatalf("trial %d config %d:\n tally  %+v\n before %+v", trial, c, got, want)
			}
		}
	}
}
