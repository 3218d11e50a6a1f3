package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"contend/analysis"
)

// Verdicts of Classify, with the exit status of 'git bisect run'.
const (
	VerdictGood = "good" // exit 0
	VerdictBad  = "bad"  // exit 1
	VerdictSkip = "skip" // exit 125: it cannot be measured, or the runs did not decide
)

// Verdict is contend's verdict on one commit for 'git bisect run'.
type Verdict struct {
	Verdict string
	// PBad is the probability that the commit is on the bad side (1/2
	// prior), from its values against the ends'; NaN when skipped
	// before any value.
	PBad   float64
	Runs   int
	Reason string
	Stop   string // StopNoDifference when the ends do not differ
}

// Classify decides whether commit i of the range is good or bad: the
// ends are calibrated first (once: their values stay in the ledger for
// the next commit), then commit i is measured in batches until the
// probability that it is bad, from its values against the ends' (the
// split likelihood of the posterior, with i on one side or the other),
// is at least Confidence or at most 1-Confidence, or maxRuns are spent
// (then the verdict is skip: a forced answer is how git bisect goes
// wrong).
func (s *Search) Classify(ctx context.Context, i, maxRuns int) (v Verdict, err error) {
	defer func() {
		if cerr := s.closeAll(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if i <= 0 || i >= s.m.n {
		return Verdict{}, fmt.Errorf("the commit to classify is an end of the range")
	}
	if err := s.record(Event{Event: EvSession}); err != nil {
		return Verdict{}, err
	}
	s.started = s.Opt.Now()
	stop, err := s.calibrate(ctx)
	if err != nil {
		return Verdict{}, err
	}
	if stop == StopNoDifference {
		return Verdict{Verdict: VerdictSkip, PBad: math.NaN(), Stop: stop, Reason: "the ends do not differ: nothing to bisect (stop the bisect: git bisect reset)"}, nil
	}
	var mine analysis.Moments
	runs := 0
	pbad := math.NaN()
	for runs < maxRuns {
		k := min(s.Opt.Runs, maxRuns-runs)
		xs, err := s.measure(ctx, i, k)
		var se *SkipError
		if errors.As(err, &se) {
			if err := s.record(Event{Event: EvSkip, Commit: i, Reason: se.Reason}); err != nil {
				return Verdict{}, err
			}
			return Verdict{Verdict: VerdictSkip, PBad: pbad, Runs: runs, Reason: se.Reason}, nil
		}
		if err != nil {
			return Verdict{}, err
		}
		if err := s.record(Event{Event: EvProbe, Commit: i, Values: xs}); err != nil {
			return Verdict{}, err
		}
		runs += len(xs)
		mine = mine.Merge(analysis.MomentsOf(xs))
		g, b := s.m.ends[0], s.m.ends[1]
		lg := splitLikelihood(floored(g.Merge(mine), b))
		lb := splitLikelihood(floored(g, b.Merge(mine)))
		pbad = 1 / (1 + math.Exp(lg-lb))
		switch {
		case pbad >= s.Opt.Confidence:
			return Verdict{Verdict: VerdictBad, PBad: pbad, Runs: runs, Reason: "its values are the bad end's"}, nil
		case pbad <= 1-s.Opt.Confidence:
			return Verdict{Verdict: VerdictGood, PBad: pbad, Runs: runs, Reason: "its values are the good end's"}, nil
		}
	}
	return Verdict{Verdict: VerdictSkip, PBad: pbad, Runs: runs, Reason: fmt.Sprintf("undecided after %d runs", runs)}, nil
}
