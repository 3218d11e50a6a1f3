package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/bisect"
	"contend/internal/esc"
	"contend/internal/harness"
	"contend/internal/safefile"
	"contend/internal/value"
)

// bisectFlags hold the values of bisect's flags.
type bisectFlags struct {
	runs, calMin, calMax, budgetRuns, verifyRuns, stepMax value.Int
	confidence                                            value.Float
	alpha                                                 value.Level
	budgetTime                                            value.Duration
	vm                                                    bisectVMFlags // bisectvm.go
}

func newBisectFlags() (*bisectFlags, []cli.Flag) {
	f := &bisectFlags{
		runs:       value.Int{N: 5, Min: 1, Max: 1000},
		calMin:     value.Int{N: 10, Min: 4, Max: 200},
		calMax:     value.Int{N: 60, Min: 4, Max: 200},
		budgetRuns: value.Int{N: 0, Min: 0, Max: 1 << 30},
		verifyRuns: value.Int{N: 10, Min: 0, Max: 1000},
		stepMax:    value.Int{N: 30, Min: 1, Max: 10000},
		confidence: value.Float{X: 0.95, Min: 0.5, Max: 0.9999, Accepted: "0.5 to 0.9999"},
		alpha:      value.Level(0.05),
		budgetTime: value.Duration{Zero: true},
	}
	return f, append([]cli.Flag{
		&cli.StringFlag{Name: "good", Usage: "a commit without the change (an ancestor of --bad)"},
		&cli.StringFlag{Name: "bad", Usage: "a commit with the change"},
		&cli.StringFlag{Name: "build", Usage: "shell command that builds a commit, run in its worktree (none: nothing to build)"},
		&cli.StringFlag{Name: "repo", Value: ".", Usage: "the git repository"},
		&cli.StringFlag{Name: "dir", Value: "contend-bisect", Usage: "the search's directory: plan, ledger, result files, build logs"},
		&cli.StringFlag{Name: "metric", Usage: "the metric to follow (default: the measurement's primary metric)"},
		&cli.StringFlag{Name: "prior", Usage: "file of 'REV WEIGHT' lines weighing the commits a priori (default: uniform; unlisted commits weigh 1)"},
		&cli.StringFlag{Name: "contend", Usage: "the contend that runs the measurement: a path in the worktree (./bin/contend, built by --build) or an absolute one (default: this contend)"},
		newFlag("runs", &f.runs, "repetitions of one probe (a batch)", "n"),
		newFlag("calibrate", &f.calMin, "repetitions of each end before the first look of the calibration"),
		newFlag("calibrate-max", &f.calMax, "most repetitions of each end in the calibration (up to 200)"),
		newFlag("confidence", &f.confidence, "stop when one commit is the culprit with this probability"),
		newFlag("alpha", &f.alpha, "significance level of the calibration and of the verification"),
		newFlag("budget-runs", &f.budgetRuns, "stop before the runs of calibration and probes exceed this (0: no budget)"),
		newFlag("budget-time", &f.budgetTime, "stop once the search has taken this long (0: no budget)"),
		newFlag("verify-runs", &f.verifyRuns, "repetitions of each side of the final A/B of the culprit's parent against it (0: none)"),
		formatFlag("text, markdown, json or csv", bisect.Formats...),
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
	}, newBisectVMFlags(&f.vm)...)
}

func (f *bisectFlags) options(c *cli.Context) bisect.Options {
	o := bisect.Options{Runs: f.runs.N, CalibrateMin: f.calMin.N, CalibrateMax: f.calMax.N, Confidence: f.confidence.X,
		Alpha: float64(f.alpha), BudgetRuns: f.budgetRuns.N, BudgetTime: f.budgetTime.D, VerifyRuns: f.verifyRuns.N}
	if o.VerifyRuns == 0 {
		o.VerifyRuns = -1
	}
	if !c.Bool("quiet") {
		w := c.App.ErrWriter
		o.Progress = func(s string) { fmt.Fprintf(w, "bisect: %s\n", s) }
	}
	return o
}

const bisectDescription = `Finds the commit that changed a metric, with a noisy measurement and a
stated confidence. Each probe checks a commit out in a git worktree of its
own, builds it with --build, and runs the measurement (a 'contend run' or
'contend exec', given after --) with --runs repetitions, each a process.

   contend bisect --good v1.0 --bad HEAD --build 'make' --dir bs \
       -- exec --metric 'ops=ops: (\d+)' -- ./bench
   contend bisect status bs                 the state of the search
   contend bisect resume bs                 continue a search that was stopped

First both ends are measured (interleaved ABBA), until a group-sequential
Mann-Whitney test (O'Brien-Fleming spending of --alpha) says they differ:
when they do not, it stops, with the interval of the change: nothing to
bisect. Then it keeps a posterior over the culprit (the first bad commit,
uniform before any probe) and probes the commit where the posterior's CDF
crosses 1/2 (Horstein 1963; Waeber, Frazier and Henderson 2013): each
probe's values weigh every split of the range by their likelihood under
the good and bad distributions estimated from the ends and from the probes
on each side, the estimation error carried (a Student t predictive). It
stops when one commit has P >= --confidence, or at --budget-runs or
--budget-time (it says which), then checks the culprit with an interleaved
A/B of its parent against it (--verify-runs each) and prints the three
most probable commits. A commit that does not build, or whose runs fail,
is skipped and recorded; its probability is added to the next commit's,
which no probe can tell it from, and the output says what it costs.

Everything is in DIR: bisect.json (the plan), ledger.jsonl (every batch of
values, fsynced: a kill loses at most the batch in flight), runs/ (the
measurements' result files), logs/ (the builds' output); the worktrees in
DIR/work (the four most recent builds) are removed at the end, on Ctrl-C
too, and those a kill left are removed by the next resume.

With --vm it bisects a kernel: --build prints the image to boot on its
stdout ('kernel: PATH', a bzImage such as arch/x86/boot/bzImage, relative
to the worktree; optionally 'initrd: PATH' and 'append: WORDS', added to
the guest's command line), and every repetition is a fresh QEMU guest of
that kernel (docs/vm.md) running the measurement with --runs-per-boot runs,
its value the geometric mean of them: the boot is the unit. A probe is
--boots-per-probe boots; --calibrate, --calibrate-max, --verify-runs and
--budget-runs count boots. A guest that panics, hangs (--vm-timeout) or dies
skips the commit with the fault's line. KVM when it boots, else TCG; the
output says which. Measure a 'run' (the guest has no other files).

   contend bisect --vm --good v6.6 --bad HEAD --dir bs --metric faults \
       --build 'make -j8 bzImage >&2 && echo kernel: arch/x86/boot/bzImage' \
       -- run faultme --threads 2 --mem 64MiB

For 'git bisect run', 'contend bisect step' gives one commit's verdict as
exit status 0 (good), 1 (bad) or 125 (skip); see 'contend bisect step --help'
and docs/bisect.md for why the posterior search is better.`

func bisectCommand() *cli.Command {
	f, flags := newBisectFlags()
	sf, stepFlags := newBisectFlags()
	return &cli.Command{
		Name:        "bisect",
		Usage:       "find the commit that changed a metric: probabilistic bisection with a stated confidence",
		ArgsUsage:   "--good REV --bad REV [--build CMD] [flags] -- run|exec ARGS...",
		Description: bisectDescription,
		Flags:       flags,
		Action:      func(c *cli.Context) error { return bisectStart(c, f) },
		Subcommands: []*cli.Command{
			{
				Name: "status", Usage: "the state of a search: top three, runs, skips", ArgsUsage: "DIR",
				Flags:  []cli.Flag{formatFlag("text, markdown, json or csv", bisect.Formats...)},
				Action: bisectStatus,
			},
			{
				Name: "resume", Usage: "continue a search that was stopped or killed", ArgsUsage: "DIR",
				Flags: []cli.Flag{formatFlag("text, markdown, json or csv", bisect.Formats...),
					&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"}},
				Action: bisectResume,
			},
			{
				Name: "step", Usage: "for 'git bisect run': the verdict on the checked-out commit as exit status 0 good, 1 bad, 125 skip",
				ArgsUsage: "--good REV --bad REV [--build CMD] --dir DIR -- run|exec ARGS...",
				Description: `Run by 'git bisect run' in the repository: measures the commit git checked
out (HEAD) against the ends and exits 0 (good), 1 (bad) or 125 (skip: it
does not build, its runs fail, or --step-max-runs did not decide). The ends
are calibrated by the first step and kept in --dir for the next ones. Any
error of contend itself exits 128, which stops git bisect (an exit status
of 2 would be taken as 'bad').

   git bisect start BAD GOOD
   git bisect run contend bisect step --good GOOD --bad BAD --build make \
       --dir /tmp/bs -- exec --metric 'ops=ops: (\d+)' -- ./bench

Each step decides alone, at P >= --confidence: git bisect cannot take back
a wrong answer, and the errors of its steps add up. 'contend bisect' keeps
every probe's evidence and may probe a commit again; prefer it.`,
				Flags: append(stepFlags, newFlag("step-max-runs", &sf.stepMax, "most repetitions of the commit before the verdict is skip")),
				Action: func(c *cli.Context) error {
					code, err := bisectStep(c, sf)
					if err != nil {
						return cli.Exit("contend bisect step: "+err.Error(), 128)
					}
					return cli.Exit("", code)
				},
			},
		},
	}
}

// bisectArgs checks the measurement and the strings that reach files.
func bisectArgs(c *cli.Context) ([]string, error) {
	measure := c.Args().Slice()
	if err := bisect.CheckMeasure(measure); err != nil {
		return nil, usagef("bisect: %v", err)
	}
	for _, fl := range []string{"good", "bad", "build", "repo", "dir", "metric", "contend", "prior"} {
		if err := esc.Check("--"+fl, c.String(fl)); err != nil {
			return nil, usagef("%v", err)
		}
	}
	for _, a := range measure {
		if err := esc.Check("the measurement", a); err != nil {
			return nil, usagef("%v", err)
		}
	}
	if c.String("good") == "" || c.String("bad") == "" {
		return nil, usagef("bisect: --good REV and --bad REV are needed")
	}
	return measure, nil
}

func bisectStart(c *cli.Context, f *bisectFlags) error {
	measure, err := bisectArgs(c)
	if err != nil {
		return err
	}
	opt := f.options(c)
	vmPlan, err := f.vm.plan(c, &opt)
	if err != nil {
		return err
	}
	if opt.CalibrateMax < opt.CalibrateMin {
		return usagef("--calibrate-max: %d is below --calibrate %d; accepted: --calibrate..200", opt.CalibrateMax, opt.CalibrateMin)
	}
	if err := opt.Check(); err != nil {
		return usagef("%v", err)
	}
	repo, err := filepath.Abs(c.String("repo"))
	if err != nil {
		return err
	}
	commits, err := bisect.Range(c.Context, repo, c.String("good"), c.String("bad"))
	if err != nil {
		return usagef("bisect: %v", err)
	}
	if len(commits) < 3 {
		return usagef("bisect: --bad is the only commit after --good: it is the culprit, nothing to bisect")
	}
	if path := c.String("prior"); path != "" {
		b, err := safefile.ReadFile(path, safefile.SelfOrRoot)
		if err != nil {
			return usagef("--prior: %v", err)
		}
		if opt.Prior, err = bisect.ParsePrior(bytes.NewReader(b), commits); err != nil {
			return usagef("%v", err)
		}
	}
	dir, err := filepath.Abs(c.String("dir"))
	if err != nil {
		return err
	}
	plan := &bisect.Plan{Repo: repo, Good: c.String("good"), Bad: c.String("bad"), Commits: commits, Build: c.String("build"),
		Measure: measure, Metric: c.String("metric"), Contend: c.String("contend"), Options: bisect.PlanOptionsOf(opt), Created: time.Now().UTC(), VM: vmPlan}
	if err := bisect.Create(dir, plan); err != nil {
		return err
	}
	return runBisect(c, dir, plan, nil, opt.Progress)
}

func bisectDir(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("bisect %s: give the search's directory, once", c.Command.Name)
	}
	if err := esc.Check("DIR", c.Args().First()); err != nil {
		return "", usagef("%v", err)
	}
	return filepath.Abs(c.Args().First())
}

func bisectResume(c *cli.Context) error {
	dir, err := bisectDir(c)
	if err != nil {
		return err
	}
	plan, events, err := bisect.Open(dir)
	if err != nil {
		return err
	}
	var progress func(string)
	if !c.Bool("quiet") {
		w := c.App.ErrWriter
		progress = func(s string) { fmt.Fprintf(w, "bisect: %s\n", s) }
	}
	return runBisect(c, dir, plan, events, progress)
}

// prober returns the Command prober of plan in dir, the worktrees a
// killed search left removed.
func prober(c *cli.Context, dir string, plan *bisect.Plan) (*bisect.Command, error) {
	exe := plan.Contend
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	work := filepath.Join(dir, bisect.WorkDir)
	if err := bisect.RemoveWorktrees(plan.Repo, work); err != nil {
		return nil, err
	}
	return &bisect.Command{Repo: plan.Repo, Work: work, Runs: filepath.Join(dir, bisect.RunsDir), Logs: filepath.Join(dir, bisect.LogsDir),
		BuildCmd: plan.Build, Measure: plan.Measure, Metric: plan.Metric, Contend: exe}, nil
}

func runBisect(c *cli.Context, dir string, plan *bisect.Plan, events []bisect.Event, progress func(string)) error {
	unlock, err := bisect.Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	p, done, err := bisectProber(c, dir, plan, progress)
	if err != nil {
		return err
	}
	defer done()
	opt := plan.Options.Options()
	opt.Progress = progress
	s, err := bisect.New(plan.Commits, opt, bisect.Ledger{Dir: dir}, p, events)
	if err != nil {
		return err
	}
	res, err := s.Run(c.Context)
	if err != nil {
		if c.Context.Err() != nil {
			fmt.Fprintf(c.App.ErrWriter, "contend: bisect: stopped; every finished batch is in %s: continue with 'contend bisect resume %s'\n", dir, dir)
			return fmt.Errorf("%w", harness.ErrInterrupted)
		}
		return fmt.Errorf("bisect: %w (the search so far is in %s: 'contend bisect resume %s' continues it)", err, dir, dir)
	}
	res.Metric = bisect.MetricOf(filepath.Join(dir, bisect.RunsDir), plan.Metric)
	bisectUnit(res, dir, plan)
	return bisect.Write(c.App.Writer, res, c.String("format"))
}

func bisectStatus(c *cli.Context) error {
	dir, err := bisectDir(c)
	if err != nil {
		return err
	}
	plan, events, err := bisect.Open(dir)
	if err != nil {
		return err
	}
	s, err := bisect.New(plan.Commits, plan.Options.Options(), &bisect.Memory{}, nil, events)
	if err != nil {
		return err
	}
	stop := ""
	for _, e := range events {
		if e.Event == bisect.EvEnd {
			stop = e.Stop
		}
	}
	res := s.Result(stop)
	res.Metric = bisect.MetricOf(filepath.Join(dir, bisect.RunsDir), plan.Metric)
	bisectUnit(res, dir, plan)
	return bisect.Write(c.App.Writer, res, c.String("format"))
}

// bisectStep is 'contend bisect step': the verdict on HEAD of the
// repository as git bisect run's exit status.
func bisectStep(c *cli.Context, f *bisectFlags) (int, error) {
	measure, err := bisectArgs(c)
	if err != nil {
		return 0, err
	}
	opt := f.options(c)
	vmPlan, err := f.vm.plan(c, &opt)
	if err != nil {
		return 0, err
	}
	if err := opt.Check(); err != nil {
		return 0, err
	}
	repo, err := filepath.Abs(c.String("repo"))
	if err != nil {
		return 0, err
	}
	commits, at, err := stepPosition(c, repo)
	switch {
	case err != nil:
		return 0, err
	case at == 0:
		return 0, nil // --good itself
	case at == len(commits)-1:
		return 1, nil // --bad itself
	}
	dir, err := filepath.Abs(c.String("dir"))
	if err != nil {
		return 0, err
	}
	plan, events, err := stepPlan(c, dir, &bisect.Plan{Repo: repo, Good: c.String("good"), Bad: c.String("bad"), Commits: commits, Build: c.String("build"),
		Measure: measure, Metric: c.String("metric"), Contend: c.String("contend"), Options: bisect.PlanOptionsOf(opt), Created: time.Now().UTC(), VM: vmPlan})
	if err != nil {
		return 0, err
	}
	unlock, err := bisect.Lock(dir)
	if err != nil {
		return 0, err
	}
	defer unlock()
	p, done, err := bisectProber(c, dir, plan, nil)
	if err != nil {
		return 0, err
	}
	defer done()
	s, err := bisect.New(plan.Commits, opt, bisect.Ledger{Dir: dir}, p, events)
	if err != nil {
		return 0, err
	}
	v, err := s.Classify(c.Context, at, f.stepMax.N)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(c.App.ErrWriter, "contend bisect step: %s %s: %s (P(bad) = %.3f, %d runs)\n", commits[at].Hash[:12], v.Verdict, v.Reason, v.PBad, v.Runs)
	return stepExit(v), nil
}

// stepPosition returns the first-parent line from --good to --bad in repo
// and where HEAD is on it.
func stepPosition(c *cli.Context, repo string) ([]bisect.Commit, int, error) {
	commits, err := bisect.Range(c.Context, repo, c.String("good"), c.String("bad"))
	if err != nil {
		return nil, 0, err
	}
	head, err := bisect.Head(c.Context, repo)
	if err != nil {
		return nil, 0, err
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
func stepPlan(c *cli.Context, dir string, want *bisect.Plan) (*bisect.Plan, []bisect.Event, error) {
	plan, events, err := bisect.Open(dir)
	if err != nil {
		return want, nil, bisect.Create(dir, want)
	}
	first, last := plan.Commits[0].Hash, plan.Commits[len(plan.Commits)-1].Hash
	if first != want.Commits[0].Hash || last != want.Commits[len(want.Commits)-1].Hash ||
		strings.Join(plan.Measure, "\x00") != strings.Join(want.Measure, "\x00") || plan.Build != want.Build {
		return nil, nil, fmt.Errorf("%s holds a search of another range, build or measurement: give another --dir", dir)
	}
	return plan, events, nil
}

// stepExit is git bisect run's exit status of verdict v: 0 good, 1 bad,
// 125 skip, 128 (git stops) when the ends do not differ.
func stepExit(v bisect.Verdict) int {
	if v.Stop == bisect.StopNoDifference {
		return 128
	}
	switch v.Verdict {
	case bisect.VerdictGood:
		return 0
	case bisect.VerdictBad:
		return 1
	}
	return 125
}
