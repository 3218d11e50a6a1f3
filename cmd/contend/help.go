package main

import (
	"embed"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/workload"
)

// helpCommand replaces urfave/cli's help command so that `contend help
// WORKLOAD` explains a workload: what it measures, provenance, parameters
// and metrics.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show help for a command, or explain a workload",
		ArgsUsage: "[COMMAND | WORKLOAD]",
		Description: `Examples:
   contend help run        the run command
   contend help faultme    what faultme measures, where it comes from, its parameters
   contend help evidence   the kernel evidence collected with every repetition
   contend help maxrss     what the maxrss process metric includes`,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			if c.NArg() > 1 {
				return usagef("help takes one command or workload name")
			}
			name := c.Args().First()
			if topic, ok := helpTopics[name]; ok {
				topic(c.App.Writer)
				return nil
			}
			if w, ok := workload.Lookup(name); ok {
				describe(c.App.Writer, w, true)
				return nil
			}
			for _, cmd := range c.App.Commands {
				if cmd.HasName(name) {
					if l := c.Lineage(); len(l) > 1 {
						return cli.ShowCommandHelp(l[1], name)
					}
					return cli.ShowCommandHelp(c, name)
				}
			}
			return usagef("help: no command or workload %q; commands: see 'contend --help', workloads: %s", name, joinNames())
		},
	}
}

// helpTopics are the explanations `contend help TOPIC` prints, each
// written by its function.
var helpTopics = map[string]func(io.Writer){
	"evidence": writeEvidenceHelp,
	"maxrss":   writeMaxrssHelp,
}

// writeMaxrssHelp prints `contend help maxrss`.
func writeMaxrssHelp(w io.Writer) { fmt.Fprint(w, maxrssHelp) }

const maxrssHelp = `maxrss: peak resident set size of a repetition's process (wait4 ru_maxrss),
in bytes.

Linux folds the memory high-water mark of the process that calls execve
into the new program's ru_maxrss. A process forked (or vforked) from
contend carries contend's resident memory to its exec, so what maxrss means
depends on who started the process:

  exec, ab exec, verify's original side: the program is started by a
      launcher, contend's binary in a C-only mode that runs before the Go
      runtime starts (about 1 MiB resident). maxrss is the program's own,
      as /usr/bin/time -f %M reports it (/bin/true: about 1 MiB).

  run, ab, sweep, verify's contend side: the repetition child is
      contend's Go binary, started by the contend parent. Its maxrss is the
      larger of the parent's resident memory when it started the child
      (about 10 MiB, more when the parent holds more) and the child's own
      (the Go runtime, about 8 MiB, plus the workload's memory). A
      one-page faultme reports about 10 MiB where the original C program
      reports about 1.3 MiB.

Compare maxrss between runs of one contend build, never a workload's with
its original's: only the workload's memory above this floor is its own.
`

// helpFiles are the longer descriptions of the commands, help/NAME.txt.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText returns the description help/name.txt, without its last
// newline.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("contend: no help text " + name) // a build without the file
	}
	return strings.TrimSuffix(string(b), "\n")
}
