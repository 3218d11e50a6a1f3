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
	"contend/internal/ab"
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
	// BudgetRuns stops the search before a batch would take the runs
	// (calibration and probes) above it; 0: no budget.
	BudgetRuns int
	// BudgetTime stops the search once this much time has passed since
	// it started (counted over every session of a resumed search); 0:
	// no budget.
	BudgetTime time.Duration
	// VerifyRuns is the number of repetitions of each side of the final
	// A/B of the culprit's parent against it: 10; negative: no check.
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
		return fmt.Errorf("--budget-runs: %d is not accepted; accepted: 0 (none) or more", o.BudgetRuns)
	case o.BudgetTime < 0:
		return fmt.Errorf("--budget-time: %v is not accepted; accepted: 0 (none) or a positive duration", o.BudgetTime)
	case o.VerifyRuns < -1 || o.VerifyRuns > 1000:
		return fmt.Errorf("--verify-runs: %d is not accepted; accepted: 0 (none) to 1000", o.VerifyRuns)
	}
	o.fill()
	if o.BudgetRuns > 0 && o.BudgetRuns < 2*o.CalibrateMax+o.Runs {
		return fmt.Errorf("--budget-runs: %d is not accepted; accepted: 0 (none) or at least %d (the calibration's most, 2 x --calibrate-max, and one probe)", o.BudgetRuns, 2*o.CalibrateMax+o.Runs)
	}
	if _, err := analysis.NewSequentialSpending(o.Alpha, o.CalibrateMin, o.CalibrateMax, 0, analysis.SpendOBrienFleming); err != nil {
		return fmt.Errorf("--calibrate %d and --calibrate-max %d: %v", o.CalibrateMin, o.CalibrateMax, err)
	}
	return nil
}

// Event kinds of the ledger.
const (
	EvCalibrate = "calibrate" // values of an end (Commit 0 or n)
	EvProbe     = "probe"     // values of a probed commit
	EvSkip      = "skip"      // a commit that could not be measured
	EvVerify    = "verify"    // values of the final A/B (Side parent or culprit)
	EvSession   = "session"   // a session of the search began
	EvEnd       = "end"       // the search ended: Stop says why
)

// Event is one line of the ledger.
type Event struct {
	Time   time.Time `json:"time"`
	Event  string    `json:"event"`
	Commit int       `json:"commit"` // index in the range: 0 good end, n bad end
	Hash   string    `json:"hash,omitempty"`
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
	StopConfident    = "confident"     // a candidate reached Confidence
	StopBudgetRuns   = "budget-runs"   // the next batch would exceed BudgetRuns
	StopBudgetTime   = "budget-time"   // BudgetTime passed
	StopExhausted    = "exhausted"     // no commit left to probe
	StopNoDifference = "no-difference" // the ends do not differ: nothing to bisect
)

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
}

// New returns the search over commits (good end first, at least three:
// good, one to test, bad) with the events of earlier sessions (nil for a
// new search).
func New(commits []Commit, opt Options, store Store, prober Prober, events []Event) (*Search, error) {
	if len(commits) < 3 {
		return nil, fmt.Errorf("the range has %d commits after the good one: nothing to bisect (the culprit is the bad end)", len(commits)-1)
	}
	opt.fill()
	n := len(commits) - 1
	if opt.Prior != nil && len(opt.Prior) != n+1 {
		return nil, fmt.Errorf("the prior has %d weights for %d commits", len(opt.Prior)-1, n)
	}
	s := &Search{Commits: commits, Opt: opt, Store: store, Prober: prober, m: newModel(n, opt.Prior), built: map[int]Built{}}
	for _, e := range events {
		if err := s.apply(e); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// apply adds e to the evidence.
func (s *Search) apply(e Event) error {
	n := s.m.n
	if e.Commit < 0 || e.Commit > n {
		return fmt.Errorf("ledger: event %q names commit %d outside 0..%d", e.Event, e.Commit, n)
	}
	if e.Hash != "" && e.Hash != s.Commits[e.Commit].Hash {
		return fmt.Errorf("ledger: event %q names commit %d as %s, but the range has %s there", e.Event, e.Commit, e.Hash, s.Commits[e.Commit].Hash)
	}
	for _, x := range e.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("ledger: event %q of commit %d has the value %v", e.Event, e.Commit, x)
		}
	}
	switch e.Event {
	case EvCalibrate:
		switch e.Commit {
		case 0:
			s.m.ends[0] = s.m.ends[0].Merge(analysis.MomentsOf(e.Values))
		case n:
			s.m.ends[1] = s.m.ends[1].Merge(analysis.MomentsOf(e.Values))
		default:
			return fmt.Errorf("ledger: calibration values of commit %d, not an end", e.Commit)
		}
	case EvProbe:
		s.m.batches = append(s.m.batches, batch{commit: e.Commit, m: analysis.MomentsOf(e.Values)})
	case EvSkip:
		if e.Commit == 0 || e.Commit == n {
			return fmt.Errorf("ledger: the end %s is skipped", s.Commits[e.Commit].Hash)
		}
		s.m.skipped[e.Commit] = e.Reason
	case EvSession:
		if !e.Time.IsZero() && len(s.events) > 0 {
			// Time of the previous session: up to its last event.
			s.elapsed += s.lastTime().Sub(s.sessionStart())
		}
	case EvVerify, EvEnd:
	default:
		return fmt.Errorf("ledger: unknown event %q", e.Event)
	}
	s.events = append(s.events, e)
	return nil
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
	if stop != StopNoDifference && s.Opt.VerifyRuns > 0 {
		if err := s.verify(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.record(Event{Event: EvEnd, Commit: 0, Stop: stop}); err != nil {
		return nil, err
	}
	return s.Result(stop), nil
}

// count returns the values recorded by events of kind ev (and side).
func (s *Search) values(ev string, commit int, side string) []float64 {
	var xs []float64
	for _, e := range s.events {
		if e.Event == ev && e.Commit == commit && e.Side == side {
			xs = append(xs, e.Values...)
		}
	}
	return xs
}

// calibration returns the sequential rule of the calibration.
func (s *Search) calibration() (*analysis.Sequential, error) {
	return analysis.NewSequentialSpending(s.Opt.Alpha, s.Opt.CalibrateMin, s.Opt.CalibrateMax, 0, analysis.SpendOBrienFleming)
}

// calibrate measures both ends, batches in ABBA order, until the
// group-sequential test decides whether they differ. It returns
// StopNoDifference when they do not.
func (s *Search) calibrate(ctx context.Context) (string, error) {
	seq, err := s.calibration()
	if err != nil {
		return "", fmt.Errorf("calibration: %w", err)
	}
	n := s.m.n
	for {
		a, b := s.values(EvCalibrate, 0, ""), s.values(EvCalibrate, n, "")
		if len(a) == len(b) && len(a) > 0 {
			d, err := seq.Decide(min(len(a), seq.MaxRuns), a, b)
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
		// The next batch: the end with fewer values, the good end first
		// at a tie, except every other round (ABBA).
		end := 0
		switch {
		case len(b) < len(a):
			end = n
		case len(a) == len(b) && (len(a)/s.Opt.Runs)%2 == 1:
			end = n
		}
		got := len(a)
		if end == n {
			got = len(b)
		}
		k := min(s.Opt.Runs, seq.MaxRuns-got)
		if k <= 0 {
			k = s.Opt.Runs
		}
		xs, err := s.measure(ctx, end, k)
		var se *SkipError
		if errors.As(err, &se) {
			return "", fmt.Errorf("the %s end %s cannot be measured: %s", endName(end, n), short(s.Commits[end].Hash), se.Reason)
		}
		if err != nil {
			return "", err
		}
		if err := s.record(Event{Event: EvCalibrate, Commit: end, Values: xs}); err != nil {
			return "", err
		}
		s.say("calibration: %s end %s: %d values", endName(end, n), short(s.Commits[end].Hash), len(xs))
	}
}

func endName(end, n int) string {
	if end == 0 {
		return "good"
	}
	return "bad"
}

// runs returns the repetitions of calibration, probes and verification.
func (s *Search) runs() (cal, probes, verify int) {
	for _, e := range s.events {
		switch e.Event {
		case EvCalibrate:
			cal += len(e.Values)
		case EvProbe:
			probes += len(e.Values)
		case EvVerify:
			verify += len(e.Values)
		}
	}
	return
}

// probe probes commits at the posterior median until a stop rule holds.
func (s *Search) probe(ctx context.Context) (string, error) {
	for {
		p := s.m.posterior()
		if s.m.best(p) >= s.Opt.Confidence {
			return StopConfident, nil
		}
		cal, pr, _ := s.runs()
		if s.Opt.BudgetRuns > 0 && cal+pr+s.Opt.Runs > s.Opt.BudgetRuns {
			return StopBudgetRuns, nil
		}
		if s.Opt.BudgetTime > 0 && s.elapsed+s.Opt.Now().Sub(s.started) >= s.Opt.BudgetTime {
			return StopBudgetTime, nil
		}
		i := s.m.next(p)
		if i < 0 {
			return StopExhausted, nil
		}
		xs, err := s.measure(ctx, i, s.Opt.Runs)
		var se *SkipError
		if errors.As(err, &se) {
			s.drop(i)
			if err := s.record(Event{Event: EvSkip, Commit: i, Reason: se.Reason}); err != nil {
				return "", err
			}
			s.say("skip %s: %s", short(s.Commits[i].Hash), se.Reason)
			continue
		}
		if err != nil {
			return "", err
		}
		if err := s.record(Event{Event: EvProbe, Commit: i, Values: xs}); err != nil {
			return "", err
		}
		s.say("probe %s (P(bad) before %.3f): %d values", short(s.Commits[i].Hash), cdf(p, i), len(xs))
	}
}

func cdf(p []float64, i int) float64 {
	c := 0.0
	for j := 0; j <= i; j++ {
		c += p[j]
	}
	return c
}

// verify runs the culprit's parent against the culprit, interleaved in
// ABBA order of batches (Pinpoint's sandwich), VerifyRuns each.
func (s *Search) verify(ctx context.Context) error {
	best := top(s.m.groups(s.m.posterior()), 1)
	if len(best) == 0 {
		return nil
	}
	culprit, parent := best[0].last, s.parent(best[0])
	sides := [2]int{parent, culprit}
	names := [2]string{"parent", "culprit"}
	per := s.Opt.Runs
	pairs := (s.Opt.VerifyRuns + per - 1) / per
	order := ab.OrderABBA.Sequence(pairs, 0)
	// Batches already in the ledger (a resumed verification) count.
	have := [2]int{len(s.values(EvVerify, parent, "parent")), len(s.values(EvVerify, culprit, "culprit"))}
	done := [2]int{}
	for _, side := range order {
		if done[side]+per <= have[side] {
			done[side] += per
			continue
		}
		k := min(per, s.Opt.VerifyRuns-have[side])
		if k <= 0 {
			continue
		}
		xs, err := s.measure(ctx, sides[side], k)
		var se *SkipError
		if errors.As(err, &se) {
			s.say("verification: %s %s cannot be measured: %s", names[side], short(s.Commits[sides[side]].Hash), se.Reason)
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.record(Event{Event: EvVerify, Commit: sides[side], Side: names[side], Values: xs}); err != nil {
			return err
		}
		have[side] += len(xs)
		done[side] = have[side]
	}
	return nil
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

// measure builds commit i (or takes its build from the cache of the last
// four) and measures k repetitions.
func (s *Search) measure(ctx context.Context, i, k int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, ok := s.built[i]
	if !ok {
		s.say("build %s", short(s.Commits[i].Hash))
		var err error
		if b, err = s.Prober.Build(ctx, s.Commits[i]); err != nil {
			return nil, err
		}
		s.built[i] = b
		if len(s.order) >= 4 {
			old := s.order[0]
			s.order = s.order[1:]
			if ob := s.built[old]; ob != nil {
				delete(s.built, old)
				if err := ob.Close(); err != nil {
					return nil, err
				}
			}
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

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
