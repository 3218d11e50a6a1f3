package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"contend/internal/bisect"
	"contend/internal/esc"
	"contend/internal/harness"
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
		newFlag("budget-runs", &f.budgetRuns, "stop, saying no culprit was found, before the runs (calibration, probes, the ends beside them, verification) exceed this (0: the default, 2 x --calibrate-max + 2 x --runs x (8 per halving of the range + 8) + 10 x --verify-runs)"),
		newFlag("budget-time", &f.budgetTime, "stop once the search has taken this long (0: no budget)"),
		newFlag("verify-runs", &f.verifyRuns, "least repetitions of each side of the verification, the culprit's parent beside it in blocks until a sequential test decides (at most 5 times this; 0: none)"),
		formatFlag("text, markdown, json or csv", bisect.Formats...),
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
	}, newBisectVMFlags(&f.vm)...)
}

// request returns the bisect.Request of the parsed command c.
func (f *bisectFlags) request(c *cli.Context) bisect.Request {
	o := bisect.Options{Runs: f.runs.N, CalibrateMin: f.calMin.N, CalibrateMax: f.calMax.N, Confidence: f.confidence.X,
		Alpha: float64(f.alpha), BudgetRuns: f.budgetRuns.N, BudgetTime: f.budgetTime.D, VerifyRuns: f.verifyRuns.N, Progress: progress(c)}
	if o.VerifyRuns == 0 {
		o.VerifyRuns = -1
	}
	r := bisect.Request{Repo: c.String("repo"), Good: c.String("good"), Bad: c.String("bad"), Build: c.String("build"), Dir: c.String("dir"),
		Metric: c.String("metric"), Contend: c.String("contend"), Prior: c.String("prior"), Measure: c.Args().Slice(), Options: o}
	r.VM, r.Stray = f.vm.request(c)
	f.vm.kernelRequest(c, &r)
	return r
}

// progress prints the search's progress on stderr, unless -q (nil).
func progress(c *cli.Context) func(string) {
	if c.Bool("quiet") {
		return nil
	}
	w := c.App.ErrWriter
	return func(s string) { fmt.Fprintf(w, "bisect: %s\n", s) }
}

func bisectCommand() *cli.Command {
	f, flags := newBisectFlags()
	sf, stepFlags := newBisectFlags()
	return &cli.Command{
		Name:        "bisect",
		Usage:       "find the commit that changed a metric: probabilistic bisection with a stated confidence",
		ArgsUsage:   "--good REV --bad REV [--build CMD] [flags] -- run|exec ARGS...",
		Description: helpText("bisect"),
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
				ArgsUsage:   "--good REV --bad REV [--build CMD] --dir DIR -- run|exec ARGS...",
				Description: helpText("bisect-step"),
				Flags:       append(stepFlags, newFlag("step-max-runs", &sf.stepMax, "most repetitions of the commit before the verdict is skip")),
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

func bisectStart(c *cli.Context, f *bisectFlags) error {
	r := f.request(c)
	res, err := bisect.Start(c.Context, r, bisect.Output{Progress: r.Options.Progress, Log: c.App.ErrWriter})
	return bisectWrite(c, res, err)
}

func bisectResume(c *cli.Context) error {
	dir, err := bisectDir(c)
	if err != nil {
		return err
	}
	res, err := bisect.Resume(c.Context, dir, bisect.Output{Progress: progress(c), Log: c.App.ErrWriter})
	return bisectWrite(c, res, err)
}

func bisectStatus(c *cli.Context) error {
	dir, err := bisectDir(c)
	if err != nil {
		return err
	}
	res, err := bisect.Status(dir)
	return bisectWrite(c, res, err)
}

// bisectWrite prints the search's result in --format, or says why there
// is none: a refused input is a usage error, a stopped search is
// interrupted.
func bisectWrite(c *cli.Context, res *bisect.Result, err error) error {
	var st *bisect.Stopped
	switch {
	case errors.Is(err, bisect.ErrInterrupted):
		return cli.Exit(err.Error(), exitInterrupted)
	case bisect.IsInput(err):
		return usagef("%v", err)
	case errors.As(err, &st):
		fmt.Fprintf(c.App.ErrWriter, "contend: %v\n", err)
		return fmt.Errorf("%w", harness.ErrInterrupted)
	case err != nil:
		return err
	}
	return bisect.Write(c.App.Writer, res, c.String("format"))
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

// bisectStep is 'contend bisect step': the verdict on HEAD of the
// repository as git bisect run's exit status.
func bisectStep(c *cli.Context, f *bisectFlags) (int, error) {
	v, hash, err := bisect.Step(c.Context, f.request(c), f.stepMax.N)
	if err != nil {
		return 0, err
	}
	if hash != "" {
		fmt.Fprintf(c.App.ErrWriter, "contend bisect step: %s %s: %s (P(bad) = %.3f, %d runs)\n", hash[:12], v.Verdict, v.Reason, v.PBad, v.Runs)
	}
	return v.Exit(), nil
}
