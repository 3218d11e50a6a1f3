package main

import (
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/external"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/value"
	"contend/internal/workload"
)

// metricFlags are --metric and --preset: for exec, ab exec and verify
// (programs) the presets of programs, for import every preset.
func metricFlags(program bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "NAME=REGEX[:UNIT[:lower|higher]]: a metric read from the first capture group of REGEX; repeatable"},
		presetFlag(program),
	}
}

// presetFlag is --preset, one of the registry's presets
// (external.PresetNames); under a command that runs the program
// (program), one of the program presets, an import-only one refused with
// its reason.
func presetFlag(program bool) *valueFlag {
	e := &value.Enum{Words: external.PresetNames()}
	if program {
		e.Words, e.Refused = external.ProgramPresetNames(), map[string]string{}
		for _, n := range external.PresetNames() {
			if p, err := external.LookupPreset(n); err == nil && p.ImportOnly != "" {
				e.Refused[n] = p.ImportOnly
			}
		}
	}
	return enumFlag("preset", e, "metrics of an original program's output: "+e.Accepted())
}

func execCommand() *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "repeat an unmodified external program, reading metrics from its output",
		ArgsUsage: "[flags] -- PROGRAM [ARGS]",
		Description: `Runs PROGRAM -n times, each run a repetition as in 'contend run': in its own
process group (killed on --timeout or Ctrl-C; after every repetition
contend kills and reaps that group and every process the program started
that left it, with setsid or a double fork: contend is a child
subreaper, so they stay below it; the notes name them),
timed by contend and accounted with wait4 (real, user, sys, cpu, maxrss,
faults, context switches). No shell is involved unless --shell is given
(then the arguments are joined with spaces and run by /bin/sh -c).

Its stdout and stderr are captured together (as 2>&1). Each --metric
NAME=REGEX[:UNIT[:lower|higher]] is the first capture group of REGEX, which
must match exactly once: no match or several matches make the repetition
fail with a message saying so. UNIT (default count) is one of
ns, us, ms, s, B, KiB, MiB, GiB, count, ops/s, ratio, %; time units also
accept durations such as 0m46.765s. --preset reads the output format of one
of the original programs: ` + strings.Join(external.ProgramPresetNames(), ", ") + `
(and 'time' for import). A non-zero exit status or a signal is a failed
repetition; the output is kept in the result file either way (the first
and last 16 KiB).

The program is started by a launcher: contend's binary in a C-only mode
that runs before the Go runtime, so that the process metrics are the
program's own (maxrss as /usr/bin/time reports it, not contend's memory
folded in at exec; see 'contend help maxrss'). It leads the repetition's
process group: when contend dies, even by SIGKILL, the launcher kills the
group, background processes of the program included (not those that left
the group: only a living contend finds those).

The result file has the format of 'contend run' (kind exec), so show,
compare and ab read it.

Examples:
   contend exec -n 10 --metric 'time=time = (\d+) usecs:us:lower' -- ./faultme
   contend exec -n 10 --preset osim -- ./osim 64 256 1000000 0 0
   contend exec -n 5 -- ./mainc             no metric: wall, user, sys, rusage
   contend exec -n 5 --shell -- 'cd /tmp && ./mainc | tail -1'`,
		Flags:  append(append(metricFlags(true), shellFlag("run the arguments with /bin/sh -c (joined with spaces)")), repFlags(formatFlag(runFormatUsage, "text", "json", "original"))...),
		Action: runExec,
	}
}

// metricSpecs returns the metrics asked for with --preset and --metric,
// the primary metric and the preset's name.
func metricSpecs(c *cli.Context) ([]external.Spec, string, *external.Preset, error) {
	var specs []external.Spec
	primary := ""
	var pre *external.Preset
	if name := c.String("preset"); name != "" {
		p, err := external.LookupPreset(name)
		if err != nil {
			return nil, "", nil, usagef("--preset: %v", err)
		}
		pre = p
		specs = append(specs, p.Metrics...)
		primary = p.Primary
	}
	seen := map[string]bool{}
	for _, s := range specs {
		seen[s.Name] = true
	}
	for _, text := range c.StringSlice("metric") {
		s, err := external.ParseSpec(text)
		if err != nil {
			return nil, "", nil, usagef("--metric: %v", err)
		}
		if seen[s.Name] {
			return nil, "", nil, usagef("--metric %s: given twice (or also in --preset)", s.Name)
		}
		seen[s.Name] = true
		specs = append(specs, s)
		if primary == "" {
			primary = s.Name
		}
	}
	return specs, primary, pre, nil
}

func isProcessMetricName(name string) bool {
	for _, m := range workload.ProcessMetrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

func shellFlag(usage string) cli.Flag { return &cli.BoolFlag{Name: "shell", Usage: usage} }

// execName is the workload name of a result file of external program
// runs: exec:PROGRAM's base name, or exec:sh with --shell.
func execName(program string, shell bool) string {
	if shell {
		return "exec:sh"
	}
	return "exec:" + filepath.Base(program)
}

// execMetrics returns the metrics that exec and ab exec read from a
// program's output (--preset, --metric) and the primary metric (real
// without any).
func execMetrics(c *cli.Context) ([]external.Spec, string, error) {
	specs, primary, _, err := metricSpecs(c)
	if err != nil {
		return nil, "", err
	}
	for _, s := range specs {
		if isProcessMetricName(s.Name) {
			return nil, "", usagef("--metric %s: %s is measured by contend for every repetition (wait4); give the extracted metric another name, such as %s_out", s.Name, s.Name, s.Name)
		}
	}
	if primary == "" {
		primary = "real"
	}
	return specs, primary, nil
}

func runExec(c *cli.Context) error {
	specs, primary, err := execMetrics(c)
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		return usagef("exec: which program? usage: contend exec [flags] -- PROGRAM [ARGS]")
	}
	argv := args
	if c.Bool("shell") {
		argv = external.ShellArgv(args)
	} else if err := checkProgram(args[0]); err != nil {
		return err
	}
	name := execName(args[0], c.Bool("shell"))
	f := run.ExternalFile("exec", name, specs, primary, opt.label)
	f.Configs = []results.Config{run.ProgramConfig("", args, c.Bool("shell"))}
	job := run.Job{
		File: f, Name: name,
		Plan:   harness.StaticPlan(harness.Repeat(opt.n, opt.warmup)),
		Runner: run.Programs(external.Program{Argv: argv, Metrics: specs, Timeout: externalTimeout(opt.timeout)}),
		Report: summaryReport(c, opt),
	}
	if opt.format == "original" {
		job.After = func(rep results.Rep) {
			if !rep.Warmup {
				io.WriteString(c.App.Writer, rep.Output)
				if rep.Output != "" && !strings.HasSuffix(rep.Output, "\n") {
					fmt.Fprintln(c.App.Writer)
				}
			}
		}
	}
	unit := "ns"
	if m, ok := f.Metric(primary); ok {
		unit = m.Unit
	}
	return doJob(c, opt, job, run.TerminalOptions{Total: opt.n + opt.warmup, Metric: primary, Unit: unit})
}

// checkProgram fails early, as a usage error, when PROGRAM cannot be run.
func checkProgram(p string) error { return checkProgramAs("exec", p) }

// checkProgramAs is checkProgram with the error's prefix (what gave p).
func checkProgramAs(what, p string) error {
	if !strings.Contains(p, "/") {
		if _, err := lookPath(p); err != nil {
			return usagef("%s: %s: not found in PATH (give a path such as ./%s)", what, p, p)
		}
		return nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return usagef("%s: %s: no such file", what, p)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return usagef("%s: %s is not an executable file", what, p)
	}
	return nil
}

var lookPath = osexec.LookPath

// ExternalTimeout is the per-repetition timeout of an external program
// when --timeout is not given: nothing is known of what it does, so the
// default only ends a program that hangs.
const ExternalTimeout = time.Hour

func externalTimeout(given time.Duration) time.Duration {
	if given > 0 {
		return given
	}
	return ExternalTimeout
}
