package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contend/internal/env"
	"contend/internal/evidence"
	"contend/internal/harness"
	"contend/internal/lock"
	"contend/internal/results"
	"contend/internal/testutil"
)

// fakeUI records what a run tells its user.
type fakeUI struct {
	notices, problems []string
	reps              []int
	done              int
	onNotice          func(string)
}

func (u *fakeUI) Notice(l string) {
	u.notices = append(u.notices, l)
	if u.onNotice != nil {
		u.onNotice(l)
	}
}
func (u *fakeUI) Problem(l string)    { u.problems = append(u.problems, l) }
func (u *fakeUI) Rep(rep results.Rep) { u.reps = append(u.reps, rep.Index) }
func (u *fakeUI) Done()               { u.done++ }
func (u *fakeUI) said(s string) bool  { return slices.ContainsFunc(u.notices, contains(s)) }
func contains(s string) func(string) bool {
	return func(l string) bool { return strings.Contains(l, s) }
}

// fakeRunner runs nothing: each repetition is ok with real = 10*(slot
// config + 1), and the slots it was given are kept.
type fakeRunner struct{ slots []Slot }

func (r *fakeRunner) run(_ context.Context, s Slot) harness.Outcome {
	r.slots = append(r.slots, s)
	return harness.Outcome{Rep: results.Rep{Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"real": float64(10 * (s.Config + 1))})}}
}

// newJob is a job of two configurations, three slots, a private lock and
// result file, no environment and no stale-set warning.
func newJob(t *testing.T, r *fakeRunner) Job {
	t.Helper()
	old := Stale
	t.Cleanup(func() { Stale = old })
	Stale = func() string { return "" }
	dir := t.TempDir()
	return Job{
		File: &results.File{Format: results.FormatName, Version: results.FormatVersion, Kind: "ab", Workload: "fake",
			Primary: "real", Metrics: []results.Metric{{Name: "real", Unit: "ns"}},
			Configs: []results.Config{{Name: "a"}, {Name: "b"}}},
		Out:    filepath.Join(dir, "out.json"),
		Lock:   Lock{Path: filepath.Join(dir, "lock"), Argv: []string{"contend", "test"}},
		Plan:   harness.StaticPlan([]harness.Slot{{Config: 0, Warmup: true, Round: -1}, {Config: 1}, {Config: 0, Round: 1}}),
		Runner: r.run,
	}
}

// recorder is hooks that log their calls to one list.
type recorder struct{ log []string }

func (r *recorder) hook(name string) Hook {
	return Hook{
		Open: func(f *results.File) error {
			r.log = append(r.log, "open "+name)
			return nil
		},
		Before: func(_ context.Context, s harness.Slot) (string, error) {
			r.log = append(r.log, fmt.Sprintf("before %s %d", name, s.Config))
			return name + ";", nil
		},
		Close: func(UI) error {
			r.log = append(r.log, "close "+name)
			return nil
		},
	}
}

func lockFree(t *testing.T, path string) {
	t.Helper()
	if h, held := lock.Current(path); held {
		t.Errorf("the lock is still held by %v", h)
	}
}

// TestDoRunsTheJob: every slot of the plan runs once with its slot, the
// hooks' outputs and its configuration's evidence; the file records
// each repetition with its slot and derived metric and ends complete;
// the hooks open in order and close in reverse after the report; the
// lock is released.
func TestDoRunsTheJob(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	rec := &recorder{}
	job.Hooks = []Hook{rec.hook("h1"), rec.hook("h2")}
	job.File.Metrics = append(job.File.Metrics, results.Metric{Name: "twice", Unit: "ns"})
	job.Derive = func(rep *results.Rep) { rep.Metrics.Set("twice", 2*rep.Metrics.Get("real")) }
	var after []int
	job.After = func(rep results.Rep) { after = append(after, rep.Index) }
	c := &testutil.CountingCollector{}
	oldOpen := openEvidence
	t.Cleanup(func() { openEvidence = oldOpen })
	openEvidence = func(names []string, _ evidence.Run) *evidence.Set {
		return &evidence.Set{Active: []evidence.Collector{c}, Avail: map[string]string{"count": "available"}}
	}
	job.Evidence = []string{"count"}
	job.ConfigEvidence = [][]string{nil, {"count"}}
	var reported Outcome
	job.Report = func(o Outcome) error {
		reported = o
		rec.log = append(rec.log, "report")
		return errors.New("report's error")
	}
	ui := &fakeUI{}
	o, err := Do(context.Background(), job, ui)
	if err == nil || err.Error() != "report's error" {
		t.Errorf("Do: %v, want the report's error", err)
	}
	if o.Err != nil || reported.Out != o.Out || o.Out == nil {
		t.Errorf("outcome %+v, reported %+v", o, reported)
	}
	want := []string{"open h1", "open h2", "before h1 0", "before h2 0", "before h1 1", "before h2 1", "before h1 0", "before h2 0", "report", "close h2", "close h1"}
	if !slices.Equal(rec.log, want) {
		t.Errorf("hooks %q, want %q", rec.log, want)
	}
	if len(r.slots) != 3 || r.slots[1].Config != 1 || r.slots[2].Round != 1 || r.slots[0].Prepared != "h1;h2;" {
		t.Errorf("slots %+v", r.slots)
	}
	if n := len(r.slots[0].Evidence.Active); n != 0 {
		t.Errorf("config 0 collects %d collectors, want none (its view)", n)
	}
	if n := len(r.slots[1].Evidence.Active); n != 1 {
		t.Errorf("config 1 collects %d collectors, want count", n)
	}
	f, err := results.Read(job.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Complete || len(f.Reps) != 3 || f.Evidence["count"] != "available" {
		t.Fatalf("file: complete %v, %d reps, evidence %v", f.Complete, len(f.Reps), f.Evidence)
	}
	for i, rep := range f.Reps {
		s := r.slots[i].Slot
		if rep.Index != i || rep.Config != s.Config || rep.Warmup != s.Warmup || rep.Round != s.Round || rep.Metrics.Get("twice") != 2*rep.Metrics.Get("real") {
			t.Errorf("rep %d: %+v, slot %+v", i, rep, s)
		}
	}
	if !slices.Equal(ui.reps, []int{0, 1, 2}) || !slices.Equal(after, ui.reps) || ui.done != 1 {
		t.Errorf("ui reps %v, after %v, done %d", ui.reps, after, ui.done)
	}
	lockFree(t, job.Lock.Path)
}

// TestDoEnvironment: the environment is captured once the lock is held,
// and its warnings (env.Diagnose with the job's thread count) and the
// stale-set warning follow the job's own in the file and on the UI.
func TestDoEnvironment(t *testing.T) {
	job := newJob(t, &fakeRunner{})
	job.File.Warnings = []string{"own warning"}
	job.Env = func() env.Fingerprint {
		return env.Fingerprint{"cpu.online": "2", "loadavg": "9.00 1 1", "virt": "kvm"}
	}
	job.Threads, job.Oversubscribe = 8, true
	env.OverrideRunnableForTest(3)
	defer env.OverrideRunnableForTest(-1)
	Stale = func() string { return "stale sets" }
	ui := &fakeUI{}
	if _, err := Do(context.Background(), job, ui); err != nil {
		t.Fatal(err)
	}
	f, _ := results.Read(job.Out)
	w := f.Warnings
	if len(w) != 6 || w[0] != "own warning" || w[len(w)-1] != "stale sets" || f.Env["virt"] != "kvm" {
		t.Fatalf("warnings %q, env %v", w, f.Env)
	}
	for _, s := range []string{"load average 9.00", "virtual machine (kvm)", "3 other runnable threads", "8 threads on 2 online CPUs"} {
		if !slices.ContainsFunc(w, contains(s)) || !ui.said(s) {
			t.Errorf("no warning %q in %q / %q", s, w, ui.notices)
		}
	}
}

// TestDoSideThreads: an A/B run whose sides differ in thread count
// (Job.SideThreads) says the oversubscription of the side it concerns,
// once, and not of the side that fits.
func TestDoSideThreads(t *testing.T) {
	job := newJob(t, &fakeRunner{})
	job.Env = func() env.Fingerprint { return env.Fingerprint{"cpu.online": "2"} }
	job.Threads, job.SideThreads, job.Oversubscribe = 8, []int64{2, 8}, true
	env.OverrideRunnableForTest(0)
	defer env.OverrideRunnableForTest(-1)
	if _, err := Do(context.Background(), job, &fakeUI{}); err != nil {
		t.Fatal(err)
	}
	f, _ := results.Read(job.Out)
	want := "side B: 8 threads on 2 online CPUs: the run is oversubscribed and measures scheduling as much as contention"
	if !slices.Equal(f.Warnings, []string{want}) {
		t.Errorf("warnings %q, want %q", f.Warnings, want)
	}
}

// TestDoEarlyErrors: a run that cannot start gives back what it took: a
// hook whose Open fails leaves the hooks opened before it closed and the
// ones after it unopened; an --out that exists closes every hook; the
// lock is released, and nothing runs.
func TestDoEarlyErrors(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	rec := &recorder{}
	bad := rec.hook("bad")
	bad.Open = func(*results.File) error { return errors.New("no tracefs") }
	job.Hooks = []Hook{rec.hook("h1"), bad, rec.hook("h3")}
	if _, err := Do(context.Background(), job, &fakeUI{}); err == nil || err.Error() != "no tracefs" {
		t.Errorf("Do: %v", err)
	}
	if want := []string{"open h1", "close h1"}; !slices.Equal(rec.log, want) {
		t.Errorf("hooks %q, want %q", rec.log, want)
	}
	if _, err := os.Stat(job.Out); !os.IsNotExist(err) {
		t.Errorf("the result file was created: %v", err)
	}
	lockFree(t, job.Lock.Path)

	rec.log = nil
	job.Hooks = []Hook{rec.hook("h1"), rec.hook("h2")}
	os.WriteFile(job.Out, []byte("{}"), 0o644)
	_, err := Do(context.Background(), job, &fakeUI{})
	var oe *OutError
	if !errors.As(err, &oe) || !errors.Is(err, results.ErrExists) {
		t.Errorf("existing --out: %v, want an OutError of ErrExists", err)
	}
	if want := []string{"open h1", "open h2", "close h2", "close h1"}; !slices.Equal(rec.log, want) {
		t.Errorf("hooks %q, want %q", rec.log, want)
	}
	if len(r.slots) != 0 {
		t.Errorf("%d repetitions ran", len(r.slots))
	}
	lockFree(t, job.Lock.Path)
}

// TestDoLockBusy: with NoWait a held lock is a LockError of a
// lock.BusyError, and nothing is opened; waiting, cancellation ends the
// wait with a LockError of context.Canceled.
func TestDoLockBusy(t *testing.T) {
	job := newJob(t, &fakeRunner{})
	held, err := lock.Acquire(context.Background(), job.Lock.Path, []string{"other"}, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	rec := &recorder{}
	job.Hooks = []Hook{rec.hook("h")}
	job.Lock.NoWait = true
	_, err = Do(context.Background(), job, &fakeUI{})
	var le *LockError
	var be *lock.BusyError
	if !errors.As(err, &le) || !errors.As(err, &be) {
		t.Errorf("busy: %v", err)
	}
	job.Lock.NoWait = false
	ctx, cancel := context.WithCancel(context.Background())
	ui := &fakeUI{onNotice: func(l string) {
		if strings.HasPrefix(l, "waiting: another benchmark holds ") {
			cancel()
		}
	}}
	_, err = Do(ctx, job, ui)
	if !errors.As(err, &le) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	if len(rec.log) != 0 {
		t.Errorf("hooks %q ran without the lock", rec.log)
	}
}

// TestDoInterrupted: a cancelled run ends with ErrInterrupted, its file
// finished incomplete with the repetitions done; a repetition that says
// it was interrupted ends the run the same way.
func TestDoInterrupted(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	job.After = func(results.Rep) { cancel() }
	o, err := Do(ctx, job, &fakeUI{})
	if !errors.Is(err, harness.ErrInterrupted) || !errors.Is(o.Err, harness.ErrInterrupted) {
		t.Errorf("Do: %v", err)
	}
	f, _ := results.Read(job.Out)
	if f.Complete || len(f.Reps) != 1 {
		t.Errorf("complete %v with %d reps, want 1 and incomplete", f.Complete, len(f.Reps))
	}

	job = newJob(t, r)
	job.Runner = func(context.Context, Slot) harness.Outcome {
		return harness.Outcome{Rep: results.Rep{Status: results.StatusInterrupted}}
	}
	if _, err := Do(context.Background(), job, &fakeUI{}); !errors.Is(err, harness.ErrInterrupted) {
		t.Errorf("interrupted repetition: %v", err)
	}
}

// TestDoHookErrors: an error of a Before step ends the run with it; a
// Close error is said as a problem; a cancellation during Before is an
// interruption.
func TestDoHookErrors(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	job.Hooks = []Hook{{
		Before: func(context.Context, harness.Slot) (string, error) { return "", errors.New("prepare failed") },
		Close:  func(UI) error { return errors.New("restore failed") },
	}}
	ui := &fakeUI{}
	if _, err := Do(context.Background(), job, ui); err == nil || err.Error() != "prepare failed" {
		t.Errorf("Do: %v", err)
	}
	if len(r.slots) != 0 || !slices.Equal(ui.problems, []string{"contend: restore failed"}) {
		t.Errorf("%d ran, problems %q", len(r.slots), ui.problems)
	}
	ctx, cancel := context.WithCancel(context.Background())
	job = newJob(t, r)
	job.Hooks = []Hook{{Before: func(context.Context, harness.Slot) (string, error) { cancel(); return "", errors.New("killed") }}}
	if _, err := Do(ctx, job, ui); !errors.Is(err, harness.ErrInterrupted) {
		t.Errorf("cancelled prepare: %v", err)
	}
}

// TestDoHookPanics: a hook that panics in the middle of the run still
// gets every hook closed, the file finished and the lock released; the
// panic goes on.
func TestDoHookPanics(t *testing.T) {
	r := &fakeRunner{}
	job := newJob(t, r)
	rec := &recorder{}
	boom := rec.hook("boom")
	boom.Before = func(_ context.Context, s harness.Slot) (string, error) {
		if s.Config == 1 {
			panic("hook bug")
		}
		return "", nil
	}
	job.Hooks = []Hook{rec.hook("h1"), boom}
	func() {
		defer func() {
			if p := recover(); p != "hook bug" {
				t.Errorf("recovered %v", p)
			}
		}()
		Do(context.Background(), job, &fakeUI{})
		t.Error("no panic")
	}()
	if n := len(rec.log); n < 2 || rec.log[n-2] != "close boom" || rec.log[n-1] != "close h1" {
		t.Errorf("hooks %q", rec.log)
	}
	f, err := results.Read(job.Out)
	if err != nil || f.Complete || len(f.Reps) != 1 || f.End.IsZero() {
		t.Errorf("file %v: complete %v, reps %d, end %v", err, f.Complete, len(f.Reps), f.End)
	}
	lockFree(t, job.Lock.Path)
}

// TestDoDefaultOut: without Out the file is results/NAME-DATE-TIME.jsonl
// (":" made "-"), and a second run in the same second gets -2.
func TestDoDefaultOut(t *testing.T) {
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(t.TempDir())
	var paths []string
	for i := 0; i < 2; i++ {
		job := newJob(t, &fakeRunner{})
		job.Out, job.Name = "", "exec:x-ab"
		job.Report = func(o Outcome) error { paths = append(paths, o.Out.Path()); return o.Err }
		if _, err := Do(context.Background(), job, &fakeUI{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) != 2 || !strings.HasPrefix(paths[0], "results/exec-x-ab-") || paths[0] == paths[1] {
		t.Errorf("paths %q", paths)
	}
}

// TestTerminal: off a terminal no progress line is drawn; a failed
// repetition is one line with its label, an ok one none; verbose says
// every one; quiet drops notices and failures but not problems.
func TestTerminal(t *testing.T) {
	var b bytes.Buffer
	ui := NewTerminal(&b, TerminalOptions{Total: 2, Metric: "real", Unit: "ns", Label: func(results.Rep) string { return "side a" }})
	ui.Notice("warning: x")
	ui.Rep(results.Rep{Index: 0, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"real": 1})})
	ui.Rep(results.Rep{Index: 1, Status: results.StatusFailed, Error: "boom\x1b"})
	ui.Done()
	if got, want := b.String(), "warning: x\nrepetition 2 (side a) failed: boom\\x1b\n"; got != want {
		t.Errorf("terminal %q, want %q", got, want)
	}
	b.Reset()
	ui = NewTerminal(&b, TerminalOptions{Verbose: true, Metric: "real", Unit: "ns", Side: func(results.Rep) string { return "side A" }})
	ui.Rep(results.Rep{Index: 0, Warmup: true, Status: results.StatusOK, LoadAvg: 0.5, Metrics: results.ValuesOf(map[string]float64{"real": 2e6})})
	ui.Rep(results.Rep{Index: 1, Status: results.StatusTimeout, Error: "timed out"})
	if got, want := b.String(), "repetition 1 (side A) warm-up: real 2.000 ms, load 0.50\nrepetition 2 (side A): timeout: timed out\n"; got != want {
		t.Errorf("verbose %q, want %q", got, want)
	}
	b.Reset()
	ui = NewTerminal(&b, TerminalOptions{Quiet: true})
	ui.Notice("warning: x")
	ui.Rep(results.Rep{Status: results.StatusFailed, Error: "boom"})
	ui.Problem("contend: broken")
	if got := b.String(); got != "contend: broken\n" {
		t.Errorf("quiet %q", got)
	}
}

// TestDoSizesTheEvidence: the collectors are opened for the run's
// largest thread count, of either side of an A/B run (the BPF maps are
// sized by it), 0 when the job does not say.
func TestDoSizesTheEvidence(t *testing.T) {
	for _, c := range []struct {
		threads int64
		sides   []int64
		want    int64
	}{{24576, nil, 24576}, {8, []int64{10, 300}, 300}, {0, nil, 0}} {
		job := newJob(t, &fakeRunner{})
		job.Threads, job.SideThreads = c.threads, c.sides
		oldOpen := openEvidence
		var got []evidence.Run
		openEvidence = func(names []string, r evidence.Run) *evidence.Set {
			got = append(got, r)
			return &evidence.Set{}
		}
		_, err := Do(context.Background(), job, &fakeUI{})
		openEvidence = oldOpen
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Tasks != c.want {
			t.Errorf("threads %d, sides %v: the collectors were opened for %+v, want one run of %d tasks", c.threads, c.sides, got, c.want)
		}
	}
}
