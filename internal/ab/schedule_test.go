package ab

import (
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/harness"
	"contend/internal/results"
)

// runPlan drives next as a Session would: each slot becomes a repetition
// of f with the primary metric "time" from value, or a failed one when
// fail says so. It returns the number of measured repetitions.
func runPlan(t *testing.T, f *results.File, next func(*results.File) (harness.Slot, bool), value func(harness.Slot) float64, fail func(i int) bool) int {
	t.Helper()
	n := 0
	for i := 0; i < 1000; i++ {
		s, ok := next(f)
		if !ok {
			if _, again := next(f); again {
				t.Fatalf("plan goes on after it stopped")
			}
			return n
		}
		rep := results.Rep{Index: len(f.Reps), Config: s.Config, Warmup: s.Warmup, Round: s.Round, Status: results.StatusOK,
			Metrics: results.ValuesOf(map[string]float64{"time": value(s)})}
		if !s.Warmup {
			if fail(n) {
				rep.Status, rep.Metrics = "failed", nil
			}
			n++
		}
		f.Reps = append(f.Reps, rep)
	}
	t.Fatalf("plan never stops")
	return 0
}

// TestScheduleTakesLastLook checks that the adaptive plan takes the look
// after the last pair (before, "reached the maximum" was unreachable and
// the stop line could contradict the table), and that a failed repetition
// does not add a look: the looks follow the pairs.
func TestScheduleTakesLastLook(t *testing.T) {
	seq, err := analysis.NewSequential(0.05, 3, 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	newFile := func() *results.File {
		return &results.File{Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	}
	// A/A values that never separate: the run must end at pair 6 with the
	// look after it.
	f := newFile()
	next, decision := Schedule(OrderAB, 1, seq, "time", 1, seq.MaxRuns)
	k := 0
	reps := runPlan(t, f, next, func(harness.Slot) float64 { k++; return float64(k % 7) }, func(int) bool { return false })
	d := decision()
	if reps != 12 || d == nil || d.N != 6 || !d.Stop || !strings.Contains(d.Reason, "maximum of 6") {
		t.Fatalf("A/A: %d repetitions, last decision %+v", reps, d)
	}
	// Side B far above A: decided at the last look at the latest.
	f = newFile()
	next, decision = Schedule(OrderAB, 1, seq, "time", 0, seq.MaxRuns)
	k = 0
	runPlan(t, f, next, func(s harness.Slot) float64 { k++; return float64(k + 1000*s.Config) }, func(int) bool { return false })
	if d := decision(); d == nil || !d.Significant || d.N > 6 {
		t.Fatalf("clear difference: %+v", d)
	}
	// One failed repetition of B in pair 2: the look after pair 6 is the
	// last one, with 6+5 values.
	f = newFile()
	next, decision = Schedule(OrderAB, 1, seq, "time", 0, seq.MaxRuns)
	k = 0
	reps = runPlan(t, f, next, func(harness.Slot) float64 { k++; return float64(k % 7) }, func(i int) bool { return i == 3 })
	d = decision()
	if reps != 12 || d == nil || d.N != 6 || d.NA != 6 || d.NB != 5 || d.NominalAlpha != seq.Levels[6] {
		t.Fatalf("with a failed run: %d repetitions, last decision %+v", reps, d)
	}
}
