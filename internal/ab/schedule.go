package ab

import (
	"math"

	"contend/analysis"
	"contend/internal/harness"
	"contend/internal/results"
)

// Schedule returns the plan of an A/B run, adaptive with a sequential
// rule seq (nil: fixed): warm-up pairs, then pairs
// in order until pairs are done or the sequential rule stops.
// With a rule, every measured pair is followed by one look (seq.Decide with
// the pair's number, whether or not its repetitions succeeded), the look
// after the last pair included; the second function returns the last
// decision.
func Schedule(order Order, seed uint64, seq *analysis.Sequential, primary string, warmup, pairs int) (func(*results.File) (harness.Slot, bool), func() *analysis.Decision) {
	rng := NewRand(seed)
	var queue []harness.Slot
	pair := 0
	done := false
	var last *analysis.Decision
	next := func(f *results.File) (harness.Slot, bool) {
		if done {
			return harness.Slot{}, false
		}
		if len(queue) == 0 {
			if seq != nil && pair > warmup {
				d, err := seq.Decide(pair-warmup, f.Values(0, primary), f.Values(1, primary))
				if err != nil {
					d = analysis.Decision{N: pair - warmup, NominalAlpha: seq.Levels[pair-warmup], P: math.NaN(), Reason: "no decision: " + err.Error()}
				}
				last = &d
				if d.Stop {
					done = true
					return harness.Slot{}, false
				}
			}
			if pair >= warmup+pairs {
				done = true
				return harness.Slot{}, false
			}
			warm := pair < warmup
			round := pair - warmup
			idx := round
			if warm {
				idx = pair
			}
			// The measured pairs start the pattern afresh after the
			// warm-ups, so that they are balanced by themselves.
			for _, side := range order.Pair(idx, rng) {
				queue = append(queue, harness.Slot{Config: side, Warmup: warm, Round: round})
			}
			pair++
		}
		s := queue[0]
		queue = queue[1:]
		return s, true
	}
	return next, func() *analysis.Decision { return last }
}
