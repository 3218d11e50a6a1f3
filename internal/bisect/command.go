package bisect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"contend/internal/esc"
	"contend/internal/guest"
	"contend/internal/kbuild"
	"contend/internal/safefile"
	"contend/internal/vm"
)

// Request is what 'contend bisect' and 'contend bisect step' are asked,
// as their flags and arguments gave it: Start and Step check it.
type Request struct {
	Repo, Good, Bad, Build, Dir, Metric, Contend string
	Prior                                        string   // a file of 'REV WEIGHT' lines ("": uniform)
	Measure                                      []string // the measurement: run|exec ARGS...
	Options                                      Options
	VM                                           *VMRequest     // nil: not a kernel search (no --vm)
	Kernel                                       *KernelRequest // nil: --build builds (no --kernel-tree)
	KernelStray                                  string         // a flag that goes with --kernel-tree, given without it
	Stray                                        string         // a flag that goes with --vm, given without it
}

// VMRequest is the guest of a kernel search (--vm): its Machine (0 CPUs
// or MemMiB take guest.Machine.Check's defaults, which fit the host),
// the boots of a probe and the runs in each.
type VMRequest struct {
	guest.Machine
	BootsPerProbe, RunsPerBoot int
	RunsSet                    bool // --runs was given: refused, a probe counts boots
}

// InputError is a refused input of a Request (a flag, the measurement,
// a file a flag names): the command's usage error, exit status 2.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func refuse(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// Stopped is the error of a search its context stopped: every finished
// batch is in Dir, and 'contend bisect resume' continues it.
type Stopped struct{ Dir string }

func (e *Stopped) Error() string {
	return fmt.Sprintf("bisect: stopped; every finished batch is in %s: continue with 'contend bisect resume %s'", e.Dir, e.Dir)
}

// ErrInterrupted is the error of a search whose context ended (Ctrl-C,
// SIGTERM) before it was created: what failed then (a git command
// killed) is the interruption's doing, not the input's.
var ErrInterrupted = errors.New("bisect: interrupted before the search began; nothing was created")

// interrupted is ErrInterrupted when ctx has ended, else err.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return err
}

// Output is where a search says what it does: Progress (nil: quiet)
// takes one line at a time, Log takes the guests' boot lines of a
// kernel search while Progress is set.
type Output struct {
	Progress func(string)
	Log      io.Writer
}

// check refuses a request whose measurement or strings cannot go into
// the search's files, or without its ends.
func (r *Request) check() error {
	if err := CheckMeasure(r.Measure); err != nil {
		return refuse("bisect: %v", err)
	}
	for _, f := range [][2]string{{"good", r.Good}, {"bad", r.Bad}, {"build", r.Build}, {"repo", r.Repo}, {"dir", r.Dir},
		{"metric", r.Metric}, {"contend", r.Contend}, {"prior", r.Prior}} {
		if err := esc.Check("--"+f[0], f[1]); err != nil {
			return refuse("%v", err)
		}
	}
	for _, a := range r.Measure {
		if err := esc.Check("the measurement", a); err != nil {
			return refuse("%v", err)
		}
	}
	if r.Good == "" || r.Bad == "" {
		return refuse("bisect: --good REV and --bad REV are needed")
	}
	return nil
}

// vmPlan checks the guest of a kernel search and returns its VMPlan (nil
// without --vm); r.Options.Runs becomes the boots of a probe.
func (r *Request) vmPlan() (*VMPlan, error) {
	v := r.VM
	switch {
	case v == nil && r.Stray != "":
		return nil, refuse("--%s goes with --vm", r.Stray)
	case v == nil:
		return nil, nil
	case v.RunsSet:
		return nil, refuse("--runs: with --vm the repetitions are boots: give --boots-per-probe N (boots of a probe) and --runs-per-boot N (runs in each)")
	case r.Contend != "" && !filepath.IsAbs(r.Contend):
		return nil, refuse("--contend: %q: with --vm the guest runs this contend or one given by an absolute path, not one built in the worktree", r.Contend)
	case r.Build == "" && r.Kernel == nil:
		return nil, refuse("--build: a --vm search needs a build command that prints the kernel to boot, such as --build 'make -j8 bzImage && echo kernel: arch/x86/boot/bzImage', or --kernel-tree")
	case len(r.Measure) > 0 && r.Measure[0] == "exec":
		return nil, refuse("bisect --vm: the guest has no files but contend's: measure with '-- run WORKLOAD ...', not exec")
	}
	m, err := v.Machine.Check(guest.Host{})
	if err != nil {
		return nil, refuse("%v", err)
	}
	r.Options.Runs = v.BootsPerProbe
	return &VMPlan{Machine: m, RunsPerBoot: v.RunsPerBoot}, nil
}

// plan returns the search's plan over commits, its repository and
// directory made absolute.
func (r *Request) plan(commits []Commit, vmp *VMPlan) *Plan {
	return &Plan{Repo: r.Repo, Good: r.Good, Bad: r.Bad, Commits: commits, Build: r.Build, Measure: r.Measure, Metric: r.Metric,
		Contend: r.Contend, Options: PlanOptionsOf(r.Options), Created: time.Now().UTC(), VM: vmp}
}

// absPaths makes the request's repository and directory absolute.
func (r *Request) absPaths() error {
	var err error
	if r.Repo, err = filepath.Abs(r.Repo); err != nil {
		return err
	}
	r.Dir, err = filepath.Abs(r.Dir)
	return err
}

// Start checks r, creates the search in r.Dir and runs it to its end.
func Start(ctx context.Context, r Request, out Output) (*Result, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	vmp, err := r.vmPlan()
	if err != nil {
		return nil, err
	}
	if r.Options.CalibrateMax < r.Options.CalibrateMin {
		return nil, refuse("--calibrate-max: %d is below --calibrate %d; accepted: --calibrate..200", r.Options.CalibrateMax, r.Options.CalibrateMin)
	}
	if err := r.Options.Check(); err != nil {
		return nil, refuse("%v", err)
	}
	if err := r.absPaths(); err != nil {
		return nil, err
	}
	kp, warns, err := r.kernelPlan()
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		if out.Log != nil {
			fmt.Fprintf(out.Log, "bisect: warning: %s\n", w)
		}
	}
	commits, err := Range(ctx, r.Repo, r.Good, r.Bad)
	if err != nil {
		return nil, interrupted(ctx, refuse("bisect: %v", err))
	}
	if len(commits) < 3 {
		return nil, refuse("bisect: --bad is the only commit after --good: it is the culprit, nothing to bisect")
	}
	if r.Prior != "" {
		b, err := safefile.ReadFile(r.Prior, safefile.SelfOrRoot)
		if err != nil {
			return nil, refuse("--prior: %v", err)
		}
		if r.Options.Prior, err = ParsePrior(bytes.NewReader(b), commits); err != nil {
			return nil, refuse("%v", err)
		}
	}
	plan := r.plan(commits, vmp)
	if err := ctx.Err(); err != nil {
		return nil, ErrInterrupted
	}
	plan.Kernel = kp
	if err := Create(r.Dir, plan); err != nil {
		return nil, err
	}
	if err := kp.Prepare(r.Repo); err != nil {
		return nil, err
	}
	return run(ctx, r.Dir, plan, nil, out)
}

// Resume continues the search in dir from its ledger.
func Resume(ctx context.Context, dir string, out Output) (*Result, error) {
	plan, events, err := Open(dir)
	if err != nil {
		return nil, err
	}
	return run(ctx, dir, plan, events, out)
}

// run runs the search of plan in dir, the ledger's events replayed first.
func run(ctx context.Context, dir string, plan *Plan, events []Event, out Output) (*Result, error) {
	unlock, err := Lock(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, done, err := NewProber(ctx, dir, plan, out)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Stopped{Dir: dir}
		}
		return nil, err
	}
	defer done()
	opt := plan.Options.Options()
	opt.Progress = out.Progress
	s, err := New(plan.Commits, opt, Ledger{Dir: dir}, p, events)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Stopped{Dir: dir}
		}
		return nil, fmt.Errorf("bisect: %w (the search so far is in %s: 'contend bisect resume %s' continues it)", err, dir, dir)
	}
	if err := describe(res, dir, plan); err != nil {
		return nil, err
	}
	return res, nil
}

// Status returns the state of the search in dir, from its ledger.
func Status(dir string) (*Result, error) {
	plan, events, err := Open(dir)
	if err != nil {
		return nil, err
	}
	s, err := New(plan.Commits, plan.Options.Options(), &Memory{}, nil, events)
	if err != nil {
		return nil, err
	}
	stop := ""
	for _, e := range events {
		if e.Event == EvEnd {
			stop = e.Stop
		}
	}
	res := s.Result(stop)
	if err := describe(res, dir, plan); err != nil {
		return nil, err
	}
	return res, nil
}

// describe says in res what its metric is and, for a kernel search, that
// a repetition is a boot, in a VM under the accelerator its result files
// record, and what its kernel builds cost (--kernel-tree: its builds
// ledger).
func describe(res *Result, dir string, plan *Plan) error {
	res.Metric = MetricOf(filepath.Join(dir, RunsDir), plan.Metric)
	if plan.VM != nil {
		res.Unit = "boots"
		res.Where = WhereOf(filepath.Join(dir, RunsDir))
	}
	if plan.Kernel != nil {
		bs, err := ReadBuilds(dir)
		if err != nil {
			return err
		}
		res.Builds = kbuild.Summarize(bs)
	}
	return nil
}

// Step is 'contend bisect step': the verdict on HEAD of r.Repo for git
// bisect run, measured against the ends in r.Dir (calibrated by the first
// step, kept for the next), after at most maxRuns runs of HEAD. hash is
// HEAD's commit, "" when HEAD is an end (then the verdict is the end's).
func Step(ctx context.Context, r Request, maxRuns int) (v Verdict, hash string, err error) {
	if err := r.check(); err != nil {
		return Verdict{}, "", err
	}
	vmp, err := r.vmPlan()
	if err != nil {
		return Verdict{}, "", err
	}
	if err := r.Options.Check(); err != nil {
		return Verdict{}, "", err
	}
	if err := r.absPaths(); err != nil {
		return Verdict{}, "", err
	}
	commits, at, err := stepPosition(ctx, r.Repo, r.Good, r.Bad)
	switch {
	case err != nil:
		return Verdict{}, "", err
	case at == 0:
		return Verdict{Verdict: VerdictGood}, "", nil // --good itself
	case at == len(commits)-1:
		return Verdict{Verdict: VerdictBad}, "", nil // --bad itself
	}
	kp, _, err := r.kernelPlan()
	if err != nil {
		return Verdict{}, "", err
	}
	want := r.plan(commits, vmp)
	want.Kernel = kp
	plan, events, err := stepPlan(r.Dir, want)
	if err != nil {
		return Verdict{}, "", err
	}
	if err := plan.Kernel.Prepare(plan.Repo); err != nil {
		return Verdict{}, "", err
	}
	unlock, err := Lock(r.Dir)
	if err != nil {
		return Verdict{}, "", err
	}
	defer unlock()
	p, done, err := NewProber(ctx, r.Dir, plan, Output{})
	if err != nil {
		return Verdict{}, "", err
	}
	defer done()
	s, err := New(plan.Commits, r.Options, Ledger{Dir: r.Dir}, p, events)
	if err != nil {
		return Verdict{}, "", err
	}
	v, err = s.Classify(ctx, at, maxRuns)
	return v, commits[at].Hash, err
}

// stepPosition returns the first-parent line from good to bad in repo
// and where HEAD is on it.
func stepPosition(ctx context.Context, repo, good, bad string) ([]Commit, int, error) {
	commits, err := Range(ctx, repo, good, bad)
	if err != nil {
		return nil, 0, interrupted(ctx, err)
	}
	head, err := Head(ctx, repo)
	if err != nil {
		return nil, 0, interrupted(ctx, err)
	}
	for i, cm := range commits {
		if cm.Hash == head {
			return commits, i, nil
		}
	}
	return nil, 0, fmt.Errorf("HEAD %s is not on the first-parent line from --good to --bad", head)
}

// stepPlan opens the search in dir that a step adds to, or creates it as
// want when there is none; a search of another range, build or
// measurement is refused.
func stepPlan(dir string, want *Plan) (*Plan, []Event, error) {
	plan, events, err := Open(dir)
	if err != nil {
		return want, nil, Create(dir, want)
	}
	first, last := plan.Commits[0].Hash, plan.Commits[len(plan.Commits)-1].Hash
	if first != want.Commits[0].Hash || last != want.Commits[len(want.Commits)-1].Hash ||
		strings.Join(plan.Measure, "\x00") != strings.Join(want.Measure, "\x00") || plan.Build != want.Build {
		return nil, nil, fmt.Errorf("%s holds a search of another range, build or measurement: give another --dir", dir)
	}
	return plan, events, nil
}

// Exit is git bisect run's exit status of the verdict: 0 good, 1 bad,
// 125 skip, 128 (git stops) when the ends do not differ.
func (v Verdict) Exit() int {
	if v.Stop == StopNoDifference {
		return 128
	}
	switch v.Verdict {
	case VerdictGood:
		return 0
	case VerdictBad:
		return 1
	}
	return 125
}

// NewProber returns the prober of plan's search in dir, the worktrees a
// killed search left removed: a VM prober for a kernel search, else a
// Command; done ends it.
func NewProber(ctx context.Context, dir string, plan *Plan, out Output) (p Prober, done func(), err error) {
	work := filepath.Join(dir, WorkDir)
	if err := RemoveWorktrees(plan.Repo, work); err != nil {
		return nil, nil, err
	}
	runs, logs := filepath.Join(dir, RunsDir), filepath.Join(dir, LogsDir)
	if plan.VM != nil {
		return newVMProber(ctx, dir, plan, out)
	}
	exe := plan.Contend
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, nil, err
		}
	}
	return &Command{Repo: plan.Repo, Work: work, Runs: runs, Logs: logs, BuildCmd: plan.Build, Measure: plan.Measure,
		Metric: plan.Metric, Contend: exe}, func() {}, nil
}

// newVMProber returns the VM prober of a kernel search in dir and the
// function that ends its runner.
func newVMProber(ctx context.Context, dir string, plan *Plan, out Output) (*VM, func(), error) {
	consoles := filepath.Join(dir, VMDir)
	if err := os.MkdirAll(consoles, 0o755); err != nil {
		return nil, nil, err
	}
	log := out.Log
	if out.Progress == nil {
		log = nil
	}
	r, err := vm.NewRunner(ctx, vm.Config{Accel: plan.VM.Accel, Contend: plan.Contend, Log: prefixed{log, "bisect: "}})
	if err != nil {
		return nil, nil, fmt.Errorf("--vm: %v", err)
	}
	p := &VM{Repo: plan.Repo, Work: filepath.Join(dir, WorkDir), Runs: filepath.Join(dir, RunsDir), Logs: filepath.Join(dir, LogsDir),
		Consoles: consoles, BuildCmd: plan.Build, Measure: plan.Measure, Metric: plan.Metric, Plan: *plan.VM, Boot: r.Boot,
		Progress: out.Progress}
	if plan.Kernel != nil {
		o := plan.Kernel.options(plan.Repo)
		p.Kernel, p.Builds = &o, filepath.Join(dir, BuildsFile)
	}
	return p, func() { r.Close() }, nil
}

// prefixed writes each line to W (nil: nowhere) after Prefix.
type prefixed struct {
	W      io.Writer
	Prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if p.W == nil {
		return len(b), nil
	}
	s := strings.TrimRight(string(b), "\n")
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintf(p.W, "%s%s\n", p.Prefix, l)
	}
	return len(b), nil
}

// IsInput tells whether err is a refused input (InputError).
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
