package lkmlreport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"contend/internal/bisect"
	"contend/internal/campaign"
	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/plural"
)

// Kinds of Source.
const (
	KindCampaign = "campaign" // a campaign directory: the boot as the unit
	KindBisect   = "bisect"   // a bisect directory: the culprit and its parent
	KindFiles    = "files"    // result files, one a side
)

// Source is what a report is drawn from: the comparison of the two
// kernels, and what the campaign or the bisect adds.
type Source struct {
	Kind string
	// Paths are the directory or the files as given.
	Paths      []string
	Comparison *comparison.Comparison
	// Command is the measurement, contend's arguments without the
	// program's name ("run", "faultme", ...), from the campaign's plan,
	// the bisect's, or the base side's first file; Version the contend
	// that measured (the base side's first file).
	Command []string
	Version string
	// Bisect and Plan are the search's result and plan (KindBisect).
	Bisect *bisect.Result
	Plan   *bisect.Plan
}

// Refusal is an input the report cannot be drawn from (not a campaign,
// a bisect or two result files; the same kernel on both sides): the
// command's usage error (exit 2). A comparison that does not support a
// report (not significant, an improvement, a failed A/A) is an
// *Unsupported instead (exit 1).
type Refusal struct{ Msg string }

func (e *Refusal) Error() string { return e.Msg }

func refuse(format string, a ...any) error { return &Refusal{fmt.Sprintf(format, a...)} }

// Open reads the source of a report: one directory (a campaign or a
// bisect) or two result file specs (comparison.OpenPart: "FILE" or
// "FILE:CONFIG"). opt is the comparison's options; its Metrics, when set,
// name the headline.
func Open(args []string, opt comparison.Options) (*Source, error) {
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			return openDir(args[0], opt)
		}
	}
	if len(args) == 1 {
		return nil, refuse("report --for-lkml: %s is not a directory; give a campaign directory, a bisect directory, or two result files (the last good kernel's, then the first bad one's)", strconv.Quote(esc.Line(args[0])))
	}
	if len(args) != 2 {
		return nil, refuse("report --for-lkml: give a campaign directory, a bisect directory, or two result files (the last good kernel's, then the first bad one's); got %s", plural.N(len(args), "argument", "arguments"))
	}
	sides, sweeps, err := comparison.Sides([][]string{{args[0]}, {args[1]}})
	if err != nil {
		return nil, refuse("%v", err)
	}
	if len(sweeps) > 0 {
		return nil, refuse("report --for-lkml: %s is a sweep: select one configuration (FILE:CONFIG)", sweeps[0].Label)
	}
	r, err := comparison.Build(sides, opt)
	if err != nil {
		return nil, inputError(err)
	}
	f := sides[0].Parts[0].File
	cmd := f.Command
	if len(cmd) > 0 {
		cmd = cmd[1:] // the program's name
	}
	return &Source{Kind: KindFiles, Paths: args, Comparison: r, Command: cmd, Version: f.Contend}, nil
}

// inputError makes an error of the comparison's input a Refusal.
func inputError(err error) error {
	if errors.Is(err, comparison.ErrIncompatible) {
		return &Refusal{err.Error()}
	}
	return err
}

// openDir reads a bisect directory (it has bisect.PlanFile) or a
// campaign directory.
func openDir(dir string, opt comparison.Options) (*Source, error) {
	if _, err := os.Stat(filepath.Join(dir, bisect.PlanFile)); err == nil {
		return openBisect(dir, opt)
	}
	if _, err := os.Stat(filepath.Join(dir, campaign.PlanFile)); err != nil {
		return nil, refuse("report --for-lkml: %s is neither a campaign directory (no %s) nor a bisect directory (no %s)", dir, campaign.PlanFile, bisect.PlanFile)
	}
	p, err := campaign.ReadPlan(dir)
	if err != nil {
		return nil, refuse("%v", err)
	}
	rep, err := campaign.BuildReport(dir, opt)
	if err != nil {
		var rf *campaign.ReportRefusal
		if errors.As(err, &rf) {
			return nil, &Refusal{err.Error()}
		}
		return nil, err
	}
	s := &Source{Kind: KindCampaign, Paths: []string{dir}, Comparison: rep.Comparison, Command: p.Command}
	if parts := rep.SideParts(0); len(parts) > 0 {
		s.Version = parts[0].File.Contend
	}
	return s, nil
}

// openBisect reads a bisect directory: its result (bisect.Status), its
// plan, and the comparison of the culprit's parent and the culprit (the
// ends when the search named no culprit), from the result files of those
// commits in DIR/runs.
func openBisect(dir string, opt comparison.Options) (*Source, error) {
	plan, _, err := bisect.Open(dir)
	if err != nil {
		return nil, refuse("%v", err)
	}
	res, err := bisect.Status(dir)
	if err != nil {
		return nil, err
	}
	good, bad := plan.Commits[0], plan.Commits[len(plan.Commits)-1]
	s := &Source{Kind: KindBisect, Paths: []string{dir}, Command: plan.Measure, Bisect: res, Plan: plan}
	if c, ok := culprit(s); ok {
		good, bad = parentOf(s, c), c.Commit
	}
	var sides []comparison.Side
	for _, c := range []bisect.Commit{good, bad} {
		s, err := commitSide(dir, c)
		if err != nil {
			return nil, err
		}
		sides = append(sides, s)
	}
	if m := plan.Metric; m != "" && len(opt.Metrics) == 0 {
		opt.Metrics = []string{m}
	}
	r, err := comparison.Build(sides, opt)
	if err != nil {
		return nil, inputError(err)
	}
	s.Comparison = r
	s.Version = sides[0].Parts[0].File.Contend
	return s, nil
}

// commitSide returns the side of commit c: the result files of its
// probes, DIR/runs/NNN-SHORT.jsonl (and NNN-SHORT-bK.jsonl, a boot each
// in a kernel search), in the order of their numbers.
func commitSide(dir string, c bisect.Commit) (comparison.Side, error) {
	short := c.Hash
	if len(short) > 12 {
		short = short[:12]
	}
	runs := filepath.Join(dir, bisect.RunsDir)
	var paths []string
	for _, pat := range []string{"[0-9][0-9][0-9]-" + short + ".jsonl", "[0-9][0-9][0-9]-" + short + "-b*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(runs, pat))
		if err != nil {
			return comparison.Side{}, err
		}
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	s := comparison.Side{Name: short}
	if len(paths) == 0 {
		return s, refuse("bisect %s: no result file of %s in %s: nothing to compare", dir, short, runs)
	}
	for _, path := range paths {
		p, _, err := comparison.OpenPart(path)
		if err != nil {
			return s, err
		}
		p.Name = filepath.Join(bisect.RunsDir, filepath.Base(path))
		s.Parts = append(s.Parts, p)
	}
	return s, nil
}
