package harness

import (
	"context"
	"path/filepath"
	"testing"

	"contend/internal/results"
)

// TestSessionRunner checks the Runner hook: it replaces RunRep, the slot
// is recorded on its repetition, the runner's output is kept and a
// prepare command's output goes to the notes.
func TestSessionRunner(t *testing.T) {
	f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Kind: "ab", Workload: "exec:x",
		Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	wr, err := results.Create(filepath.Join(t.TempDir(), "s.json"), f)
	if err != nil {
		t.Fatal(err)
	}
	var ran []int
	s := &Session{
		Out:  wr,
		Next: StaticPlan([]Slot{{Config: 0, Warmup: true}, {Config: 1, Round: 0}, {Config: 0, Round: 1}}),
		Before: func(_ context.Context, s Slot) (string, error) {
			if s.Config == 1 {
				return "prepared\n", nil
			}
			return "", nil
		},
		Runner: func(_ context.Context, s Slot) Outcome {
			ran = append(ran, s.Config)
			return Outcome{Rep: results.Rep{Status: results.StatusOK, Output: "out", Metrics: results.ValuesOf(map[string]float64{"real": 1})}}
		},
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	reps := wr.File.Reps
	if len(ran) != 3 || len(reps) != 3 {
		t.Fatalf("ran %v, recorded %d", ran, len(reps))
	}
	for i, want := range []Slot{{Config: 0, Warmup: true}, {Config: 1}, {Config: 0, Round: 1}} {
		r := reps[i]
		if r.Index != i || r.Config != want.Config || r.Warmup != want.Warmup || r.Round != want.Round || r.Output != "out" {
			t.Errorf("rep %d: %+v, want slot %+v and the runner's output", i, r, want)
		}
	}
	if len(reps[1].Notes) != 1 || reps[1].Notes[0] != "prepare output: prepared" || len(reps[0].Notes) != 0 {
		t.Errorf("notes %q %q", reps[0].Notes, reps[1].Notes)
	}
}
