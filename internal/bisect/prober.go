package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/safefile"
	"contend/internal/textfmt"
)

// Command is the Prober of userspace changes: each commit is checked out
// in a git worktree of its own (Work/HASH), built there (a
// shell command, BuildCmd), and measured by a contend command (Measure: "run
// WORKLOAD ..." or "exec PROGRAM ...") run in the worktree, its
// repetitions each a process. Each measurement's result file is kept in
// Runs; the builds' output in Logs.
type Command struct {
	Repo     string
	Work     string // the worktrees: removed when their commit is done with
	Runs     string // result files, NNN-HASH.json
	Logs     string // build logs, HASH.build.log
	BuildCmd string
	Measure  []string
	// Metric is the metric followed; "" is each file's primary metric.
	Metric string
	// Contend is the contend executable that runs Measure; a relative
	// path is taken in the worktree (a contend the build made).
	Contend string
	// Stderr receives the measurement's warnings (nil: discarded).
	Stderr io.Writer

	seq int
}

// CheckMeasure checks a measurement command: a run or an exec that does
// not set what the prober sets (-n/--runs, --out/-o, --append, --replace,
// --format).
func CheckMeasure(c []string) error {
	if len(c) == 0 {
		return fmt.Errorf("give the measurement after --, such as: -- run mutex --threads 4, or -- exec ./prog")
	}
	if c[0] != "run" && c[0] != "exec" {
		return fmt.Errorf("the measurement is a contend 'run' or 'exec', not %q", c[0])
	}
	if c[0] == "run" && (len(c) < 2 || strings.HasPrefix(c[1], "-")) {
		return fmt.Errorf("'run' needs a workload, such as: -- run mutex --threads 4")
	}
	for _, a := range c[1:] {
		if a == "--" || c[0] == "exec" && !strings.HasPrefix(a, "-") {
			break // the program's own arguments
		}
		for _, f := range []string{"-n", "--runs", "--out", "-o", "--append", "--replace", "--format"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return fmt.Errorf("the measurement must not set %s: bisect sets it (the runs a probe: --runs)", f)
			}
		}
	}
	return nil
}

type built struct {
	p    *Command
	c    Commit
	dir  string
	done bool
}

// Build makes the worktree of c and runs the build command in it. A
// build that fails is a *SkipError naming its log; a cancelled ctx is
// ctx's error, the worktree removed.
func (p *Command) Build(ctx context.Context, c Commit) (Built, error) {
	dir, _, err := buildAt(ctx, p.Repo, p.Work, p.Logs, p.BuildCmd, c, nil)
	if err != nil {
		return nil, err
	}
	return &built{p: p, c: c, dir: dir}, nil
}

// buildAt makes a fresh worktree of c in work (one left by a killed
// search is removed first) and runs build in it, its output kept in
// logs (and its standard output copied to out, when given). It returns
// the worktree and the log's path. A build that fails is a *SkipError
// naming its log; a cancelled ctx is ctx's error; on every error the
// worktree is removed. Both probers build through it.
func buildAt(ctx context.Context, repo, work, logs, build string, c Commit, out io.Writer) (dir, logPath string, err error) {
	dir = filepath.Join(work, textfmt.Commit(c.Hash))
	if _, err := os.Lstat(dir); err == nil {
		if err := removeWorktree(repo, dir); err != nil {
			return "", "", err
		}
	}
	if err := addWorktree(ctx, repo, dir, c.Hash); err != nil {
		removeWorktree(repo, dir)
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", err
	}
	if build == "" {
		return dir, "", nil
	}
	logPath = filepath.Join(logs, textfmt.Commit(c.Hash)+".build.log")
	log, err := safefile.CreateTemp(logs, "."+textfmt.Commit(c.Hash)+".build.log.tmp-", "", 0o644)
	if err != nil {
		removeWorktree(repo, dir)
		return "", "", err
	}
	cmd := exec.Command("/bin/sh", "-c", build)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if out != nil {
		cmd.Stdout = io.MultiWriter(log, out)
	}
	cmd.Env = append(os.Environ(), "CONTEND_BISECT_COMMIT="+c.Hash)
	err = runGroup(ctx, cmd)
	log.Close()
	os.Rename(log.Name(), logPath)
	switch {
	case ctx.Err() != nil:
		removeWorktree(repo, dir)
		return "", "", ctx.Err()
	case err != nil:
		removeWorktree(repo, dir)
		return "", "", &SkipError{Reason: fmt.Sprintf("the build failed (%v); its output: %s", exitText(err), logPath)}
	}
	return dir, logPath, nil
}

func exitText(err error) string {
	var xe *external.ExitError
	if errors.As(err, &xe) {
		return xe.Error()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() >= 0 {
			return "exit status " + strconv.Itoa(ee.ExitCode())
		}
		return ee.String()
	}
	return err.Error()
}

// Measure runs the measurement with n repetitions in the worktree and
// returns the metric's values of the repetitions that succeeded. A
// measurement whose repetitions failed is a *SkipError; one refused as
// a usage error (exit status 2) is an error: every commit would fail.
func (b *built) Measure(ctx context.Context, n int) ([]float64, error) {
	p := b.p
	p.seq++
	base := filepath.Join(p.Runs, fmt.Sprintf("%03d-%s", p.seq, textfmt.Commit(b.c.Hash)))
	for resultExists(base) {
		p.seq++
		base = filepath.Join(p.Runs, fmt.Sprintf("%03d-%s", p.seq, textfmt.Commit(b.c.Hash)))
	}
	out := base + ".jsonl"
	args := append([]string{p.Measure[0], "--runs", strconv.Itoa(n), "--out", out, "--quiet"}, p.Measure[1:]...)
	exe := p.Contend
	if !filepath.IsAbs(exe) {
		exe = filepath.Join(b.dir, exe)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = b.dir
	cmd.Stdout = io.Discard
	var errb strings.Builder
	cmd.Stderr = &errb
	cmd.Env = append(os.Environ(), "CONTEND_BISECT_COMMIT="+b.c.Hash)
	err := runGroup(ctx, cmd)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var ee *external.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		return nil, fmt.Errorf("the measurement 'contend %s' was refused: %s", strings.Join(args, " "), strings.TrimSpace(errb.String()))
	}
	f, rerr := results.Read(out)
	if rerr != nil {
		if err != nil {
			return nil, &SkipError{Reason: fmt.Sprintf("the measurement failed (%s): %s", exitText(err), lastLine(errb.String()))}
		}
		return nil, rerr
	}
	metric := p.Metric
	if metric == "" {
		metric = f.Primary
	}
	if _, ok := f.Metric(metric); !ok {
		return nil, fmt.Errorf("the measurement has no metric %q (its metrics: %s): choose one with --metric", metric, metricNames(f))
	}
	xs := f.Values(-1, metric)
	if len(xs) < n {
		return nil, &SkipError{Reason: fmt.Sprintf("%d of %d runs failed (%s)%s", n-len(xs), n, out, firstError(f))}
	}
	return xs, nil
}

func metricNames(f *results.File) string {
	var ns []string
	for _, m := range f.Metrics {
		ns = append(ns, m.Name)
	}
	return strings.Join(ns, ", ")
}

func firstError(f *results.File) string {
	for _, r := range f.Reps {
		if r.Error != "" {
			return ": " + lastLine(r.Error)
		}
	}
	return ""
}

func lastLine(s string) string {
	s = textfmt.LastLine(s)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Close removes the worktree.
func (b *built) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	return removeWorktree(b.p.Repo, b.dir)
}

// resultExists tells whether a result file of the search named base
// exists: base.jsonl, or base.json as a search begun by an older contend
// named its files (a resumed search goes on with the next number).
func resultExists(base string) bool {
	for _, ext := range []string{".jsonl", ".json"} {
		if _, err := os.Lstat(base + ext); err == nil {
			return true
		}
	}
	return false
}

// isResultName tells whether name, in the search's runs directory, is a
// result file: NAME.jsonl, or NAME.json as older versions named them.
func isResultName(name string) bool {
	return !strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json"))
}

// MetricOf returns the metric a result file of the search names (the one
// followed, or the primary) with its unit, from the first result file in
// dir.
func MetricOf(dir, metric string) MetricInfo {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !isResultName(e.Name()) {
			continue
		}
		f, err := results.Read(filepath.Join(dir, e.Name()), results.WithoutOutputs)
		if err != nil {
			continue
		}
		if metric == "" {
			metric = f.Primary
		}
		m, _ := f.Metric(metric)
		return MetricInfo{Name: metric, Unit: m.Unit}
	}
	return MetricInfo{Name: metric}
}
