package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/external"
	"contend/internal/run"
)

// abExecCommand is `contend ab exec`: the A/B of two unmodified external
// programs (or one program under two settings), interleaved as the
// workloads' A/B is.
func abExecCommand() *cli.Command {
	flags := append(metricFlags(true), shellFlag("run each side's command with /bin/sh -c (--a/--b as written, or the arguments after -- joined with spaces)"))
	flags = append(flags, abFlags([2]string{
		"command of side A, such as './faultme-old' or './x 1' (split into words as a shell would, but run without one unless --shell)",
		"command of side B",
	})...)
	return &cli.Command{
		Name:      "exec",
		Usage:     "A/B of external programs: two commands (--a, --b), or one program (after --) under two settings",
		ArgsUsage: "[flags] --a 'COMMAND A' --b 'COMMAND B' | [flags] -- PROGRAM [ARGS]",
		Description: `Runs two unmodified programs alternately, each repetition as in 'contend exec'
(own process group, timeout, wait4 rusage, metrics from --metric or --preset,
output kept), and compares side B against side A as 'contend ab WORKLOAD' does.

The sides are the commands given with --a and --b, or one PROGRAM after --
that both sides run; then they differ by --a-prepare/--b-prepare, by
--trace-events, or not at all with --aa. Flags stop at PROGRAM: what follows
it is its own. See 'contend help ab' for examples.`,
		Flags:  append(append(flags, repFlags(abFormatFlag())...), detailFlags()...),
		Action: runABExec,
	}
}

// execSide is what one side of ab exec runs.
type execSide struct {
	args []string // as given: words, or with --shell the script as one word
	argv []string // what runs
}

// parseExecSides reads the sides' commands: --a and --b, or the program
// after -- for both. Every program is checked before anything runs.
func parseExecSides(c *cli.Context) ([2]execSide, error) {
	var sides [2]execSide
	shell, aa := c.Bool("shell"), c.Bool("aa")
	args := c.Args().Slice()
	hasA, hasB := c.IsSet("a"), c.IsSet("b")
	switch {
	case len(args) > 0 && (hasA || hasB):
		return sides, usagef("ab exec: give the sides' commands with --a and --b, or one program after -- for both sides, not both")
	case len(args) == 0 && !hasA && !hasB:
		return sides, usagef("ab exec: which programs? usage: contend ab exec [flags] --a 'COMMAND A' --b 'COMMAND B', or [flags] -- PROGRAM [ARGS]")
	case len(args) == 0 && !hasA:
		return sides, usagef("ab exec: --a is missing: give both --a and --b, or one program after -- for both sides")
	case len(args) == 0 && !hasB && !aa:
		return sides, usagef("ab exec: --b is missing: give both --a and --b (or --aa to run --a on both sides)")
	}
	if len(args) > 0 {
		s := execSide{args: args, argv: args}
		if shell {
			s.argv = external.ShellArgv(args)
		} else if err := checkProgramAs("ab exec", args[0]); err != nil {
			return sides, err
		}
		return [2]execSide{s, s}, nil
	}
	for i, side := range []string{"a", "b"} {
		if aa {
			side = "a"
		}
		var err error
		if sides[i], err = parseExecSide(side, c.String(side), shell); err != nil {
			return sides, err
		}
	}
	return sides, nil
}

// parseExecSide reads the command of one side (--a or --b, the flag
// side): with shell a script, else words of which the first is checked
// as a program.
func parseExecSide(side, text string, shell bool) (execSide, error) {
	if strings.TrimSpace(text) == "" {
		return execSide{}, usagef("--%s: empty; give a command such as './prog-old'", side)
	}
	if shell {
		return execSide{args: []string{text}, argv: external.ShellArgv([]string{text})}, nil
	}
	words, err := external.SplitWords(text)
	if err != nil {
		return execSide{}, usagef("--%s: %v", side, err)
	}
	if len(words) == 0 {
		return execSide{}, usagef("--%s: empty; give a command such as './prog-old'", side)
	}
	if err := checkProgramAs("--"+side, words[0]); err != nil {
		return execSide{}, err
	}
	return execSide{args: words, argv: words}, nil
}

// abExecName is the workload name of an ab exec file: exec:PROGRAM when
// both sides run the same program (or exec:sh with --shell), else
// exec:A-vs-B of the programs' base names.
func abExecName(sides [2]execSide, shell bool) string {
	a, b := execName(sides[0].args[0], shell), execName(sides[1].args[0], shell)
	if a == b {
		return a
	}
	return a + "-vs-" + strings.TrimPrefix(b, "exec:")
}

func runABExec(c *cli.Context) error {
	specs, primary, err := execMetrics(c)
	if err != nil {
		return err
	}
	opt, err := parseRepOptions(c)
	if err != nil {
		return err
	}
	p, err := parseABPlan(c)
	if err != nil {
		return err
	}
	sides, err := parseExecSides(c)
	if err != nil {
		return err
	}
	if err := p.checkDistinct(c, slices.Equal(sides[0].argv, sides[1].argv), "different --a and --b commands"); err != nil {
		return err
	}
	shell := c.Bool("shell")
	name := abExecName(sides, shell)
	f := run.ExternalFile("ab", name, specs, primary, opt.label)
	var progs [2]external.Program
	for i, s := range sides {
		f.Configs = append(f.Configs, run.ProgramConfig([]string{"a", "b"}[i], s.args, shell))
		progs[i] = external.Program{Argv: s.argv, Metrics: specs, Timeout: externalTimeout(opt.timeout)}
	}
	return runABJob(c, opt, p, run.Job{File: f, Name: name + "-ab", Runner: run.Programs(progs[:]...)})
}
