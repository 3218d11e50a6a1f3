package bisect

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func simSearch(t *testing.T, seed uint64, n, culprit int, shift float64, opt Options, store Store, events []Event) (*Search, *simProber) {
	t.Helper()
	cs, idx := simCommits(n)
	p := &simProber{culprit: culprit, shift: shift, rng: rand.New(rand.NewPCG(seed, 1)), index: idx, fail: map[int]bool{}}
	if opt.Now == nil {
		opt.Now = func() time.Time { return time.Unix(0, 0) }
	}
	s, err := New(cs, opt, store, p, events)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// TestBudgetStops: a budget of runs and a budget of time each stop the
// search and say which; the runs never exceed the budget.
func TestBudgetStops(t *testing.T) {
	s, _ := simSearch(t, 1, 1024, 300, 1, Options{BudgetRuns: 70, VerifyRuns: -1}, &Memory{}, nil)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopBudgetRuns || res.Runs.Total > 70 || res.StopText == "" {
		t.Fatalf("stop %q (%s), runs %+v: want budget-runs within 70", res.Stop, res.StopText, res.Runs)
	}
	clock := time.Unix(0, 0)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }
	s, _ = simSearch(t, 2, 1024, 300, 1, Options{BudgetTime: 20 * time.Second, VerifyRuns: -1, Now: tick}, &Memory{}, nil)
	if res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopBudgetTime {
		t.Fatalf("stop %q, want budget-time", res.Stop)
	}
}

// cancelAfter is a Store that cancels the search's context after n
// events: a kill between two batches.
type cancelAfter struct {
	Memory
	n      int
	cancel func()
}

func (c *cancelAfter) Append(e Event) error {
	c.Memory.Append(e)
	if len(c.Events) == c.n {
		c.cancel()
	}
	return nil
}

// TestResumeKeepsEvidence: a search cancelled after 12 events and
// continued from them ends as a search does (confident, the culprit),
// with every earlier batch in its evidence and its runs counted once.
func TestResumeKeepsEvidence(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st := &cancelAfter{n: 12, cancel: cancel}
	s, _ := simSearch(t, 3, 256, 100, 2, Options{}, st, nil)
	if _, err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled search: %v", err)
	}
	before := append([]Event(nil), st.Events...)
	mem := &Memory{Events: append([]Event(nil), before...)}
	s, _ = simSearch(t, 4, 256, 100, 2, Options{}, mem, before)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopConfident || res.Top[0].Index != 100 || res.Verify == nil || !res.Verify.Verified {
		t.Fatalf("resumed: stop %q, top %+v, verify %+v", res.Stop, res.Top, res.Verify)
	}
	n := 0
	for _, e := range mem.Events {
		n += len(e.Values)
	}
	if n != res.Runs.Total {
		t.Fatalf("runs %d, the ledger's values %d", res.Runs.Total, n)
	}
	for i := range before {
		if mem.Events[i].Event != before[i].Event {
			t.Fatalf("event %d changed", i)
		}
	}
}

// TestSkippedMass: a commit that does not build is skipped, never
// probed again, and its mass is reported with the group of the next.
func TestSkippedMass(t *testing.T) {
	s, p := simSearch(t, 5, 64, 33, 3, Options{VerifyRuns: -1}, &Memory{}, nil)
	p.fail[32], p.fail[31] = true, true
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 2 {
		t.Fatalf("skipped %+v", res.Skipped)
	}
	top := res.Top[0]
	if top.Index != 33 || len(top.Skipped) != 2 || top.P < top.POwn {
		t.Fatalf("top %+v: want 33 with the skipped 31, 32 before it", top)
	}
	skips := 0
	for _, e := range s.events {
		if e.Event == EvProbe && (e.Commit == 31 || e.Commit == 32) {
			t.Fatalf("a skipped commit was probed: %+v", e)
		}
		if e.Event == EvSkip {
			skips++
		}
	}
	if skips != 2 {
		t.Fatalf("%d skip events", skips)
	}
}

// TestLedgerTornLine: a torn last line (a kill mid-write) is skipped
// and the next event starts a line of its own.
func TestLedgerTornLine(t *testing.T) {
	dir := t.TempDir()
	l := Ledger{Dir: dir}
	if err := l.Append(Event{Event: EvProbe, Commit: 3, Values: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LedgerFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event":"probe","commit":4,"val`)
	f.Close()
	if err := l.Append(Event{Event: EvSkip, Commit: 5, Reason: "x"}); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Commit != 3 || evs[1].Commit != 5 {
		t.Fatalf("events %+v", evs)
	}
}

// TestClassify: the verdict for git bisect run on a commit before and
// after the culprit, and skip for one that does not build.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		i    int
		fail bool
		want string
	}{{10, false, VerdictGood}, {40, false, VerdictBad}, {20, true, VerdictSkip}} {
		s, p := simSearch(t, uint64(c.i), 64, 30, 2, Options{}, &Memory{}, nil)
		p.fail[c.i] = c.fail
		v, err := s.Classify(context.Background(), c.i, 30)
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict != c.want {
			t.Errorf("commit %d: %+v, want %s", c.i, v, c.want)
		}
	}
}

// TestLockRefusesSecondSession: while one session holds a search's lock,
// another is refused with its pid; after it ends, the lock is free.
func TestLockRefusesSecondSession(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "running in another contend (pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}

// TestPrior: a prior file weighs the commits it names; the posterior
// before any probe is the normalised prior; bad lines are refused with
// their number.
func TestPrior(t *testing.T) {
	cs, _ := simCommits(10)
	w, err := ParsePrior(strings.NewReader("# hot spot\nc0004 7\n\nc0009 2\n"), cs)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(10, w)
	p := m.posterior()
	if math.Abs(p[4]-7.0/17) > 1e-12 || math.Abs(p[9]-2.0/17) > 1e-12 || math.Abs(p[1]-1.0/17) > 1e-12 {
		t.Fatalf("posterior %v, want the prior 1,1,1,7,1,1,1,1,2,1 over 17", p)
	}
	for _, c := range []struct{ in, want string }{
		{"c0004", "line 1"}, {"c0004 -1", "weight"}, {"zzzz 1", "not a commit"}, {"c000 1", "more than one"}, {"c0000 3", "not a commit after --good"},
	} {
		if _, err := ParsePrior(strings.NewReader(c.in), cs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestAAStopsAtCalibration: no change anywhere in the range (the same
// distribution at every commit; one fixed draw of the generator): the
// search stops at the calibration, 10 runs of each end, says so with the
// interval of the change, probes nothing and names no culprit (moved
// from cmd/contend's TestBisectAA, which ran it through real builds: the
// decision and its text are this package's).
func TestAAStopsAtCalibration(t *testing.T) {
	s, _ := simSearch(t, 5, 64, 65, 0, Options{CalibrateMin: 10, CalibrateMax: 10}, &Memory{}, nil)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopNoDifference || res.Runs.Calibration != 20 || res.Runs.Probes != 0 || res.Runs.Verify != 0 {
		t.Fatalf("stop %q, runs %+v: want no difference after 10 and 10 runs, no probe", res.Stop, res.Runs)
	}
	var b strings.Builder
	if err := Write(&b, res, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the ends do not differ", "nothing to bisect", "10 and 10 runs", "runs: 20 calibration + 0 probes + 0 of the ends beside them + 0 verification = 20"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "culprit") {
		t.Errorf("an A/A range names a culprit:\n%s", b.String())
	}
}

// flakyProber fails the measurements of commit bad from its (after+1)-th
// on, and of the good end when endFails: a machine that breaks during the
// verification.
type flakyProber struct {
	*simProber
	bad, after, calls int
}

type flakyBuilt struct {
	Built
	p *flakyProber
	i int
}

func (f *flakyProber) Build(ctx context.Context, c Commit) (Built, error) {
	b, err := f.simProber.Build(ctx, c)
	if err != nil {
		return nil, err
	}
	return &flakyBuilt{b, f, f.index[c.Hash]}, nil
}

func (b *flakyBuilt) Measure(ctx context.Context, n int) ([]float64, error) {
	if b.i == b.p.bad {
		b.p.calls++
		if b.p.calls > b.p.after {
			return nil, &SkipError{Reason: "the runs failed (simulated)"}
		}
	}
	return b.Built.Measure(ctx, n)
}

// TestVerificationFailureGoesOn: the culprit's parent fails in the
// middle of its verification (before 2026-12 this ended the search with
// "verification: none", exit 0, and resume never redid it): the parent is
// skipped, the search goes on, verifies the culprit against the commit
// before the parent and ends with the culprit, the skipped parent named
// before it.
func TestVerificationFailureGoesOn(t *testing.T) {
	s, p := simSearch(t, 11, 64, 30, 2, Options{}, &Memory{}, nil)
	fp := &flakyProber{simProber: p, bad: 29}
	s.Prober = fp
	// The parent's batches before its verification: count its probes in
	// a first search of the same seed with nothing failing.
	ref, _ := simSearch(t, 11, 64, 30, 2, Options{}, &Memory{}, nil)
	res, err := ref.Run(context.Background())
	if err != nil || res.Verify == nil || res.Verify.Parent.Hash != "c0029" {
		t.Fatalf("reference search: %v, %+v", err, res.Verify)
	}
	for _, e := range ref.events {
		if e.Event == EvProbe && e.Commit == 29 {
			fp.after++
		}
	}
	fp.after++ // and one block of its verification
	res, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopConfident || res.Top[0].Index != 30 || len(res.Top[0].Skipped) != 1 || res.Top[0].Skipped[0].Hash != "c0029" {
		t.Fatalf("stop %q, top %+v: want 30 with the skipped 29 before it", res.Stop, res.Top)
	}
	if res.Verify == nil || !res.Verify.Verified || res.Verify.Parent.Hash != "c0028" {
		t.Fatalf("verification %+v: want 28 beside 30, verified", res.Verify)
	}
}

// TestEndFailureStopsResumably: an end that cannot be measured during the
// search stops it with an error naming the end; resumed with a machine
// that works, it ends as a search does.
func TestEndFailureStopsResumably(t *testing.T) {
	mem := &Memory{}
	s, p := simSearch(t, 12, 64, 30, 2, Options{}, mem, nil)
	s.Prober = &flakyProber{simProber: p, bad: 0, after: 6}
	if _, err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "the good end c0000 cannot be measured") {
		t.Fatalf("err %v, want the good end named", err)
	}
	s, _ = simSearch(t, 13, 64, 30, 2, Options{}, mem, append([]Event(nil), mem.Events...))
	res, err := s.Run(context.Background())
	if err != nil || res.Stop != StopConfident || res.Top[0].Index != 30 {
		t.Fatalf("resumed: %v, %+v", err, res)
	}
}

// TestLedgerRefusals: what the ledger's reader refuses, each in one line
// naming the event: a line after the end, an event of a batch without a
// block (a ledger of the search before 2026-12), a block of three commits.
func TestLedgerRefusals(t *testing.T) {
	cs, _ := simCommits(8)
	for _, c := range []struct {
		evs  []Event
		want string
	}{
		{[]Event{{Event: EvEnd, Stop: StopBudgetRuns}, {Event: EvSession}}, "after the end"},
		{[]Event{{Event: EvCalibrate, Commit: 0, Values: []float64{1}}}, "in no block"},
		{[]Event{{Event: EvCalibrate, Commit: 0, Block: 1, Values: []float64{1}}, {Event: EvCalibrate, Commit: 8, Block: 1, Values: []float64{1}},
			{Event: EvProbe, Commit: 3, Block: 1, Values: []float64{1}}}, "block 1 has commits 0 and 8"},
		{[]Event{{Event: EvProbe, Commit: 8, Block: 1, Values: []float64{1}}}, "of the end 8"},
	} {
		_, err := New(cs, Options{}, &Memory{}, nil, c.evs)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line with %q", c.evs, err, c.want)
		}
	}
}

// TestOpenRefusesDamagedPlan: a plan with too few commits, or options no
// search accepts, is refused in one line naming the plan (it once gave
// "-1 commits after the good one").
func TestOpenRefusesDamagedPlan(t *testing.T) {
	for _, c := range []struct{ plan, want string }{
		{`{"format":"contend-bisect","commits":[]}`, "names 0 commits"},
		{`{"format":"contend-bisect","commits":[{"hash":"a"},{"hash":""},{"hash":"c"}]}`, "commit 1 has no hash"},
		{`{"format":"contend-bisect","commits":[{"hash":"a"},{"hash":"b"},{"hash":"c"}],"options":{"runs":-3}}`, "--runs"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, PlanFile), []byte(c.plan), 0o644)
		_, _, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "damaged") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.plan, err, c.want)
		}
	}
}
