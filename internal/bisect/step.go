package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
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
// ends are calibrated first (once: their blocks stay in the ledger for
// the next commit), then commit i is measured in blocks beside the good
// and the bad end in turn until the probability that it is bad (1/2
// prior; the posterior's block likelihood with the culprit at i or after
// it) is at least Confidence or at most 1-Confidence, or maxRuns of it
// are spent (then the verdict is skip: a forced answer is how git bisect
// goes wrong).
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
	runs := 0
	pbad := math.NaN()
	for blocks := 0; runs < maxRuns; blocks++ {
		k := min(s.Opt.Runs, maxRuns-runs)
		end := 0
		if blocks%2 == 1 {
			end = s.m.n
		}
		err := s.measureBlock(ctx, EvRef, end, EvProbe, i, k)
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
		runs += k
		pbad = s.m.pBad(i)
		switch {
		case pbad >= s.Opt.Confidence:
			return Verdict{Verdict: VerdictBad, PBad: pbad, Runs: runs, Reason: "it differs from the good end as the bad end does"}, nil
		case pbad <= 1-s.Opt.Confidence:
			return Verdict{Verdict: VerdictGood, PBad: pbad, Runs: runs, Reason: "it differs from the bad end as the good end does"}, nil
		}
	}
	return Verdict{Verdict: VerdictSkip, PBad: pbad, Runs: runs, Reason: fmt.Sprintf("undecided after %d runs", runs)}, nil
}
