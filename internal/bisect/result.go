package bisect

import (
	"math"

	"contend/analysis"
)

// Result is what a search found.
type Result struct {
	// Stop is why the search stopped (StopConfident...), "" while it
	// runs (a status), and StopText says it in words.
	Stop       string  `json:"stop"`
	StopText   string  `json:"stop_text"`
	Confidence float64 `json:"confidence"`
	// Commits is the number of commits after the good end (the bad end
	// included): the candidates.
	Commits     int         `json:"commits"`
	Good        Commit      `json:"good"`
	Bad         Commit      `json:"bad"`
	Calibration Calibration `json:"calibration"`
	// Top are the three most probable culprits, most probable first.
	Top []Candidate `json:"top"`
	// Probes is the number of batches measured, Probed the commits.
	Probes  int        `json:"probes"`
	Probed  int        `json:"probed"`
	Runs    Runs       `json:"runs"`
	Skipped []Skipped  `json:"skipped,omitempty"`
	Verify  *Verify    `json:"verify,omitempty"`
	Elapsed float64    `json:"elapsed_seconds"`
	Metric  MetricInfo `json:"metric"`
	// Unit is what a repetition is: "runs" (processes; "" reads so) or
	// "boots" (a kernel search: one value a boot); Where says where they
	// ran ("in a VM (TCG)...", WhereOf). Both set by the caller.
	Unit  string `json:"unit,omitempty"`
	Where string `json:"where,omitempty"`
}

// unit is r.Unit, "runs" when unset.
func (r *Result) unit() string {
	if r.Unit == "" {
		return "runs"
	}
	return r.Unit
}

// MetricInfo names the metric followed (set by the caller).
type MetricInfo struct {
	Name string `json:"name,omitempty"`
	Unit string `json:"unit,omitempty"`
}

// Calibration is the test of the ends.
type Calibration struct {
	NGood      int     `json:"n_good"`
	NBad       int     `json:"n_bad"`
	MedianGood float64 `json:"median_good"`
	MedianBad  float64 `json:"median_bad"`
	// Change is the relative change of the medians, bad against good,
	// with its interval [Lo, Hi] at 95%; P the p-value of the last look
	// and Level its nominal level; Differ whether the ends differ.
	Change float64 `json:"change"`
	Lo     float64 `json:"change_lo"`
	Hi     float64 `json:"change_hi"`
	P      float64 `json:"p"`
	Level  float64 `json:"level"`
	Differ bool    `json:"differ"`
	Rule   string  `json:"rule"`
	// SDs is the difference of the means in pooled standard deviations.
	SDs float64 `json:"sds"`
}

// Candidate is one possible culprit with its posterior probability.
type Candidate struct {
	Commit
	Index int     `json:"index"` // in the range, from 1
	P     float64 `json:"p"`
	// Skipped are the skipped commits right before it, which no probe
	// can tell from it: P is theirs and its own together.
	Skipped []Commit `json:"skipped_before,omitempty"`
	// POwn is the probability of the commit itself.
	POwn float64 `json:"p_own"`
}

// Runs counts repetitions.
type Runs struct {
	Calibration int `json:"calibration"`
	Probes      int `json:"probes"`
	Verify      int `json:"verify"`
	Total       int `json:"total"`
}

// Skipped is a commit that could not be measured.
type Skipped struct {
	Commit
	Index  int    `json:"index"`
	Reason string `json:"reason"`
	// P is the posterior probability that it is the culprit: what
	// skipping it costs (that mass cannot be told from the next commit's).
	P float64 `json:"p"`
}

// Verify is the final A/B of the culprit's parent against the culprit.
type Verify struct {
	Parent   Commit  `json:"parent"`
	Culprit  Commit  `json:"culprit"`
	NParent  int     `json:"n_parent"`
	NCulprit int     `json:"n_culprit"`
	Change   float64 `json:"change"`
	Lo       float64 `json:"change_lo"`
	Hi       float64 `json:"change_hi"`
	P        float64 `json:"p"`
	Verdict  string  `json:"verdict"`
	// Verified: the culprit differs from its parent, in the direction of
	// the change between the ends.
	Verified bool   `json:"verified"`
	Note     string `json:"note,omitempty"`
}

var stopTexts = map[string]string{
	StopConfident:    "a culprit reached the confidence asked for",
	StopBudgetRuns:   "the budget of runs is spent: the answer is below the confidence asked for",
	StopBudgetTime:   "the budget of time is spent: the answer is below the confidence asked for",
	StopExhausted:    "every commit that can be measured has been: the answer is below the confidence asked for",
	StopNoDifference: "the ends do not differ: nothing to bisect",
	"":               "the search has not ended",
}

// Result returns the state of the search: the posterior's top three,
// the runs, the skips, the calibration and the verification.
func (s *Search) Result(stop string) *Result {
	n := s.m.n
	r := &Result{Stop: stop, StopText: stopTexts[stop], Confidence: s.Opt.Confidence, Commits: n, Good: s.Commits[0], Bad: s.Commits[n]}
	r.Calibration = s.calibrationResult()
	p := s.m.posterior()
	if stop != StopNoDifference {
		for _, g := range top(s.m.groups(p), 3) {
			c := Candidate{Commit: s.Commits[g.last], Index: g.last, P: g.p, POwn: p[g.last]}
			for _, k := range g.skipped {
				c.Skipped = append(c.Skipped, s.Commits[k])
			}
			r.Top = append(r.Top, c)
		}
	}
	probed := map[int]bool{}
	for _, b := range s.m.batches {
		probed[b.commit] = true
	}
	r.Probes, r.Probed = len(s.m.batches), len(probed)
	r.Runs.Calibration, r.Runs.Probes, r.Runs.Verify = s.runs()
	r.Runs.Total = r.Runs.Calibration + r.Runs.Probes + r.Runs.Verify
	for _, e := range s.events {
		if e.Event == EvSkip {
			r.Skipped = append(r.Skipped, Skipped{Commit: s.Commits[e.Commit], Index: e.Commit, Reason: e.Reason, P: p[e.Commit]})
		}
	}
	r.Verify = s.verifyResult()
	el := s.elapsed
	if !s.started.IsZero() {
		el += s.Opt.Now().Sub(s.started)
	} else if len(s.events) > 0 {
		el += s.lastTime().Sub(s.sessionStart())
	}
	r.Elapsed = el.Seconds()
	return r
}

func (s *Search) calibrationResult() Calibration {
	n := s.m.n
	a, b := s.values(EvCalibrate, 0, ""), s.values(EvCalibrate, n, "")
	c := Calibration{NGood: len(a), NBad: len(b), Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), SDs: math.NaN()}
	seq, err := s.calibration()
	if err == nil {
		c.Rule = seq.Describe()
	}
	if len(a) == 0 || len(b) == 0 || err != nil {
		return c
	}
	c.MedianGood, c.MedianBad = analysis.Median(a), analysis.Median(b)
	d, err := seq.Decide(min(max(len(a), len(b)), seq.MaxRuns), a, b)
	if err == nil {
		c.Change, c.Lo, c.Hi, c.P, c.Level, c.Differ = d.Change, d.Lo, d.Hi, d.P, d.NominalAlpha, d.Significant
	}
	if math.IsNaN(c.Lo) {
		if rel, err := analysis.RelativeChange(a, b, 0.95); err == nil && rel.HasCI {
			c.Lo, c.Hi = rel.Lo, rel.Hi
		}
	}
	ga, gb := s.m.ends[0], s.m.ends[1]
	if ga.N > 1 && gb.N > 1 {
		pooled := math.Sqrt((ga.M2 + gb.M2) / float64(ga.N+gb.N-2))
		c.SDs = (gb.Mean - ga.Mean) / pooled
	}
	return c
}

func (s *Search) verifyResult() *Verify {
	var parent, culprit int = -1, -1
	for _, e := range s.events {
		if e.Event != EvVerify {
			continue
		}
		if e.Side == "parent" {
			parent = e.Commit
		} else {
			culprit = e.Commit
		}
	}
	if parent < 0 || culprit < 0 {
		return nil
	}
	a, b := s.values(EvVerify, parent, "parent"), s.values(EvVerify, culprit, "culprit")
	v := &Verify{Parent: s.Commits[parent], Culprit: s.Commits[culprit], NParent: len(a), NCulprit: len(b),
		Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN()}
	c, err := analysis.Compare(a, b, analysis.CompareOptions{Alpha: s.Opt.Alpha})
	if err != nil {
		v.Note = err.Error()
		return v
	}
	v.Change, v.P, v.Verdict = c.Change, c.P, string(c.Verdict)
	if c.HasChangeCI {
		v.Lo, v.Hi = c.ChangeLo, c.ChangeHi
	}
	ends := s.m.ends[1].Mean - s.m.ends[0].Mean
	v.Verified = c.Significant() && c.Sign != 0 && float64(c.Sign)*ends > 0
	switch {
	case v.Verified:
	case c.Significant():
		v.Note = "the culprit differs from its parent in the other direction than the bad end from the good one"
	case !c.CanReachAlpha:
		v.Note = "too few runs to decide"
	default:
		v.Note = "the culprit does not differ from its parent: the change may be spread over several commits, or the answer is wrong"
	}
	return v
}
