package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contend/internal/evidence"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/testutil"
)

// foldingCollector is a CountingCollector that keeps the same two folded
// stacks for every repetition (as the profile keeps its last one's).
type foldingCollector struct{ testutil.CountingCollector }

func (*foldingCollector) TakeFolded() map[string]float64 {
	return map[string]float64{"main;spin": 3, "main;wait": 1}
}

// TestDoWritesFoldedStacks: with a collector that keeps folded stacks,
// Do writes one file per side beside the result file (out.a.folded,
// out.b.folded), each the sum over the side's repetitions that count
// (the warm-up left out), and the outcome and End name them.
func TestDoWritesFoldedStacks(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	job.Out = strings.TrimSuffix(job.Out, ".json") + ".jsonl"
	oldOpen := openEvidence
	t.Cleanup(func() { openEvidence = oldOpen })
	openEvidence = func(names []string, _ evidence.Run) *evidence.Set {
		return &evidence.Set{Active: []evidence.Collector{&foldingCollector{}}, Avail: map[string]string{"count": "available"}}
	}
	job.Evidence = []string{"count"}
	// A warm-up of a, then b, a, b, a.
	job.Plan = harness.StaticPlan([]harness.Slot{{Config: 0, Warmup: true, Round: -1}, {Config: 1}, {Config: 0}, {Config: 1, Round: 1}, {Config: 0, Round: 1}})
	o, err := Do(context.Background(), job, &fakeUI{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(job.Out)
	want := []string{filepath.Join(dir, "out.a.folded"), filepath.Join(dir, "out.b.folded")}
	if !slices.Equal(o.Folded, want) {
		t.Fatalf("folded files %q, want %q", o.Folded, want)
	}
	for path, n := range map[string]string{want[0]: "main;spin 6\nmain;wait 2\n", want[1]: "main;spin 6\nmain;wait 2\n"} {
		b, err := os.ReadFile(path)
		if err != nil || string(b) != n {
			t.Errorf("%s: %q (%v), want %q", path, b, err, n)
		}
	}
	var stderr bytes.Buffer
	End(&stderr, o, false)
	for _, p := range want {
		if !strings.Contains(stderr.String(), "folded stacks (flamegraph.pl draws them): "+p+"\n") {
			t.Errorf("End does not name %s:\n%s", p, stderr.String())
		}
	}
}

// TestFoldedStacksCount: a warm-up's or a failed repetition's stacks are
// taken (never left for the next) and not counted; in append mode the
// file's earlier stacks are added, otherwise replaced.
func TestFoldedStacksCount(t *testing.T) {
	set := &evidence.Set{Active: []evidence.Collector{&foldingCollector{}}}
	all := foldedStacks{}
	all.take(set, 0, results.Rep{Status: results.StatusOK, Warmup: true})
	all.take(set, 0, results.Rep{Status: results.StatusFailed})
	if len(all) != 0 {
		t.Fatalf("a warm-up or a failure counted: %v", all)
	}
	all.take(set, 0, results.Rep{Status: results.StatusOK})
	f := &results.File{Configs: []results.Config{{}}}
	out := filepath.Join(t.TempDir(), "run.jsonl")
	for i, c := range []struct {
		mode results.Mode
		want string
	}{
		{results.ModeNew, "main;spin 3\nmain;wait 1\n"},
		{results.ModeAppend, "main;spin 6\nmain;wait 2\n"},
		{results.ModeReplace, "main;spin 3\nmain;wait 1\n"},
	} {
		paths, err := all.write(out, f, c.mode)
		if err != nil || len(paths) != 1 || paths[0] != strings.TrimSuffix(out, ".jsonl")+".folded" {
			t.Fatalf("%d: write: %v, %v", i, paths, err)
		}
		if b, _ := os.ReadFile(paths[0]); string(b) != c.want {
			t.Errorf("%d (mode %d): %q, want %q", i, c.mode, b, c.want)
		}
	}
}

// TestFoldedPath: NAME.SIDE.folded beside the result file; configN where
// the name cannot be a file name's part; NAME.folded for one unnamed
// configuration.
func TestFoldedPath(t *testing.T) {
	ab := &results.File{Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	sweep := &results.File{Configs: []results.Config{{Name: "threads=4"}, {Name: "../x"}}}
	one := &results.File{Configs: []results.Config{{}}}
	for _, c := range []struct {
		out  string
		f    *results.File
		c    int
		want string
	}{
		{"results/ab-1.jsonl", ab, 1, "results/ab-1.b.folded"},
		{"old.json", ab, 0, "old.a.folded"},
		{"x.out", ab, 0, "x.out.a.folded"},
		{"s.jsonl", sweep, 0, "s.config1.folded"},
		{"s.jsonl", sweep, 1, "s.config2.folded"},
		{"r/run.jsonl", one, 0, "r/run.folded"},
	} {
		if got := FoldedPath(c.out, c.f, c.c); got != c.want {
			t.Errorf("FoldedPath(%q, config %d) = %q, want %q", c.out, c.c, got, c.want)
		}
	}
}
