package harness

import (
	"fmt"

	"contend/internal/results"
)

// Slot is one planned repetition: which configuration, whether it is a
// warm-up (run and kept in the file but not counted), and its round.
type Slot struct {
	Config int
	Warmup bool
	Round  int
}

// StaticPlan returns a plan (the next slot to run, given the file so far,
// or false when done) that yields slots in order.
func StaticPlan(slots []Slot) func(*results.File) (Slot, bool) {
	i := 0
	return func(*results.File) (Slot, bool) {
		if i >= len(slots) {
			return Slot{}, false
		}
		i++
		return slots[i-1], true
	}
}

// Repeat returns warmup warm-up slots then n measured slots of config 0.
func Repeat(n, warmup int) []Slot {
	var s []Slot
	for i := 0; i < warmup; i++ {
		s = append(s, Slot{Warmup: true})
	}
	for i := 0; i < n; i++ {
		s = append(s, Slot{Round: i})
	}
	return s
}

// ErrInterrupted is returned by a run of repetitions when its context was
// cancelled (Ctrl-C).
var ErrInterrupted = fmt.Errorf("interrupted")
