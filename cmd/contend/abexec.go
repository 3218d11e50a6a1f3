package main

import (
	"slices"

	"github.com/urfave/cli/v2"

	"contend/internal/ab"
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
		Name:        "exec",
		Usage:       "A/B of external programs: two commands (--a, --b), or one program (after --) under two settings",
		ArgsUsage:   "[flags] --a 'COMMAND A' --b 'COMMAND B' | [flags] -- PROGRAM [ARGS]",
		Description: helpText("ab-exec"),
		Flags:       append(append(flags, repFlags(abFormatFlag())...), detailFlags()...),
		Action:      runABExec,
	}
}

func runABExec(c *cli.Context) error {
	specs, primary, err := external.ProgramMetrics(c.String("preset"), c.StringSlice("metric"))
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
	shell := c.Bool("shell")
	sides, err := ab.ExecSides(ab.ExecOptions{A: c.String("a"), B: c.String("b"), ASet: c.IsSet("a"), BSet: c.IsSet("b"),
		Args: c.Args().Slice(), Shell: shell, AA: c.Bool("aa")})
	if err != nil {
		return err
	}
	if err := p.CheckDistinct(slices.Equal(sides[0].Argv, sides[1].Argv), "different --a and --b commands"); err != nil {
		return err
	}
	name := ab.ExecName(sides, shell)
	f := run.ExternalFile("ab", name, specs, primary, opt.label)
	var progs [2]external.Program
	for i, s := range sides {
		f.Configs = append(f.Configs, run.ProgramConfig([]string{"a", "b"}[i], s.Args, shell))
		progs[i] = external.Program{Argv: s.Argv, Metrics: specs, Timeout: external.Timeout(opt.timeout)}
	}
	return runABJob(c, opt, p, run.Job{File: f, Name: name + "-ab", Runner: run.Programs(progs[:]...)})
}
