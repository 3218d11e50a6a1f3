package bisect

import (
	"math"

	"contend/analysis"
	"contend/internal/kbuild"
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
	// Builds sums up the kernel builds of a search that builds its
	// kernels (--kernel-tree; its BuildsFile), set by the caller.
	Builds *kbuild.Summary `json:"kernel_builds,omitempty"`
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
	// Ends are the runs of the ends measured beside the probes, one batch
	// of an end in each probe's block.
	Ends   int `json:"ends"`
	Verify int `json:"verify"`
	Total  int `json:"total"`
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

// Verify is the verification of the culprit: its parent and it measured
// side by side in blocks once it reached the confidence asked for.
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
	// Blocks is the number of blocks of the pair; LogLR the log
	// likelihood ratio of the blocks since the last probe for a
	// difference of the ends' step against none (the sequential test
	// that decides the verification: at least log(c/(1-c)) for
	// confidence c).
	Blocks int     `json:"blocks"`
	LogLR  float64 `json:"log_lr"`
	// Verified: the candidate kept the confidence asked for with these
	// blocks counted in its probability, and the search ended on it.
	Verified bool   `json:"verified"`
	Note     string `json:"note,omitempty"`
}

var stopTexts = map[string]string{
	StopConfident:    "a culprit reached the confidence asked for",
	StopBudgetRuns:   "no culprit: the budget of runs was spent before a commit reached the confidence asked for and kept it through its verification",
	StopBudgetTime:   "no culprit: the budget of time was spent before a commit reached the confidence asked for and kept it through its verification",
	StopExhausted:    "no culprit: every commit that can be measured has been, and none reached the confidence asked for",
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
	if _, ok := stepGrid(s.m.contrasts()); ok && stop != StopNoDifference {
		for _, g := range top(s.m.groups(p), 3) {
			c := Candidate{Commit: s.Commits[g.last], Index: g.last, P: g.p, POwn: p[g.last]}
			for _, k := range g.skipped {
				c.Skipped = append(c.Skipped, s.Commits[k])
			}
			r.Top = append(r.Top, c)
		}
	}
	probed := map[int]bool{}
	for _, e := range s.events {
		if e.Event == EvProbe {
			r.Probes++
			probed[e.Commit] = true
		}
	}
	r.Probed = len(probed)
	r.Runs = s.runs()
	for _, e := range s.events {
		if e.Event == EvSkip {
			r.Skipped = append(r.Skipped, Skipped{Commit: s.Commits[e.Commit], Index: e.Commit, Reason: e.Reason, P: p[e.Commit]})
		}
	}
	r.Verify = s.verifyResult(stop, r.Top)
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
	a, b := s.calibrationValues()
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
	ga, gb := analysis.MomentsOf(a), analysis.MomentsOf(b)
	if ga.N > 1 && gb.N > 1 {
		pooled := math.Sqrt((ga.M2 + gb.M2) / float64(ga.N+gb.N-2))
		c.SDs = (gb.Mean - ga.Mean) / pooled
	}
	_ = n
	return c
}

// verifyResult describes the last verification: the pair of its last
// block, its complete blocks' values, and whether the search ended on
// its culprit.
func (s *Search) verifyResult(stop string, top []Candidate) *Verify {
	last := 0
	for _, e := range s.events {
		if e.Event == EvVerify && s.m.blocks[e.Block] != nil && s.m.blocks[e.Block].complete() {
			last = e.Block
		}
	}
	if last == 0 {
		return nil
	}
	parent, culprit := s.m.blocks[last].lo, s.m.blocks[last].hi
	var a, b []float64
	blocks := 0
	seen := map[int]bool{}
	for _, e := range s.events {
		bl := s.m.blocks[e.Block]
		if e.Event != EvVerify || bl == nil || !bl.complete() || bl.lo != parent || bl.hi != culprit {
			continue
		}
		if !seen[e.Block] {
			seen[e.Block] = true
			blocks++
		}
		if e.Commit == parent {
			a = append(a, e.Values...)
		} else {
			b = append(b, e.Values...)
		}
	}
	v := &Verify{Parent: s.Commits[parent], Culprit: s.Commits[culprit], NParent: len(a), NCulprit: len(b), Blocks: blocks,
		Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN()}
	if c, err := analysis.Compare(a, b, analysis.CompareOptions{Alpha: s.Opt.Alpha}); err == nil {
		v.Change, v.P, v.Verdict = c.Change, c.P, string(c.Verdict)
		if c.HasChangeCI {
			v.Lo, v.Hi = c.ChangeLo, c.ChangeHi
		}
	}
	v.LogLR = s.pairLogLR(parent, culprit)
	onTop := len(top) > 0 && top[0].Index == culprit
	v.Verified = stop == StopConfident && onTop
	switch {
	case v.Verified:
	case stop == "":
		v.Note = "under way"
	case onTop:
		v.Note = "the search ended before the culprit kept the confidence asked for through its verification"
	default:
		v.Note = "the candidate did not keep the confidence asked for, or did not differ from its parent by the step between the ends: the change may be spread over several commits, or the machine's level moved"
	}
	return v
}
