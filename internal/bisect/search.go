// Package bisect finds the commit that changed a metric with a noisy
// measurement: a probabilistic bisection (Horstein 1963; Waeber, Frazier
// and Henderson 2013) over the commits of a range, with a posterior over
// the culprit updated by the likelihood of each probe's repetitions under
// the good and bad distributions estimated from the ends.
//
// The search is event-sourced: every batch of values, every skip and the
// end are events appended to a Store (the ledger in the search's
// directory, ledger.go), and the posterior is recomputed from them, so a
// search killed at any point resumes from its ledger with nothing lost
// but the batch in flight. What measures a commit is a Prober (build at
// the commit, then measure n repetitions): Command (prober.go) builds in
// a git worktree and runs a contend command; a VM prober (boots as the
// unit) plugs in the same way.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"contend/analysis"
	"contend/internal/textfmt"
)

// Commit is one commit of the range, oldest first.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject,omitempty"`
}

// A Prober measures commits: Build prepares commit c (a worktree and a
// build, a kernel image...) and the Built measures it.
type Prober interface {
	// Build builds commit c. A commit that cannot be built returns a
	// *SkipError: the search skips it, as git bisect skip does.
	Build(ctx context.Context, c Commit) (Built, error)
}

// A Built is one built commit.
type Built interface {
	// Measure runs n repetitions (processes, or boots for a kernel) and
	// returns the metric's value of each. A run that fails returns a
	// *SkipError (the commit is skipped); any other error ends the
	// search (it can be resumed).
	Measure(ctx context.Context, n int) ([]float64, error)
	// Close removes what Build made.
	Close() error
}

// SkipError says that a commit cannot be measured (it does not build,
// or its runs fail): it is skipped and recorded with Reason.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

// Options configure a search. The zero value of a field means its
// default.
type Options struct {
	// Runs is the number of repetitions of one probe (a batch): 5.
	Runs int
	// CalibrateMin and CalibrateMax bound the repetitions of each end in
	// the calibration (a group-sequential Mann-Whitney test at Alpha
	// that stops once the ends differ): 10 and 40.
	CalibrateMin, CalibrateMax int
	// Alpha is the level of the calibration's test: 0.05.
	Alpha float64
	// Confidence is the posterior probability of one candidate that
	// ends the search: 0.95.
	Confidence float64
	// BudgetRuns stops the search before a block would take the runs
	// (calibration, probes, the ends beside them, verification) above
	// it; 0: DefaultBudgetRuns for the step the calibration measured.
	BudgetRuns int
	// BudgetTime stops the search once this much time has passed since
	// it started (counted over every session of a resumed search); 0:
	// no budget.
	BudgetTime time.Duration
	// VerifyRuns is the number of repetitions of each side of the
	// verification, the culprit's parent beside the culprit in blocks
	// once the culprit reaches Confidence: 10; negative: none. Its
	// blocks count in the posterior: the search ends with a culprit only
	// when it still holds Confidence after them.
	VerifyRuns int
	// Prior weighs the commits 1..n of the range (Prior[j] for commit
	// j; Prior[0] unused); nil: uniform.
	Prior []float64
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
	// Progress, when set, is told of each step in one line.
	Progress func(string)
}

func (o *Options) fill() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Runs, 5)
	def(&o.CalibrateMin, 10)
	def(&o.CalibrateMax, 60)
	def(&o.VerifyRuns, 10)
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CalibrateMax < o.CalibrateMin {
		o.CalibrateMax = o.CalibrateMin
	}
}

// Check validates the options a user gives, each error naming its flag
// and the accepted range.
func (o Options) Check() error {
	switch {
	case o.Runs < 0 || o.Runs > 1000:
		return fmt.Errorf("--runs: %d is not accepted; accepted: 1..1000", o.Runs)
	case o.CalibrateMin < 0 || o.CalibrateMin > analysis.SequentialMaxRuns:
		return fmt.Errorf("--calibrate: %d is not accepted; accepted: %d..%d", o.CalibrateMin, analysis.MinRunsForSignificance(0.05), analysis.SequentialMaxRuns)
	case o.CalibrateMax < 0 || o.CalibrateMax > analysis.SequentialMaxRuns:
		return fmt.Errorf("--calibrate-max: %d is not accepted; accepted: --calibrate..%d", o.CalibrateMax, analysis.SequentialMaxRuns)
	case o.Confidence != 0 && !(o.Confidence >= 0.5 && o.Confidence < 1):
		return fmt.Errorf("--confidence: %v is not accepted; accepted: 0.5 <= c < 1", o.Confidence)
	case o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 0.5):
		return fmt.Errorf("--alpha: %v is not accepted; accepted: 0 < alpha < 0.5", o.Alpha)
	case o.BudgetRuns < 0:
		return fmt.Errorf("--budget-runs: %d is not accepted; accepted: 0 (the default, from the range's size) or more", o.BudgetRuns)
	case o.BudgetTime < 0:
		return fmt.Errorf("--budget-time: %v is not accepted; accepted: 0 (none) or a positive duration", o.BudgetTime)
	case o.VerifyRuns < -1 || o.VerifyRuns > 1000:
		return fmt.Errorf("--verify-runs: %d is not accepted; accepted: 0 (none) to 1000", o.VerifyRuns)
	}
	o.fill()
	if o.BudgetRuns > 0 && o.BudgetRuns < 2*o.CalibrateMax+2*o.Runs {
		return fmt.Errorf("--budget-runs: %d is not accepted; accepted: 0 (the default, from the range's size) or at least %d (the calibration's most, 2 x --calibrate-max, and one probe's block)", o.BudgetRuns, 2*o.CalibrateMax+2*o.Runs)
	}
	if _, err := analysis.NewSequentialSpending(o.Alpha, o.CalibrateMin, o.CalibrateMax, 0, analysis.SpendOBrienFleming); err != nil {
		return fmt.Errorf("--calibrate %d and --calibrate-max %d: %v", o.CalibrateMin, o.CalibrateMax, err)
	}
	return nil
}

// Event kinds of the ledger.
const (
	EvCalibrate = "calibrate" // values of an end (Commit 0 or n) in a block of the two ends
	EvProbe     = "probe"     // values of a probed commit
	EvRef       = "reference" // values of an end measured beside a probe, in its block
	EvSkip      = "skip"      // a commit that could not be measured
	EvVerify    = "verify"    // values of the parent or the culprit (Side) measured beside each other
	EvSession   = "session"   // a session of the search began
	EvEnd       = "end"       // the search ended: Stop says why
)

// Event is one line of the ledger. The events with values come in
// blocks (Block, from 1): two commits measured one batch each, one
// right after the other; only differences within a block inform.
type Event struct {
	Time   time.Time `json:"time"`
	Event  string    `json:"event"`
	Commit int       `json:"commit"` // index in the range: 0 good end, n bad end
	Hash   string    `json:"hash,omitempty"`
	Block  int       `json:"block,omitempty"`
	Side   string    `json:"side,omitempty"`
	Values []float64 `json:"values,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Stop   string    `json:"stop,omitempty"`
}

// A Store keeps the events of a search durably.
type Store interface {
	Append(Event) error
}

// Memory is a Store in memory (simulations, tests).
type Memory struct{ Events []Event }

// Append appends e.
func (m *Memory) Append(e Event) error { m.Events = append(m.Events, e); return nil }

// Stop reasons.
const (
	StopConfident    = "confident"     // a candidate reached Confidence, and kept it through its verification
	StopBudgetRuns   = "budget-runs"   // the next block would exceed BudgetRuns
	StopBudgetTime   = "budget-time"   // BudgetTime passed
	StopExhausted    = "exhausted"     // no commit left to probe
	StopNoDifference = "no-difference" // the ends do not differ: nothing to bisect
)

// DefaultBudgetRuns is the budget of runs of a search of n commits when
// none is given, for a step of sds noise SDs between the ends: the
// calibration's most, then 8 blocks per halving of the range and 8
// more, each of two batches, times (1/sds)^2 between 1 and 4 (the blocks
// a probe needs grow so as the step shrinks; NaN: 1), and five
// verifications' least. A search that finds no culprit within it ends
// saying so: a range with no single step (no change, several small
// ones, a drift) never makes a search confident, and without a budget it
// would never end.
func DefaultBudgetRuns(n int, o Options, sds float64) int {
	o.fill()
	halvings := int(math.Ceil(math.Log2(float64(max(n, 2)))))
	f := 1.0
	if sds = math.Abs(sds); sds > 0 {
		f = min(max(1/(sds*sds), 1), 4)
	}
	return 2*o.CalibrateMax + int(math.Ceil(f*float64(2*o.Runs*(8*halvings+8)))) + 10*max(o.VerifyRuns, 0)
}

// budget returns BudgetRuns, or DefaultBudgetRuns for the step the
// calibration measured.
func (s *Search) budget() int {
	if s.Opt.BudgetRuns > 0 {
		return s.Opt.BudgetRuns
	}
	return DefaultBudgetRuns(s.m.n, s.Opt, s.calibrationResult().SDs)
}

// Search is one bisection: the range, its options, the events so far.
type Search struct {
	Commits []Commit // 0: the good end, len-1: the bad end
	Opt     Options
	Store   Store
	Prober  Prober

	m       *model
	events  []Event
	built   map[int]Built
	order   []int // of built, least recently used first
	started time.Time
	elapsed time.Duration // of earlier sessions
	// lastMeasured is the commit measure was last asked for: the one a
	// *SkipError is about.
	lastMeasured int
}

// New returns the search over commits (good end first, at least three:
// good, one to test, bad) with the events of earlier sessions (nil for a
// new search).
func New(commits []Commit, opt Options, store Store, prober Prober, events []Event) (*Search, error) {
	if len(commits) < 3 {
		return nil, fmt.Errorf("the range has %d commits after the good one: nothing to bisect (the culprit is the bad end)", max(len(commits)-1, 0))
	}
	opt.fill()
	n := len(commits) - 1
	if opt.Prior != nil && len(opt.Prior) != n+1 {
		return nil, fmt.Errorf("the prior has %d weights for %d commits", len(opt.Prior)-1, n)
	}
	s := &Search{Commits: commits, Opt: opt, Store: store, Prober: prober, m: newModel(n, opt.Prior), built: map[int]Built{}}
	for k, e := range events {
		if err := s.apply(e); err != nil {
			return nil, fmt.Errorf("ledger: event %d: %w", k+1, err)
		}
	}
	return s, nil
}

// apply adds e to the evidence.
func (s *Search) apply(e Event) error {
	n := s.m.n
	if _, ok := s.ended(); ok {
		return fmt.Errorf("%q after the end of the search: the ledger was written to after the search ended", e.Event)
	}
	if e.Commit < 0 || e.Commit > n {
		return fmt.Errorf("%q names commit %d outside 0..%d", e.Event, e.Commit, n)
	}
	if e.Hash != "" && e.Hash != s.Commits[e.Commit].Hash {
		return fmt.Errorf("%q names commit %d as %s, but the range has %s there", e.Event, e.Commit, e.Hash, s.Commits[e.Commit].Hash)
	}
	for _, x := range e.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q of commit %d has the value %v", e.Event, e.Commit, x)
		}
	}
	switch e.Event {
	case EvCalibrate, EvRef:
		if e.Commit != 0 && e.Commit != n {
			return fmt.Errorf("%q values of commit %d, not an end", e.Event, e.Commit)
		}
		if err := s.addToBlock(e); err != nil {
			return err
		}
	case EvProbe, EvVerify:
		if e.Event == EvProbe && (e.Commit == 0 || e.Commit == n) {
			return fmt.Errorf("%q of the end %d", e.Event, e.Commit)
		}
		if err := s.addToBlock(e); err != nil {
			return err
		}
	case EvSkip:
		if e.Commit == 0 || e.Commit == n {
			return fmt.Errorf("the end %s is skipped", s.Commits[e.Commit].Hash)
		}
		s.m.skipped[e.Commit] = e.Reason
	case EvSession:
		if !e.Time.IsZero() && len(s.events) > 0 {
			// Time of the previous session: up to its last event.
			s.elapsed += s.lastTime().Sub(s.sessionStart())
		}
	case EvEnd:
	default:
		return fmt.Errorf("unknown event %q", e.Event)
	}
	s.events = append(s.events, e)
	return nil
}

// addToBlock adds the values of e to its block.
func (s *Search) addToBlock(e Event) error {
	if e.Block <= 0 {
		return fmt.Errorf("%q of commit %d is in no block: the ledger was written by a contend before 2026-12 (one batch at a time, judged against the ends measured once), which this one cannot read; start the search again in another --dir", e.Event, e.Commit)
	}
	if len(e.Values) == 0 {
		return fmt.Errorf("%q of commit %d has no values", e.Event, e.Commit)
	}
	b := s.m.blocks[e.Block]
	switch {
	case b == nil:
		s.m.blocks[e.Block] = &block{lo: e.Commit, hi: -1, xs: [2][]float64{e.Values}}
	case b.lo == e.Commit:
		b.xs[0] = append(b.xs[0], e.Values...)
	case b.hi == e.Commit:
		b.xs[1] = append(b.xs[1], e.Values...)
	case b.hi < 0:
		b.hi, b.xs[1] = e.Commit, e.Values
		if b.hi < b.lo {
			b.lo, b.hi = b.hi, b.lo
			b.xs[0], b.xs[1] = b.xs[1], b.xs[0]
		}
	default:
		return fmt.Errorf("block %d has commits %d and %d, and %q adds commit %d", e.Block, b.lo, b.hi, e.Event, e.Commit)
	}
	return nil
}

// nextBlock returns the number of the next block.
func (s *Search) nextBlock() int {
	mx := 0
	for k := range s.m.blocks {
		mx = max(mx, k)
	}
	return mx + 1
}

func (s *Search) sessionStart() time.Time {
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.events[i].Event == EvSession {
			return s.events[i].Time
		}
	}
	return s.lastTime()
}

func (s *Search) lastTime() time.Time {
	if len(s.events) == 0 {
		return time.Time{}
	}
	return s.events[len(s.events)-1].Time
}

// record appends e to the store, then to the evidence.
func (s *Search) record(e Event) error {
	e.Time = s.Opt.Now().UTC()
	if e.Hash == "" {
		e.Hash = s.Commits[e.Commit].Hash
	}
	if err := s.Store.Append(e); err != nil {
		return err
	}
	return s.apply(e)
}

func (s *Search) say(format string, a ...any) {
	if s.Opt.Progress != nil {
		s.Opt.Progress(fmt.Sprintf(format, a...))
	}
}

// ended returns the end event, if the search has ended.
func (s *Search) ended() (Event, bool) {
	for _, e := range s.events {
		if e.Event == EvEnd {
			return e, true
		}
	}
	return Event{}, false
}

// Run runs the search to its end (or continues it) and returns the
// result. A cancelled ctx returns its error after closing every build;
// the ledger then holds every finished batch, and New with its events
// continues the search.
func (s *Search) Run(ctx context.Context) (res *Result, err error) {
	defer func() {
		if cerr := s.closeAll(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if e, ok := s.ended(); ok {
		return s.Result(e.Stop), nil
	}
	s.started = s.Opt.Now()
	if err := s.record(Event{Event: EvSession}); err != nil {
		return nil, err
	}
	stop, err := s.calibrate(ctx)
	if err != nil {
		return nil, err
	}
	if stop == "" {
		if stop, err = s.probe(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.record(Event{Event: EvEnd, Commit: 0, Stop: stop}); err != nil {
		return nil, err
	}
	return s.Result(stop), nil
}

// calibration returns the sequential rule of the calibration.
func (s *Search) calibration() (*analysis.Sequential, error) {
	return analysis.NewSequentialSpending(s.Opt.Alpha, s.Opt.CalibrateMin, s.Opt.CalibrateMax, 0, analysis.SpendOBrienFleming)
}

// calibrationValues returns the values of the ends in complete
// calibration blocks.
func (s *Search) calibrationValues() (good, bad []float64) {
	for _, num := range s.m.sortedBlocks() {
		b := s.m.blocks[num]
		if b.complete() && b.lo == 0 && b.hi == s.m.n {
			good, bad = append(good, b.xs[0]...), append(bad, b.xs[1]...)
		}
	}
	return good, bad
}

// calibrate measures both ends in blocks (one batch each, the good end
// first in odd blocks: ABBA), until the group-sequential test decides
// whether they differ. It returns StopNoDifference when they do not.
func (s *Search) calibrate(ctx context.Context) (string, error) {
	seq, err := s.calibration()
	if err != nil {
		return "", fmt.Errorf("calibration: %w", err)
	}
	n := s.m.n
	for {
		a, b := s.calibrationValues()
		if len(a) > 0 && len(b) > 0 {
			d, err := seq.Decide(min(len(a), len(b), seq.MaxRuns), a, b)
			if err != nil {
				return "", err
			}
			if d.Stop {
				if !d.Significant {
					return StopNoDifference, nil
				}
				return "", nil
			}
		}
		k := min(s.Opt.Runs, seq.MaxRuns-min(len(a), len(b)))
		if k <= 0 {
			k = s.Opt.Runs
		}
		if err := s.measureBlock(ctx, EvCalibrate, 0, EvCalibrate, n, k); err != nil {
			return "", err
		}
		s.say("calibration: block %d of the good end %s and the bad end %s", s.nextBlock()-1, textfmt.Commit(s.Commits[0].Hash), textfmt.Commit(s.Commits[n].Hash))
	}
}

// measureBlock measures commit a (event kind ea) and commit b (eb), k
// values each, one right after the other, as one new block: a first in
// odd blocks, b first in even ones, so that a level moving steadily
// within blocks favours neither. A commit that cannot be measured
// returns its *SkipError (the batch measured before it stays in the
// ledger, in a block that tells nothing).
func (s *Search) measureBlock(ctx context.Context, ea string, a int, eb string, b, k int) error {
	num := s.nextBlock()
	type side struct {
		ev     string
		commit int
	}
	order := []side{{ea, a}, {eb, b}}
	if num%2 == 0 {
		order[0], order[1] = order[1], order[0]
	}
	for _, sd := range order {
		xs, err := s.measure(ctx, sd.commit, k)
		if err != nil {
			var se *SkipError
			if errors.As(err, &se) && (sd.commit == 0 || sd.commit == s.m.n) {
				return fmt.Errorf("the %s end %s cannot be measured: %s", endName(sd.commit, s.m.n), textfmt.Commit(s.Commits[sd.commit].Hash), se.Reason)
			}
			return err
		}
		e := Event{Event: sd.ev, Commit: sd.commit, Block: num, Values: xs}
		if sd.ev == EvVerify {
			e.Side = "culprit"
			if sd.commit == min(a, b) {
				e.Side = "parent"
			}
		}
		if err := s.record(e); err != nil {
			return err
		}
	}
	return nil
}

func endName(end, n int) string {
	if end == 0 {
		return "good"
	}
	return "bad"
}

// runs returns the repetitions of calibration, probes, the ends beside
// the probes, and verification.
func (s *Search) runs() (r Runs) {
	for _, e := range s.events {
		switch e.Event {
		case EvCalibrate:
			r.Calibration += len(e.Values)
		case EvProbe:
			r.Probes += len(e.Values)
		case EvRef:
			r.Ends += len(e.Values)
		case EvVerify:
			r.Verify += len(e.Values)
		}
	}
	r.Total = r.Calibration + r.Probes + r.Ends + r.Verify
	return r
}

// probe probes commits at the posterior median, each beside an end (the
// good and the bad one in turn), until a candidate reaches Confidence
// and keeps it through VerifyRuns of its verification, or a stop rule
// holds.
func (s *Search) probe(ctx context.Context) (string, error) {
	n := s.m.n
	for {
		p := s.m.posterior()
		best := top(s.m.groups(p), 1)[0]
		verify := false
		if best.p >= s.Opt.Confidence {
			if s.Opt.VerifyRuns <= 0 {
				return StopConfident, nil
			}
			switch s.pairVerdict(s.parent(best), best.last) {
			case pairDiffers:
				return StopConfident, nil
			case pairUndecided:
				verify = true
			}
			// pairSame: the candidate does not differ from its parent by
			// the step; probe on (its blocks lowered its probability).
		}
		if s.runs().Total+2*s.Opt.Runs > s.budget() {
			return StopBudgetRuns, nil
		}
		if s.Opt.BudgetTime > 0 && s.elapsed+s.Opt.Now().Sub(s.started) >= s.Opt.BudgetTime {
			return StopBudgetTime, nil
		}
		if verify {
			parent := s.parent(best)
			k := s.Opt.Runs
			err := s.measureBlock(ctx, EvVerify, parent, EvVerify, best.last, k)
			if err := s.skipOr(err); err != nil {
				return "", err
			}
			s.say("verification: parent %s beside culprit %s (P %.3f before)", textfmt.Commit(s.Commits[parent].Hash), textfmt.Commit(s.Commits[best.last].Hash), best.p)
			continue
		}
		i := s.m.next(p)
		if i < 0 {
			return StopExhausted, nil
		}
		end := 0
		if s.probeBlocks()%2 == 1 {
			end = n
		}
		err := s.measureBlock(ctx, EvRef, end, EvProbe, i, s.Opt.Runs)
		if err := s.skipOr(err); err != nil {
			return "", err
		}
		s.say("probe %s beside the %s end (P(bad) before %.3f)", textfmt.Commit(s.Commits[i].Hash), endName(end, n), cdf(p, i))
	}
}

// skipOr records the skip that err is, if it is one of a commit that
// is not an end, and returns nil; any other err is returned.
func (s *Search) skipOr(err error) error {
	var se *SkipError
	if err == nil || !errors.As(err, &se) {
		return err
	}
	i := s.lastMeasured
	if i <= 0 || i >= s.m.n {
		return err
	}
	s.drop(i)
	if err := s.record(Event{Event: EvSkip, Commit: i, Reason: se.Reason}); err != nil {
		return err
	}
	s.say("skip %s: %s", textfmt.Commit(s.Commits[i].Hash), se.Reason)
	return nil
}

// probeBlocks returns the number of blocks with a probe.
func (s *Search) probeBlocks() int {
	k := 0
	for _, e := range s.events {
		if e.Event == EvProbe {
			k++
		}
	}
	return k
}

// Outcomes of pairVerdict.
const (
	pairUndecided = iota
	pairDiffers
	pairSame
)

// pairVerdict is the verification of culprit against parent as it
// stands: the blocks of that pair since the last probe, a sequential
// probability ratio test (Wald 1945) of a difference of the step between
// the ends (endsStep) against none, with the bounds
// Confidence/(1-Confidence) x k(k+1) for the k-th verification of the
// search (verifications) and Confidence/(1-Confidence)'s inverse, after
// at least VerifyRuns of each side and at most 5 x VerifyRuns (then
// pairSame: not shown).
// It checks the candidate on the pair alone, so that a range that the
// one-step model does not fit (two smaller steps, a level the blocks
// could not absorb) does not end with a culprit its neighbours made.
func (s *Search) pairVerdict(parent, culprit int) int {
	llr, n := s.pairEvidence(parent, culprit)
	k := float64(s.verifications())
	bound := math.Log(s.Opt.Confidence / (1 - s.Opt.Confidence) * k * (k + 1))
	switch {
	case n < s.Opt.VerifyRuns:
		return pairUndecided
	case llr >= bound:
		return pairDiffers
	case llr <= -bound || n >= 5*s.Opt.VerifyRuns:
		return pairSame
	}
	return pairUndecided
}

// verifications returns the number of the verification under way: one
// more than the verifications that a probe ended (each a run of
// verification events). The k-th is accepted only at a likelihood ratio
// of c/(1-c) x k(k+1): over any number of them, the chance that one
// accepts a pair that does not differ stays below (1-c)/c, as the sum of
// 1/(k(k+1)) is 1.
func (s *Search) verifications() int {
	k, in := 1, false
	for _, e := range s.events {
		switch e.Event {
		case EvVerify:
			in = true
		case EvProbe, EvRef:
			if in {
				k++
			}
			in = false
		}
	}
	return k
}

// pairLogLR is the log likelihood ratio of pairVerdict.
func (s *Search) pairLogLR(parent, culprit int) float64 {
	llr, _ := s.pairEvidence(parent, culprit)
	return llr
}

// pairEvidence returns the log likelihood ratio of the pair's blocks
// since the last probe and the values of its fewer side.
func (s *Search) pairEvidence(parent, culprit int) (float64, int) {
	nums := map[int]bool{}
	for k := len(s.events) - 1; k >= 0; k-- {
		e := s.events[k]
		if e.Event == EvProbe || e.Event == EvRef {
			break
		}
		if b := s.m.blocks[e.Block]; e.Event == EvVerify && b != nil && b.lo == parent && b.hi == culprit {
			nums[e.Block] = true
		}
	}
	return s.m.pairLR(nums, s.m.endsStep())
}

func cdf(p []float64, i int) float64 {
	c := 0.0
	for j := 0; j <= i; j++ {
		c += p[j]
	}
	return c
}

// parent returns the last testable commit before group g.
func (s *Search) parent(g group) int {
	for i := g.last - 1; i > 0; i-- {
		if _, ok := s.m.skipped[i]; !ok {
			return i
		}
	}
	return 0
}

// measure builds commit i (or takes its build from the cache: the ends
// and the last four others) and measures k repetitions.
func (s *Search) measure(ctx context.Context, i, k int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.lastMeasured = i
	b, ok := s.built[i]
	if !ok {
		s.say("build %s", textfmt.Commit(s.Commits[i].Hash))
		var err error
		if b, err = s.Prober.Build(ctx, s.Commits[i]); err != nil {
			return nil, err
		}
		s.built[i] = b
		if err := s.evict(); err != nil {
			return nil, err
		}
	} else {
		for j, c := range s.order {
			if c == i {
				s.order = append(s.order[:j], s.order[j+1:]...)
				break
			}
		}
	}
	s.order = append(s.order, i)
	xs, err := b.Measure(ctx, k)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, &SkipError{Reason: "the measurement gave no value of the metric"}
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &SkipError{Reason: fmt.Sprintf("the measurement gave the value %v", x)}
		}
	}
	return xs, nil
}

// evict closes the least recently used build that is not an end while
// more than four others are kept: the ends are measured throughout.
func (s *Search) evict() error {
	others := 0
	for _, c := range s.order {
		if c != 0 && c != s.m.n {
			others++
		}
	}
	for k, c := range s.order {
		if others < 4 {
			break
		}
		if c == 0 || c == s.m.n {
			continue
		}
		s.order = append(s.order[:k], s.order[k+1:]...)
		if ob := s.built[c]; ob != nil {
			delete(s.built, c)
			return ob.Close()
		}
		return nil
	}
	return nil
}

// drop closes and forgets the build of commit i.
func (s *Search) drop(i int) {
	if b, ok := s.built[i]; ok {
		b.Close()
		delete(s.built, i)
		for j, c := range s.order {
			if c == i {
				s.order = append(s.order[:j], s.order[j+1:]...)
				break
			}
		}
	}
}

// closeAll closes every build.
func (s *Search) closeAll() error {
	var first error
	for _, i := range s.order {
		if b := s.built[i]; b != nil {
			if err := b.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	s.built, s.order = map[int]Built{}, nil
	return first
}
